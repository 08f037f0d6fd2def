"""Benchmarks: speed and memory figures printed as medians, never asserted in tests."""

from __future__ import annotations

import importlib


def engine_build() -> str:
    """How the rules engines run here, printed with every figure they drive (see setup.py)."""
    module = importlib.import_module("rules.ankor")
    compiled = (module.__file__ or "").endswith(".so")
    return "compiled (mypyc)" if compiled else "pure Python"
