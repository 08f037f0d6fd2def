"""A small HTTP/1.1 client on asyncio streams for the end-to-end tests: many requests at
once in one event loop, raw bodies (NaN, deep nesting), any headers, and a chosen source
address on the loopback network (to stand for different clients behind a proxy)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

REQUEST_SECONDS = 30.0
"""The longest one request may take, from connecting to the end of its answer."""


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    """Lower-case names; a repeated header keeps its last value."""
    text: str
    cookies: dict[str, str]
    """``Set-Cookie`` name to the whole header value."""

    @property
    def json(self) -> Any:
        return json.loads(self.text)


async def request(
    url: str,
    body: bytes | dict[str, Any] | list[Any] | None = None,
    headers: dict[str, str] | None = None,
    source: str | None = None,
    method: str | None = None,
) -> Answer:
    """``method`` (POST when there is a body, else GET) ``url``; a dict or list body is sent
    as JSON, bytes as they are."""
    parts = urlsplit(url)
    raw = json.dumps(body).encode() if isinstance(body, dict | list) else body
    verb = method or ("GET" if raw is None else "POST")
    lines = [
        f"{verb} {parts.path or '/'}{'?' + parts.query if parts.query else ''} HTTP/1.1",
        f"Host: {parts.netloc}",
        "Connection: close",
        "Content-Type: application/json",
        f"Content-Length: {len(raw or b'')}",
        *(f"{name}: {value}" for name, value in (headers or {}).items()),
    ]
    local = None if source is None else (source, 0)
    async with asyncio.timeout(REQUEST_SECONDS):
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port, local_addr=local)
        try:
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (raw or b""))
            await writer.drain()
            response = await reader.read()
        finally:
            writer.close()
            await writer.wait_closed()
    head, _, content = response.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    found: dict[str, str] = {}
    cookies: dict[str, str] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        found[name.strip().lower()] = value.strip()
        if name.strip().lower() == "set-cookie":
            cookies[value.strip().split("=", 1)[0]] = value.strip()
    if found.get("transfer-encoding") == "chunked":
        content = _unchunk(content)
    return Answer(int(status_line.split()[1]), found, content.decode(), cookies)


def cookie_value(answer: Answer, name: str) -> str:
    """The value a ``Set-Cookie`` of ``answer`` gives cookie ``name``."""
    return answer.cookies[name].split(";", 1)[0].split("=", 1)[1]


def _unchunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out, data = out + data[:size], data[size + 2 :]
    return out
