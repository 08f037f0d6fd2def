"""Diffs of plain data: ``diff(old, new)`` lists the operations that ``apply`` replays.

The room state sent to clients is plain msgpack data (maps with string keys, lists, scalars).
A diff is a short list of operations, each a list:

* ``["s", path, value]`` sets the value at ``path``; an empty path replaces the whole
  document; in a list, the index equal to its length appends.
* ``["d", path]`` deletes a map key, or, when ``path`` ends in a list index, cuts the list
  to that length.

A path is a list of map keys (strings) and list indexes (integers).  ``apply`` changes the
document in place (copying it is the caller's choice) and returns it, since a root ``set``
replaces it.  It copies the values it sets, so the document never shares objects with
the operations, which may hold parts that ``rules`` reuse from call to call.
``client_js/diff.js`` is the browser's twin of ``apply``; both are tested on the fixtures
in ``tests/fixtures/diffs/``.  Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, count
from operator import is_not, ne
from typing import Any, TypeAlias

PlainData: TypeAlias = Any
Path: TypeAlias = list[str | int]
Op: TypeAlias = list[Any]

SET = "s"
DELETE = "d"


class DiffError(ValueError):
    """An operation that does not fit the document (a diff meant for another version)."""


def diff(old: PlainData, new: PlainData) -> list[Op]:
    """The operations that turn ``old`` into ``new`` (empty when they are equal)."""
    ops: list[Op] = []
    _diff(old, new, [], ops)
    return ops


def apply(doc: PlainData, ops: list[Any]) -> PlainData:
    """Replay ``ops`` on ``doc`` in place and return the result; raises DiffError."""
    return _replay(doc, ops, None)


def apply_copy(doc: PlainData, ops: list[Any]) -> PlainData:
    """What ``apply`` makes of ``doc``, leaving ``doc`` and every part of it unchanged;
    raises DiffError.  Only the maps and lists on the operations' paths are copied, so a
    document that shares parts with others (the rules reuse parts from call to call) can be
    brought forward for the price of its changes.  The result shares the values the
    operations set, too (tuples stay tuples): a document made this way is changed only by
    ``apply_copy`` again, which copies whatever it changes."""
    owned: set[int] = set()
    return _replay(_shallow(doc, owned), ops, owned)


def _replay(doc: PlainData, ops: list[Any], owned: set[int] | None) -> PlainData:
    """Replay ``ops`` on ``doc``; given ``owned`` (the maps and lists that may be changed),
    each other one on an operation's path is copied first, and noted there."""
    for op in ops:
        if not isinstance(op, list) or len(op) < 2 or not isinstance(op[1], list):
            raise DiffError(f"malformed operation {op!r}")
        kind, path = op[0], op[1]
        if not path:
            if kind != SET or len(op) != 3:
                raise DiffError(f"only a set may target the root: {op!r}")
            doc = _copy(op[2]) if owned is None else _shallow(op[2], owned)
            continue
        parent = _walk(doc, path[:-1]) if owned is None else _walk_owned(doc, path, owned)
        key = path[-1]
        if kind == SET and len(op) == 3:
            _set(parent, key, _copy(op[2]) if owned is None else op[2])
        elif kind == DELETE and len(op) == 2:
            _delete(parent, key)
        else:
            raise DiffError(f"unknown operation {op!r}")
    return doc


def _walk_owned(doc: PlainData, path: list[Any], owned: set[int]) -> PlainData:
    """The parent of ``path``'s last key, as ``_walk`` finds it, copying each map or list on
    the way that is not ``owned`` yet (into its parent, which is by then)."""
    parent = doc
    for depth, key in enumerate(path[:-1]):
        child = _child(parent, key, path)
        if id(child) not in owned:
            if not isinstance(child, _CONTAINERS):
                raise DiffError(f"path {path[: depth + 2]!r} does not fit the document")
            child = _shallow(child, owned)
            _set(parent, key, child)
        parent = child
    return parent


def _shallow(value: PlainData, owned: set[int]) -> PlainData:
    """A new map or list holding ``value``'s parts (a list for a tuple), noted as ``owned``:
    one that may be changed; a scalar as it is."""
    if isinstance(value, dict):
        copied: PlainData = dict(value)
    elif isinstance(value, _SEQUENCES):
        copied = list(value)
    else:
        return value
    owned.add(id(copied))
    return copied


