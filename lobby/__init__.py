"""Challenges, presence, ratings and tournaments as pure decisions with thin Redis storage.

Imports ``rules``, never ``server``.
"""
