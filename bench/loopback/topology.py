"""The deployment of ``docker-compose.yml`` on loopback ports, without Docker.

One redis-server run with ``deploy/redis.conf`` (only its port, bind address and directory
overridden), N ``python -m server`` processes on that Redis, and HAProxy run with
``deploy/haproxy.cfg`` rewritten for loopback by :func:`loopback_haproxy_config` (its
``bind`` line, its ``server-template`` line as one ``server`` line per process, no DNS
resolvers, plus an admin socket to read the backend states).  The drills in tests/deploy and
``python -m bench.drills`` use it.  May import anything; nothing of ours imports it but them.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
REDIS_CONF = DEPLOY / "redis.conf"
HAPROXY_CFG = DEPLOY / "haproxy.cfg"
SECRET = "deployment-drills"
"""SESSION_SECRET of every server process, so the drills issue their own tokens."""
STARTUP_SECONDS = 30.0


class TopologyError(RuntimeError):
    """A process of the topology did not start."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def loopback_haproxy_config(
    text: str, listen_port: int, server_ports: list[int], admin_socket: Path
) -> str:
    """``deploy/haproxy.cfg`` for processes on loopback ports; raises ValueError if the file
    no longer has the one ``bind`` and ``server-template`` lines this rewrites."""
    lines = text.splitlines()
    out: list[str] = []
    in_resolvers = False
    binds = templates = 0
    for line in lines:
        stripped = line.strip()
        if re.match(r"^\S", line):  # a section starts at the left margin
            in_resolvers = stripped.startswith("resolvers ")
            if in_resolvers:
                continue
            out.append(line)
            if stripped == "global":
                out.append(f"    stats socket {admin_socket} mode 600 level admin")
            continue
        if in_resolvers:
            continue
        if stripped.startswith("bind "):
            binds += 1
            out.append(f"    bind 127.0.0.1:{listen_port}")
        elif stripped.startswith("server-template "):
            templates += 1
            options = stripped.split()[4:]
            options = _drop_option(_drop_option(options, "resolvers"), "init-addr")
            for index, port in enumerate(server_ports):
                out.append(f"    server s{index} 127.0.0.1:{port} {' '.join(options)}".rstrip())
        else:
            out.append(line)
    if binds != 1 or templates != 1:
        raise ValueError("deploy/haproxy.cfg needs exactly one bind and one server-template line")
    return "\n".join(out) + "\n"


def _drop_option(options: list[str], name: str) -> list[str]:
    """``options`` without ``name`` and the value that follows it."""
    if name not in options:
        return options
    at = options.index(name)
    return options[:at] + options[at + 2 :]


