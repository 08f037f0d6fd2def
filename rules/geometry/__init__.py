"""Board geometry shared by the games: cells, neighbours, sides and drawing coordinates.

``graph`` holds the searches every connection game needs; the other modules turn a tiling and a
size into cells and adjacency.  Standard library and :mod:`rules.api` only.
"""
