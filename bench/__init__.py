"""Benchmarks: speed and memory figures printed as medians, never asserted in tests."""