@dataclass
class Process:
    """A child process whose output goes to a log file, read line by line as it comes."""

    name: str
    command: list[str]
    log_path: Path
    env: Mapping[str, str] | None = None
    ready_line: str | None = None
    popen: subprocess.Popen[str] | None = None
    lines: list[str] = field(default_factory=list)
    drain_thread: threading.Thread | None = None

    def start(self) -> None:
        self.lines = []
        self.popen = subprocess.Popen(
            self.command,
            cwd=ROOT,
            env=None if self.env is None else dict(self.env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        ready = threading.Event()
        stdout = self.popen.stdout
        assert stdout is not None

        def drain() -> None:  # keeps the pipe empty so the child never blocks on it
            with stdout, self.log_path.open("a") as log:
                for line in stdout:
                    log.write(line)
                    log.flush()
                    self.lines.append(line)
                    if self.ready_line is not None and line.startswith(self.ready_line):
                        ready.set()
            ready.set()

        self.drain_thread = threading.Thread(target=drain, name=f"drain-{self.name}", daemon=True)
        self.drain_thread.start()
        if self.ready_line is not None:
            ready.wait(STARTUP_SECONDS)
            if not any(line.startswith(self.ready_line) for line in self.lines):
                self.kill()
                raise TopologyError(f"{self.name} did not start:\n{''.join(self.lines)[-3000:]}")

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.popen is not None:
            self.popen.kill()
            self.popen.wait(20)
            self._reaped()

    def _reaped(self) -> None:
        """The child has exited: its output ends, and the reading thread with it."""
        if self.drain_thread is not None:
            self.drain_thread.join(10)
        self.popen = None

    def terminate(self) -> None:
        """SIGTERM, then SIGKILL if it does not stop."""
        if self.popen is not None:
            self.popen.terminate()
            try:
                self.popen.wait(20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(20)
            self._reaped()


class Topology:
    """Redis, ``servers`` server processes and HAProxy, all on loopback, in ``directory``."""

    def __init__(
        self,
        directory: Path,
        servers: int = 2,
        server_module: str = "server",
        settings: Mapping[str, str] | None = None,
    ) -> None:
        """``server_module``: ``server``, or ``bench.loopback.serve`` to add the test-only game;
        ``settings``: more environment of every server process (README's settings)."""
        if servers < 1:
            raise ValueError("a topology needs at least one server process")
        for binary in ("redis-server", "haproxy"):
            if shutil.which(binary) is None:
                raise TopologyError(f"{binary} is not installed (apt-get install {binary})")
        self.directory = directory
        self.redis_port = free_port()
        self.redis = Process(
            "redis",
            [
                "redis-server",
                str(REDIS_CONF),
                "--port",
                str(self.redis_port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(directory / "redis"),
                "--daemonize",
                "no",
            ],
            directory / "redis.log",
            ready_line=None,
        )
        self.servers: list[Process] = []
        self.server_ports: list[int] = []
        for index in range(servers):
            env = {
                **_environment(),
                "REDIS_URL": self.redis_url,
                "HOST": "127.0.0.1",
                "PORT": "0",
                "SESSION_SECRET": SECRET,
                "PYTHONPATH": str(ROOT),
                **(settings or {}),
            }
            self.servers.append(
                Process(
                    f"server {index}",
                    [sys.executable, "-m", server_module],
                    directory / f"server{index}.log",
                    env,
                    ready_line="listening on",
                )
            )
        self.listen_port = free_port()
        self.admin_socket = directory / "haproxy.sock"
        self.haproxy: Process | None = None

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    @property
    def ws_url(self) -> str:
        """The websocket endpoint behind HAProxy, as clients see it."""
        return f"ws://127.0.0.1:{self.listen_port}/ws"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.listen_port}"

    def server_url(self, index: int) -> str:
        """One process directly, bypassing HAProxy (for /metrics and /healthz)."""
        return f"http://127.0.0.1:{self.server_ports[index]}"

    def server_ws_url(self, index: int) -> str:
        return f"ws://127.0.0.1:{self.server_ports[index]}/ws"

    def start(self) -> None:
        (self.directory / "redis").mkdir(parents=True, exist_ok=True)
        try:
            self.start_redis()
            self.server_ports = []
            for server in self.servers:
                server.start()
                self.server_ports.append(_listening_port(server))
            config = loopback_haproxy_config(
                HAPROXY_CFG.read_text(), self.listen_port, self.server_ports, self.admin_socket
            )
            config_path = self.directory / "haproxy.cfg"
            config_path.write_text(config)
            command = ["haproxy", "-db", "-f", str(config_path)]
            self.haproxy = Process("haproxy", command, self.directory / "haproxy.log")
            self.haproxy.start()
            self.wait_backends(lambda states: all(s == "UP" for s in states.values()))
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        if self.haproxy is not None:
            self.haproxy.terminate()
        for server in self.servers:
            server.terminate()
        self.redis.kill()

    def route_redis(self, ports: list[int]) -> None:
        """Before :meth:`start`: server process ``i`` reaches Redis at ``ports[i]`` (a proxy's)
        instead of Redis's own port."""
        for server, port in zip(self.servers, ports, strict=True):
            assert server.env is not None
            server.env = {**server.env, "REDIS_URL": f"redis://127.0.0.1:{port}/0"}

    # --- failures ------------------------------------------------------------------------------

    def kill_server(self, index: int) -> None:
        """SIGKILL one server process, as a crash would."""
        self.servers[index].kill()

    def restart_server(self, index: int) -> None:
        """Start a killed server process again on its port, and wait until HAProxy sends it
        connections again."""
        server = self.servers[index]
        assert server.env is not None
        server.env = {**server.env, "PORT": str(self.server_ports[index])}
        server.start()
        self.wait_backends(lambda states: states.get(f"s{index}") == "UP")

    def terminate_redis(self) -> None:
        """SIGTERM redis-server: it writes its files and exits, as on an orderly stop."""
        self.redis.terminate()

    def kill_redis_rewriting(self) -> None:
        """SIGKILL redis-server (and the child writing the new file) while it rewrites its
        append-only file; the rewrite is slowed (``rdb-key-save-delay``) to be caught in it."""
        with socket.create_connection(("127.0.0.1", self.redis_port), timeout=5) as conn:
            for command in ("CONFIG SET rdb-key-save-delay 20000", "BGREWRITEAOF"):
                conn.sendall(command.encode() + b"\r\n")
                answer = conn.recv(256)
                if answer.startswith(b"-"):
                    raise TopologyError(f"{command}: {answer!r}")
            deadline = time.monotonic() + STARTUP_SECONDS
            while b"aof_rewrite_in_progress:1" not in _info(conn, "persistence"):
                if time.monotonic() > deadline:
                    raise TopologyError("the append-only file's rewrite did not start")
                time.sleep(0.01)  # polling Redis for the rewrite's start
        # All at once, as when the host dies (the child shares the output pipe, so reaping
        # the parent waits for the child's end too).
        for pid in (self.redis.pid, *_children(self.redis.pid)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.redis.kill()

    def kill_redis(self) -> None:
        """SIGKILL redis-server: only what reached the append-only file survives."""
        self.redis.kill()

    def start_redis(self) -> None:
        """Start redis-server (again) on the same port and data; returns once it answers."""
        self.redis.start()
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _answers_ping(self.redis_port):
            if not self.redis.running:
                raise TopologyError("redis-server exited:\n" + "".join(self.redis.lines)[-3000:])
            if time.monotonic() > deadline:
                raise TopologyError("redis-server did not answer PING")
            time.sleep(0.01)  # polling a child that is starting up

    def restart_redis(self) -> None:
        self.kill_redis()
        self.start_redis()

    # --- HAProxy -------------------------------------------------------------------------------

    def backend_states(self) -> dict[str, str]:
        """Each server line's state as HAProxy sees it (``UP``, ``DOWN``...), by name."""
        answer = _admin_command(self.admin_socket, "show stat")
        states: dict[str, str] = {}
        header: list[str] = []
        for row in answer.splitlines():
            if row.startswith("# "):
                header = row[2:].split(",")
                continue
            values = row.split(",")
            if len(values) < 2 or not header:
                continue
            record = dict(zip(header, values, strict=False))
            if record.get("pxname") == "servers" and record.get("svname", "").startswith("s"):
                states[record["svname"]] = record.get("status", "")
        return states

    def wait_backends(
        self, done: Callable[[dict[str, str]], bool], timeout: float = STARTUP_SECONDS
    ) -> dict[str, str]:
        """Poll the backend states until ``done(states)`` holds; raises TopologyError."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                states = self.backend_states()
            except OSError:
                states = {}
            if states and done(states):
                return states
            if time.monotonic() > deadline:
                raise TopologyError(f"HAProxy backends stayed {states}")
            time.sleep(0.02)  # polling HAProxy's admin socket


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    return env


def _listening_port(server: Process) -> int:
    for line in server.lines:
        match = re.match(r"listening on http://[^:]+:(\d+)", line)
        if match:
            return int(match.group(1))
    raise TopologyError(f"{server.name} printed no port")


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _info(conn: socket.socket, section: str) -> bytes:
    """The answer to ``INFO section`` on a raw connection to Redis."""
    conn.sendall(f"INFO {section}\r\n".encode())
    head = b""
    while not head.endswith(b"\r\n"):
        head += _received(conn, 1)
    size = int(head[1:-2]) + 2
    body = b""
    while len(body) < size:
        body += _received(conn, size - len(body))
    return body


def _received(conn: socket.socket, most: int) -> bytes:
    """Up to ``most`` bytes; raises if Redis closed the connection (``recv`` would answer
    nothing, at once, forever)."""
    data = conn.recv(most)
    if not data:
        raise TopologyError("redis-server closed the connection")
    return data


def _children(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux's /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _admin_command(path: Path, command: str) -> str:
    with socket.socket(socket.AF_UNIX) as conn:
        conn.settimeout(5)
        conn.connect(str(path))
        conn.sendall(command.encode() + b"\n")
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode()
