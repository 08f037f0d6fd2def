"""The protocol, defined once and shared by the server, the Python client, the bots and the
browser: :mod:`protocol.messages` (every wire message, :func:`~protocol.messages.decode`, the
size limits), :mod:`protocol.errors` (the one error tree, its codes, HTTP statuses and close
codes), :mod:`protocol.diff` (the versioned diffs of plain data) and
:mod:`protocol.javascript` (the text of ``client_js/protocol.js``, written by
``python -m protocol``).

Pure: no sockets, no Redis, no clocks.  Imports msgpack, the standard library and
:mod:`rules.api` only.
"""
