"""The documentation holds together: every relative link of README.md, deploy/README.md and
docs/ leads to a file of the repository (and its ``#anchor`` to a heading of that file), every
section of a rules page that the code, the tests or the pages cite exists, and no file points
at a document outside the repository."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from rules import GAMES, find_game

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"

DOCUMENTS = sorted(
    [ROOT / "README.md", ROOT / "deploy" / "README.md", *(ROOT / "docs").rglob("*.md")]
)

PYRAMID_FAMILY = ("pyramid", "boche", "ankor")
"""Boche and Ankor share the pyramid page; their section numbers run on across the three."""

CITING: dict[str, tuple[str, ...]] = {
    "rules/boche.py": PYRAMID_FAMILY,
    "rules/ankor.py": PYRAMID_FAMILY,
    "rules/geometry/trigrid.py": PYRAMID_FAMILY,
    "rules/che.py": ("che",),
    "rules/geometry/plane.py": ("che",),
    "rules/osbox.py": ("osbox",),
    "rules/geometry/squares.py": ("osbox",),
    "rules/marque.py": ("marque",),
    "rules/geometry/marque_tiling.py": ("marque",),
    "tests/rules/test_boche.py": PYRAMID_FAMILY,
    "tests/rules/test_ankor.py": PYRAMID_FAMILY,
    "tests/rules/test_trigrid.py": PYRAMID_FAMILY,
    "tests/rules/test_che.py": ("che",),
    "tests/rules/test_plane.py": ("che",),
    "tests/rules/test_osbox.py": ("osbox",),
    "tests/rules/test_squares.py": ("osbox",),
    "tests/rules/test_marque.py": ("marque",),
    "tests/rules/test_marque_tiling.py": ("marque",),
    "tests/rules/cases/boche": PYRAMID_FAMILY,
    "tests/rules/cases/ankor": PYRAMID_FAMILY,
    "tests/rules/cases/che": ("che",),
    "tests/rules/cases/osbox": ("osbox",),
    "tests/rules/cases/marque": ("marque",),
    "docs/rules/pyramid.md": PYRAMID_FAMILY,
    "docs/rules/boche.md": PYRAMID_FAMILY,
    "docs/rules/ankor.md": PYRAMID_FAMILY,
    "docs/rules/che.md": ("che",),
    "docs/rules/osbox.md": ("osbox",),
    "docs/rules/marque.md": ("marque",),
}
"""The files whose bare section citations (``§3.5``) mean sections of these rules pages."""

_LINK = re.compile(r"!?\[[^\]]*\]\(\s*([^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_SECTION_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.?\s")
_PAGE_CITATION = re.compile(r"docs/rules/([\w-]+)\.md((?:[ ,]*(?:and )?§\s?\d+(?:\.\d+)*)*)")
_SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*)")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_DOCUMENT_PATH = re.compile(r"(?<![\w./-])((?:\.{1,2}/|/)?(?:[\w.-]+/)*[\w.-]*\w\.md)\b")
_CLIMBING_PATH = re.compile(r"(?<![\w./-])((?:\.\./)+[\w.-]+(?:/[\w.-]+)*)")


def test_documents_to_check_are_found() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in DOCUMENTS}
    assert {"README.md", "deploy/README.md", "docs/protocol.md", "docs/rules/che.md"} <= names


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_lead_to_files_and_headings_of_the_repository(document: Path) -> None:
    problems = []
    for target in links(document):
        if _URL.match(target) or target.startswith("mailto:"):
            continue
        path_text, _, anchor = target.partition("#")
        path = (document.parent / path_text).resolve() if path_text else document
        if not is_inside(path) or not path.exists():
            problems.append(f"{target}: no such file in the repository")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            problems.append(f"{target}: no heading #{anchor} in {path.name}")
    assert not problems, f"{document.relative_to(ROOT)}: " + "; ".join(problems)


@pytest.mark.parametrize("name", sorted(CITING))
def test_cited_rules_sections_exist(name: str) -> None:
    """``§3.5`` in a file that follows the rules pages names a numbered heading of one of them,
    and ``docs/rules/boche.md §3.5`` one of that page."""
    base = ROOT / name
    files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [base]
    problems = []
    for path in files:
        text = path.read_text(encoding="utf-8").replace("\\u00a7", "§")
        for match in _PAGE_CITATION.finditer(text):
            page = match.group(1)
            for section in _SECTION.findall(match.group(2)):
                if not has_section(page, section):
                    problems.append(f"{path.relative_to(ROOT)}: {page}.md has no §{section}")
        bare = _PAGE_CITATION.sub("", text)
        for section in _SECTION.findall(bare):
            if not any(has_section(page, section) for page in CITING[name]):
                problems.append(f"{path.relative_to(ROOT)}: no §{section} in {CITING[name]}")
    assert not problems, "\n".join(problems)


def test_every_rules_page_is_linked_from_the_readme() -> None:
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in links(ROOT / "README.md")}
    pages = set(RULES.glob("*.md"))
    assert pages and pages <= linked, sorted(p.name for p in pages - linked)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_rules_page_lists_every_flag_the_engine_accepts_with_its_range(name: str) -> None:
    rows = [
        line
        for line in (RULES / f"{name}.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `")
    ]
    for flag in find_game(name).FLAGS:
        row = next((r for r in rows if re.search(rf"`-{flag.name}(?:=\w+)?`", r)), None)
        assert row is not None, f"-{flag.name} is missing from the options of {name}.md"
        if flag.minimum is not None and flag.maximum is not None:
            assert f"{flag.minimum} to {flag.maximum}" in row, row


def test_no_file_points_outside_the_repository() -> None:
    """No tracked file names a document that the repository does not hold, nor a path that
    climbs out of it: every clone must be able to follow what it cites."""
    problems = []
    for path in tracked_text_files():
        text = _URL.sub("", path.read_text(encoding="utf-8", errors="replace"))
        for climbing in _CLIMBING_PATH.findall(text):
            if not is_inside((path.parent / climbing).resolve()):
                problems.append(f"{path.relative_to(ROOT)}: {climbing} leaves the repository")
        for cited in _DOCUMENT_PATH.findall(text):
            if not any(
                is_inside(place) and place.exists()
                for place in ((path.parent / cited).resolve(), (ROOT / cited).resolve())
            ):
                problems.append(f"{path.relative_to(ROOT)}: {cited} is not in the repository")
    assert not problems, "\n".join(problems)


# --- helpers -------------------------------------------------------------------------------------


def links(document: Path) -> list[str]:
    """The link targets of a Markdown file, outside code blocks and code spans."""
    text = _CODE_SPAN.sub("", _FENCE.sub("", document.read_text(encoding="utf-8")))
    return _LINK.findall(text)


@cache
def anchors(document: Path) -> frozenset[str]:
    """The anchors GitHub gives the headings of a Markdown file."""
    text = _FENCE.sub("", document.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set()
    for heading in _HEADING.findall(text):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return frozenset(found)


@cache
def sections(page: str) -> frozenset[str]:
    """The section numbers of the headings of a rules page: ``"3.5"`` for ``### 3.5 ...``."""
    path = RULES / f"{page}.md"
    if not path.exists():
        return frozenset()
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    numbers = (_SECTION_NUMBER.match(heading) for heading in _HEADING.findall(text))
    return frozenset(match.group(1) for match in numbers if match)


