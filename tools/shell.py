"""A shell command tool: run one command line in a folder the user allows, with a timeout and capped output.

The command runs in its own process group (a new session on Linux and macOS), so a timeout or the user's
Stop ends the command *and* everything it started (``sleep 100 &`` included): on Stop at once (SIGKILL), on a
timeout politely first (SIGTERM, then SIGKILL). It is declared
``destructive=True``: a command can change anything the user can, so the app asks before each one.

An example to copy for a tool that runs a program: take ``cancel: threading.Event`` (the app sets it when the
user presses Stop or the call times out) and watch it while waiting; cap what you keep of the output; report
the exit status instead of raising for a non-zero one (the model wants to see what the command said).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from typing import IO, Annotated

from pydantic import Field

from desktop_agent import ToolError, tool
from desktop_agent.toolkit import allowed_path

#: longest timeout the model may ask for, in seconds
MAX_TIMEOUT_S = 600
DEFAULT_TIMEOUT_S = 60
#: most characters of output kept (the rest is read and dropped, so the command never blocks on a full pipe)
MAX_OUTPUT_CHARS = 50_000
#: how long a stopped command gets to end after SIGTERM before SIGKILL, in seconds
GRACE_S = 2.0


def _drain(stream: IO[bytes], keep: bytearray, limit: int, total: list[int]) -> None:
    for chunk in iter(lambda: stream.read1(65536), b""):  # type: ignore[attr-defined]
        total[0] += len(chunk)
        room = limit - len(keep)
        if room > 0:
            keep.extend(chunk[:room])


def _kill_group(proc: subprocess.Popen[bytes], graceful: bool = True) -> None:
    """End the command and everything it started: SIGTERM to its process group, SIGKILL after a grace time
    (``graceful=False``: SIGKILL at once — the user pressed Stop, and the app does not wait long for a tool)."""
    if sys.platform == "win32":
        proc.kill()
        return
    steps = ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, GRACE_S)) if graceful else ((signal.SIGKILL, GRACE_S),)
    for sig, wait_s in steps:
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):  # the whole group is gone
            return
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):  # the shell ended; its children may not
            os.killpg(proc.pid, signal.SIGKILL)
        return


@tool(destructive=True, requires_approval=True, timeout_s=MAX_TIMEOUT_S + 3 * GRACE_S)
def run_shell_command(
    command: Annotated[str, Field(description="The command line to run, e.g. 'ls -la' or 'git status'. "
                                              "It runs in the system shell (/bin/sh on Linux).")],
    folder: Annotated[str, Field(description="The folder to run it in; '.' is the first allowed folder.")] = ".",
    timeout_s: Annotated[int, Field(description=f"Stop the command after this many seconds (1 to {MAX_TIMEOUT_S}).",
                                    ge=1, le=MAX_TIMEOUT_S)] = DEFAULT_TIMEOUT_S,
    cancel: threading.Event | None = None,
) -> dict:
    """Run a shell command in a folder the user allows and return its exit status and output.

    Standard output and standard error are returned together, the output cut after a limit. A command that
    runs longer than timeout_s is stopped with everything it started. The user is asked before each command.
    """
    if not command.strip():
        raise ToolError("the command is empty")
    cwd = allowed_path(folder)
    if not cwd.is_dir():
        raise ToolError(f"{folder!r} is not a folder")
    cancel = cancel if cancel is not None else threading.Event()
    options: dict = {"start_new_session": True} if sys.platform != "win32" else {
        "creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined]
    started = time.monotonic()
    try:
        proc = subprocess.Popen(command, shell=True, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, **options)
    except OSError as exc:
        raise ToolError(f"the command could not be started: {exc.strerror or exc}") from None
    kept = bytearray()
    total = [0]
    assert proc.stdout is not None
    reader = threading.Thread(target=_drain, args=(proc.stdout, kept, MAX_OUTPUT_CHARS * 4, total), daemon=True)
    reader.start()
    ended_by = ""
    deadline = started + timeout_s
    while proc.poll() is None:
        if cancel.wait(0.05):
            ended_by = "cancelled"
        elif time.monotonic() >= deadline:
            ended_by = "timeout"
        if ended_by:
            _kill_group(proc, graceful=ended_by == "timeout")
            break
    status = proc.wait()
    if not ended_by and sys.platform != "win32":
        # what the command left running in the background would keep the output open: it ends too
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    reader.join(GRACE_S)
    output = kept.decode("utf-8", errors="replace")
    if ended_by == "cancelled":
        raise ToolError("the command was stopped by the user")
    out: dict = {"exit_status": status, "output": output[:MAX_OUTPUT_CHARS], "folder": str(cwd),
                 "seconds": round(time.monotonic() - started, 2)}
    if len(output) > MAX_OUTPUT_CHARS or total[0] > len(kept):
        out["output_truncated"] = f"only the first {MAX_OUTPUT_CHARS:,} characters of the output are shown"
    if ended_by == "timeout":
        out["timed_out"] = f"the command was stopped after {timeout_s} s"
    elif status < 0:
        out["signal"] = f"the command was ended by signal {-status}"
    return out