def _diff(old: PlainData, new: PlainData, path: Path, ops: list[Op]) -> None:
    # Types first: True == 1 and 1.0 == 1 in Python, but not on the wire.  Lists and tuples
    # are both msgpack arrays, so they compare as one kind.
    if type(old) is not type(new):
        if isinstance(old, _SEQUENCES) and isinstance(new, _SEQUENCES):
            _diff_lists(old, new, path, ops)
        else:
            ops.append([SET, path, new])
    elif isinstance(new, dict):
        if old.keys() == new.keys():  # the usual case: nothing to add or delete
            for key, value in new.items():
                before = old[key]
                if before is value:
                    continue  # shared by both (rules reuse unchanged parts): no walk at all
                kind = type(value)
                if kind is not type(before):
                    _diff(before, value, [*path, key], ops)
                elif before != value:
                    # Straight to the walk of the kind, which need not compare again.
                    if kind is dict:
                        _diff(before, value, [*path, key], ops)
                    elif kind is list or kind is tuple:
                        _diff_lists(before, value, [*path, key], ops)
                    elif isinstance(value, _CONTAINERS):
                        _diff(before, value, [*path, key], ops)
                    else:  # a changed scalar (the usual case), without a call
                        ops.append([SET, [*path, key], value])
            return
        for key in old:
            if key not in new:
                ops.append([DELETE, [*path, key]])
        for key, value in new.items():
            if key not in old:
                ops.append([SET, [*path, key], value])
            else:
                before = old[key]
                if type(before) is not type(value) or before != value:
                    _diff(before, value, [*path, key], ops)
    elif isinstance(new, _SEQUENCES):
        if old != new:
            _diff_lists(old, new, path, ops)
    elif old != new:
        ops.append([SET, path, new])


def _diff_lists(old: Sequence[Any], new: Sequence[Any], path: Path, ops: list[Op]) -> None:
    # The unequal positions, found by C-level comparisons (this runs on every move over the
    # game's long lists).  Equal elements are taken as unchanged: a bool replaced by an
    # equal int inside an otherwise equal list goes unnoticed (rules data never does that).
    size = len(old)
    # (Equal lengths take the general way: an equal list gives no operation there either.)
    if type(old) is type(new) and len(new) > size and new[:size] == old:
        # Only appended to, like a move record: one comparison of the kept part, which is
        # quick when it holds the very same objects.
        for i in range(size, len(new)):
            ops.append([SET, [*path, i], new[i]])
        return
    # Parts that the rules reuse from call to call are the very same objects: only the
    # others need comparing (all of them, when the old data was read back from storage).
    changed = list(compress(count(), map(is_not, old, new)))
    if len(changed) > len(new) // 2:
        changed = list(compress(count(), map(ne, old, new)))
    else:
        changed = [i for i in changed if old[i] != new[i]]
    if len(changed) + max(0, len(new) - size) > max(1, len(new) // 2):
        ops.append([SET, path, new])  # mostly different or new: one set is shorter
        return
    for i in changed:
        _diff(old[i], new[i], [*path, i], ops)
    if len(new) < len(old):
        ops.append([DELETE, [*path, len(new)]])
    for i in range(len(old), len(new)):
        ops.append([SET, [*path, i], new[i]])


_SEQUENCES = (list, tuple)
_CONTAINERS = (dict, list, tuple)


def _copy(value: PlainData) -> PlainData:
    """A copy of plain data down to its scalars (lists for tuples, as on the wire)."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, _SEQUENCES):
        return [_copy(item) for item in value]
    return value


def _walk(doc: PlainData, path: list[Any]) -> PlainData:
    node = doc
    for key in path:
        node = _child(node, key, path)
    return node


def _child(node: PlainData, key: object, path: list[Any]) -> PlainData:
    """The part of ``node`` at ``key``, one step of ``path``; raises DiffError."""
    try:
        if isinstance(node, dict) and isinstance(key, str):
            return node[key]
        if isinstance(node, list) and isinstance(key, int) and not isinstance(key, bool):
            return node[key]
    except (KeyError, IndexError) as error:
        raise DiffError(f"path {path!r} does not exist") from error
    raise DiffError(f"path {path!r} does not fit the document")


def _set(parent: PlainData, key: object, value: PlainData) -> None:
    if isinstance(parent, dict) and isinstance(key, str):
        parent[key] = value
    elif isinstance(parent, list) and isinstance(key, int) and not isinstance(key, bool):
        if 0 <= key < len(parent):
            parent[key] = value
        elif key == len(parent):
            parent.append(value)
        else:
            raise DiffError(f"index {key} is past the end of a list of {len(parent)}")
    else:
        raise DiffError(f"cannot set {key!r} in {type(parent).__name__}")


def _delete(parent: PlainData, key: object) -> None:
    if isinstance(parent, dict) and isinstance(key, str):
        if key not in parent:
            raise DiffError(f"no key {key!r} to delete")
        del parent[key]
    elif isinstance(parent, list) and isinstance(key, int) and not isinstance(key, bool):
        if not 0 <= key <= len(parent):
            raise DiffError(f"cannot cut a list of {len(parent)} to {key}")
        del parent[key:]
    else:
        raise DiffError(f"cannot delete {key!r} from {type(parent).__name__}")
