"""protocol/diff.py and its browser twin client_js/diff.js, on the shared fixture files."""

from __future__ import annotations

import copy
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from protocol.diff import DiffError, apply, apply_copy, diff

ROOT = Path(__file__).resolve().parents[2]
DIFF_JS = (ROOT / "client_js" / "diff.js").as_uri()
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "diffs").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_diff_gives_the_fixture_ops(path: Path) -> None:
    case = load(path)
    assert diff(case["old"], case["new"]) == case["ops"]


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_apply_turns_old_into_new(path: Path) -> None:
    case = load(path)
    assert apply(copy.deepcopy(case["old"]), case["ops"]) == case["new"]


def test_javascript_apply_agrees_on_every_fixture() -> None:
    """node runs client_js/diff.js over the same files and must reach every "new"."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed (apt-get install nodejs)", pytrace=False)
    script = """
import { readFileSync } from "node:fs";
import { apply } from "DIFF_JS";
const results = {};
for (const path of process.argv.slice(1)) {
  const c = JSON.parse(readFileSync(path, "utf8"));
  results[path] = apply(structuredClone(c.old), c.ops);
}
console.log(JSON.stringify(results));
""".replace("DIFF_JS", DIFF_JS)
    result = subprocess.run(
        [node, "--input-type=module", "-e", script, *map(str, FIXTURES)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    results = json.loads(result.stdout)
    for path in FIXTURES:
        assert results[str(path)] == load(path)["new"], path.stem


def test_javascript_apply_rejects_a_diff_for_another_document() -> None:
    node = shutil.which("node")
    assert node is not None
    script = """
import { apply, DiffError } from "DIFF_JS";
try { apply({a: []}, [["s", ["a", 3], 1]]); console.log("applied"); }
catch (e) { console.log(e instanceof DiffError ? "DiffError" : "other"); }
""".replace("DIFF_JS", DIFF_JS)
    result = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "DiffError"


@pytest.mark.parametrize(
    "doc, ops",
    [
        ({"a": []}, [["s", ["a", 3], 1]]),  # past the end of a list
        ({"a": 1}, [["d", ["b"]]]),  # no such key
        ({"a": 1}, [["s", ["a", "b"], 1]]),  # through a scalar
        ({"a": 1}, [["x", ["a"]]]),  # unknown kind
        ({"a": 1}, [["d", []]]),  # delete the root
        ({"a": 1}, ["s"]),  # malformed
    ],
)
def test_apply_rejects_ops_that_do_not_fit(doc: Any, ops: list[Any]) -> None:
    with pytest.raises(DiffError):
        apply(doc, ops)


def random_doc(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.random()
    if depth > 3 or kind < 0.35:
        # No bools: True == 1 inside equal containers is a documented blind spot.
        return rng.choice([0, 1, 2, -1, "a", "b", None, 1.5, ""])
    if kind < 0.7:
        return [random_doc(rng, depth + 1) for _ in range(rng.randrange(6))]
    return {rng.choice("abcdef"): random_doc(rng, depth + 1) for _ in range(rng.randrange(5))}


def mutate(rng: random.Random, doc: Any) -> Any:
    doc = copy.deepcopy(doc)
    if isinstance(doc, dict) and doc and rng.random() < 0.8:
        key = rng.choice(sorted(doc))
        doc[key] = mutate(rng, doc[key])
        return doc
    if isinstance(doc, list) and doc and rng.random() < 0.8:
        i = rng.randrange(len(doc))
        doc[i] = mutate(rng, doc[i])
        if rng.random() < 0.3:
            doc.append(random_doc(rng, 2))
        if rng.random() < 0.2:
            del doc[rng.randrange(len(doc)) :]
        return doc
    return random_doc(rng, 1)


def test_apply_of_diff_reaches_the_new_document_on_random_data() -> None:
    rng = random.Random(8)
    for _ in range(3000):
        old = random_doc(rng)
        new = mutate(rng, old)
        ops = diff(old, new)
        assert apply(copy.deepcopy(old), ops) == new
        typed = json.dumps(apply(copy.deepcopy(old), ops), sort_keys=True)
        assert typed == json.dumps(new, sort_keys=True)  # 1.0 is not 1 on the wire


def test_tuples_diff_like_lists() -> None:
    """Rules data may hold tuples; on the wire they are arrays like lists."""
    old = {"cells": [0, 1, 2], "record": ["a"]}
    new = {"cells": (0, 1, 3), "record": ("a", "b")}
    ops = diff(old, new)
    assert ops == [["s", ["cells", 2], 3], ["s", ["record", 1], "b"]]


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_apply_copy_reaches_the_new_document_and_leaves_the_old_one_alone(path: Path) -> None:
    case = load(path)
    old = case["old"]
    untouched = copy.deepcopy(old)
    assert apply_copy(old, case["ops"]) == case["new"]
    assert old == untouched


def test_apply_copy_changes_no_part_shared_with_other_documents_on_random_data() -> None:
    """Parts the rules reuse from call to call sit in many documents at once: bringing one
    document forward must leave every part it shares as it was."""
    rng = random.Random(9)
    for _ in range(3000):
        old = random_doc(rng)
        new = mutate(rng, old)
        shared = copy.deepcopy(old)
        untouched = copy.deepcopy(old)
        assert apply_copy(shared, diff(old, new)) == new
        assert shared == untouched


def test_apply_copy_takes_tuples_as_lists_and_refuses_what_does_not_fit() -> None:
    doc = {"cells": (0, 1, 2), "deep": {"list": (1, (2, 3))}}
    assert apply_copy(doc, [["s", ["cells", 3], 9], ["s", ["deep", "list", 1, 0], 7]]) == {
        "cells": [0, 1, 2, 9],
        "deep": {"list": [1, [7, 3]]},
    }
    assert doc == {"cells": (0, 1, 2), "deep": {"list": (1, (2, 3))}}
    for ops in ([["s", ["cells", 0, "x"], 1]], [["d", ["nothing"]]], [["s", ["cells", 5], 1]]):
        with pytest.raises(DiffError):
            apply_copy(doc, ops)
