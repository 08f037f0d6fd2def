"""The rules engines, the diff and the rooms run compiled (setup.py) wherever a C compiler is."""

from __future__ import annotations

import importlib

import pytest

from tests.conftest import package_setup


def test_the_hot_modules_are_compiled_where_a_compiler_is() -> None:
    setup = package_setup()
    if not setup.can_compile():
        pytest.skip("no C compiler here, so the package was installed as pure Python")
    for path in setup.COMPILED:
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        assert module.__file__ is not None and module.__file__.endswith(".so"), (
            f"{path} runs as pure Python: reinstall the package (./dev test does)"
        )
