"""Running ``python -m desktop_agent`` as a user does, for the terminal tests: a real subprocess with its own
data folder, and the small servers and waits those tests share."""

from __future__ import annotations

import json
import os
import pty
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from desktop_agent.core.store import ConversationStore

ROOT = Path(__file__).resolve().parents[2]


def cli_env(home: Path | None, extra: dict | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OLLAMA_HOST", "OPENAI_API_KEY", "DESKTOP_AGENT_HOME")}
    if home is not None:
        env["DESKTOP_AGENT_HOME"] = str(home)
    env.update(extra or {})
    return env


def run_cli(home: Path | None, *args: str, stdin: str | None = None, env: dict | None = None,
            timeout: float = 60, stdout=None) -> subprocess.CompletedProcess:
    kw = {"stdout": stdout} if stdout is not None else {"stdout": subprocess.PIPE}
    return subprocess.run(
        [sys.executable, "-m", "desktop_agent", *args], input=stdin, stderr=subprocess.PIPE, text=True,
        timeout=timeout, env=cli_env(home, env), cwd=ROOT, **kw,
    )


def run_with_terminal_stderr(home: Path, *args: str, env: dict | None = None, timeout: float = 60):
    """Run with stderr on a pseudo-terminal (stdout and stdin stay pipes). Returns (code, stdout, stderr)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_agent", *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=slave, env=cli_env(home, env), cwd=ROOT,
    )
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        out, _ = proc.communicate(timeout=timeout)
    finally:
        proc.kill()
        reader.join(5)
        os.close(master)
    return proc.returncode, out.decode(), b"".join(chunks).decode().replace("\r\n", "\n")


def events_of(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def saved_chats(home: Path):
    store = ConversationStore(home / "data" / "conversations.sqlite3")
    try:
        return [store.load(s.id) for s in store.list()]
    finally:
        store.close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("condition not reached")
        time.sleep(0.02)


def write_settings(home: Path, **values) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "settings.json").write_text(json.dumps(values), encoding="utf-8")


class StuckServer:
    """Accepts TCP connections and never answers (a hung server). ``.connections`` counts them."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            self._held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self._held:
            conn.close()
