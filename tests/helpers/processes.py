"""This test process's descendants (read from /proc): whether a server it started still runs."""

from __future__ import annotations

import os
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