def has_section(page: str, section: str) -> bool:
    """Whether ``page`` has the numbered section, or sections under it (``§3`` and ``3.1``)."""
    numbers = sections(page)
    return section in numbers or any(n.startswith(section + ".") for n in numbers)


def is_inside(path: Path) -> bool:
    return path == ROOT or ROOT in path.parents


def tracked_text_files() -> list[Path]:
    """The files git tracks (or would, once added), without binaries and vendored code."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    found = []
    for name in listed:
        path = ROOT / name
        if "vendor" in path.parts or not path.is_file():
            continue
        if b"\0" in path.read_bytes()[:8192]:
            continue
        found.append(path)
    return found


PACKAGES = ("server", "bots", "lobby", "protocol", "client")
"""Where settings may be read (a package missing here is simply not searched)."""


def test_every_setting_read_from_the_environment_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    read = re.compile(r"""(?:env|environ)(?:\.get\(|\[)\s*["']([A-Z][A-Z0-9_]+)["']""")
    sources = [
        *ROOT.glob("server/**/*.py"),
        *ROOT.glob("bots/**/*.py"),
        *ROOT.glob("lobby/**/*.py"),
    ]
    names = {name for path in sources for name in read.findall(path.read_text())}
    names -= {"PYTHONPATH"}  # passed on to child processes, not a setting
    assert {"REDIS_URL", "SEND_QUEUE", "BOT_WORKERS", "PUSH_SERVICES"} <= names
    missing = sorted(name for name in names if f"`{name}`" not in readme)
    assert missing == [], f"settings missing from README.md: {missing}"
