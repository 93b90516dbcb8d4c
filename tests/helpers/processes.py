"""Processes in tests: this test process's descendants (read from /proc: whether a server it started still runs),
and an app started as a real process (its log, waiting for it, closing it)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def children_running(word: str) -> list[int]:
    """The pids of this process's descendants whose command line has ``word``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if word in cmdline and descends_from(ppid, os.getpid()):
            found.append(int(entry.name))
    return found



def descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            pid = int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:
            return False
    return False


def app_log(data: Path) -> str:
    """The log of an app started with ``--data-dir data`` (empty before it wrote one)."""
    path = data / "log" / "desktop-agent.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def wait_for(predicate: Callable[[], object], timeout: float = 30, what: str = "") -> None:
    """Poll ``predicate`` every 0.1 s until it is true; an AssertionError naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def close_app(proc: subprocess.Popen) -> int:
    """Close a running app as Ctrl+C in its terminal does (SIGINT closes the window); its exit status. Killed
    (and the test failed) when it has not ended in 20 s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
