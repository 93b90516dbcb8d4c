""":class:`ToolHost`: runs Python tool calls in child processes (see :mod:`.host_main`), apart from the app.

Each worker is one child process running one call at a time, so a call is killed for real by killing its
worker (with the worker's process group: what the tool started goes too) and no other call is touched. Idle
workers are kept for the next call (a call costs one JSON line each way), and one is started in the
background ahead of need (:meth:`ToolHost.warm`). A worker that dies — ``os._exit``, a segfault, killed —
turns its call into an error result; the next call gets a fresh worker.

What a tool prints goes to its worker's capture file, never the app's stdout: the part written during a call
is returned with the call (``HostOutcome.output``) and logged.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from typing import IO, Any

from desktop_agent.core.errors import ToolHostCrashed, ToolHostUnavailable, ToolPrintedTooMuch
from desktop_agent.core.tools.decorator import ToolError
from desktop_agent.core.tools.origin import Origin

log = logging.getLogger(__name__)

#: seconds a tool gets to return after its ``cancel`` event is set, before its worker is killed
CANCEL_GRACE_S = 0.3
#: seconds a new worker gets to load before the call fails
START_TIMEOUT_S = 30.0
#: characters of captured output kept per call (the end of it)
OUTPUT_CAP = 64_000
#: bytes a call may print before it is stopped (a tool printing in a loop would fill the disk)
OUTPUT_LIMIT = 64 * 1024 * 1024
#: the capture file is emptied between calls once it is this big
CAPTURE_RESET = 1024 * 1024
#: idle workers kept for later calls
MAX_IDLE = 2
POLL_S = 0.02


@dataclass
class HostOutcome:
    """``status``: ok / error / timeout / cancelled; ``value``: the result text (ok) or an exception (error);
    ``output``: what the tool printed during the call."""

    status: str
    value: Any = None
    output: str = ""


def host_command() -> list[str]:
    """The command line of a worker: this interpreter with the child module (a frozen app runs itself with
    ``--tool-host``)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--tool-host"]
    return [sys.executable, "-u", "-m", "desktop_agent.core.tools.host_main"]


class _Worker:
    """One child process, its pipes and its capture file."""

    def __init__(self) -> None:
        # what the tool prints: read after each call, closed with the worker
        self.capture: IO[bytes] = tempfile.TemporaryFile(prefix="desktop-agent-tool-output-")  # noqa: SIM115
        if os.name == "posix":  # the child appends: the file can be emptied between calls
            import fcntl

            fd = self.capture.fileno()
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
        env = dict(os.environ)
        env["DESKTOP_AGENT_HOST_PATH"] = json.dumps([p for p in sys.path if p])
        env["PYTHONIOENCODING"] = "utf-8"
        from desktop_agent.core import paths

        home = paths.home_override()
        if home is not None:  # --data-dir: a tool that reads the app's settings or data finds the same ones
            env["DESKTOP_AGENT_HOME"] = str(home)
        kwargs: dict[str, Any] = {}
        if os.name == "posix":
            kwargs["start_new_session"] = True  # its own process group: killed with what the tool started
        else:  # pragma: no cover - Windows
            kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        self.proc = subprocess.Popen(
            host_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.capture,
            env=env, close_fds=True, **kwargs,
        )
        self.replies: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.ready = threading.Event()
        self.dead = False
        self._write_lock = threading.Lock()
        threading.Thread(target=self._read, name=f"tool-host-{self.proc.pid}", daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if message.get("ready"):
                self.ready.set()
            else:
                self.replies.put(message)
        self.dead = True
        self.replies.put(None)  # the child is gone
        self.ready.set()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, message: dict[str, Any]) -> bool:
        line = json.dumps(message, ensure_ascii=False, default=str) + "\n"
        try:
            with self._write_lock:
                assert self.proc.stdin is not None
                self.proc.stdin.write(line.encode("utf-8"))
                self.proc.stdin.flush()
        except (OSError, ValueError):
            return False
        return True

    def output_size(self) -> int:
        try:
            return os.fstat(self.capture.fileno()).st_size
        except OSError:
            return 0

    def reset_output(self) -> None:
        """Empty the capture file when it grew big (between calls: nothing of a call is lost)."""
        if os.name == "posix" and self.output_size() > CAPTURE_RESET:
            with contextlib.suppress(OSError, ValueError):
                os.ftruncate(self.capture.fileno(), 0)

    def output_since(self, offset: int) -> str:
        try:
            size = self.output_size()
            start = max(offset, size - OUTPUT_CAP)
            data = os.pread(self.capture.fileno(), size - start, start) if size > start else b""
        except (OSError, ValueError, AttributeError):
            return ""
        text = data.decode("utf-8", errors="replace")
        return text if start == offset else "[…]\n" + text

    def exit_description(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "it stopped answering"
        if code < 0:
            try:
                return f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit code {code}"

    def kill(self) -> None:
        """Kill the worker and what its tools started and left running (its process group), even when the
        worker itself has exited already: a tool's background process must not outlive the app."""
        if os.name == "posix":
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:  # no one is left in the group
                if self.proc.poll() is None:
                    with contextlib.suppress(OSError):
                        self.proc.kill()
        elif self.proc.poll() is None:  # pragma: no cover - Windows
            with contextlib.suppress(OSError):
                self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()

    def release(self) -> None:
        """Kill it if needed and drop its capture file (what it printed is gone after this)."""
        self.kill()
        with contextlib.suppress(OSError):
            self.capture.close()

    def close(self) -> None:
        """Ask it to end (stdin closes: it exits at once), then make sure."""
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(1)
        self.release()


_HOSTS: weakref.WeakSet[ToolHost] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for host in list(_HOSTS):
        host.close()


class ToolHost:
    """A pool of tool-host workers; :meth:`run` runs one call. Thread-safe: concurrent calls get their own
    workers. :meth:`close` stops every worker (also done at interpreter exit)."""

    def __init__(self) -> None:
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._warming = False
        self._ids = iter(range(1, sys.maxsize))
        _HOSTS.add(self)

    # ---- the pool

    def warm(self) -> None:
        """Start a worker in the background if none is idle (returns at once)."""
        with self._lock:
            if self._closed or self._idle or self._warming:
                return
            self._warming = True
        threading.Thread(target=self._warm, name="tool-host-warm", daemon=True).start()

    def _warm(self) -> None:
        try:
            worker = _Worker()
        except OSError:
            log.warning("the tool host could not be started", exc_info=True)
            return
        finally:
            with self._lock:
                self._warming = False
        self._give_back(worker)

    def _take(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise ToolHostUnavailable("the app is closing")
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    self._busy.add(worker)
                    return worker
                worker.release()
        worker = _Worker()
        with self._lock:
            self._busy.add(worker)
        return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            self._busy.discard(worker)
            keep = not self._closed and worker.alive() and len(self._idle) < MAX_IDLE
            if keep:
                self._idle.append(worker)
        if not keep:
            worker.close()

    def _discard(self, worker: _Worker) -> None:
        worker.release()
        with self._lock:
            self._busy.discard(worker)
        self.warm()  # the next call should not wait for a new worker to load

    def pids(self) -> list[int]:
        """Process ids of the live workers (busy and idle)."""
        with self._lock:
            return [w.pid for w in (*self._busy, *self._idle) if w.alive()]

    def close(self) -> None:
        """Stop every worker; calls still running end as errors. Idempotent."""
        with self._lock:
            self._closed = True
            workers = [*self._idle, *self._busy]
            self._idle.clear()
        for worker in workers:
            worker.close()

    # ---- one call

    def run(self, name: str, origin: Origin, arguments: dict[str, Any], timeout_s: float | None,
            cancel: threading.Event | None) -> HostOutcome:
        """Run tool ``name`` (at ``origin``) with the validated ``arguments``; wait for it, ``timeout_s`` or
        ``cancel``. On timeout or cancel the tool's own cancel event is set, and its worker is killed if it
        does not return within :data:`CANCEL_GRACE_S`. Never raises."""
        try:
            worker = self._take()
        except (OSError, ToolHostUnavailable) as exc:
            reason = exc if isinstance(exc, ToolHostUnavailable) else ToolHostUnavailable(str(exc))
            return HostOutcome("error", ToolError(reason.message.removeprefix("Error: ")))
        deadline = time.monotonic() + timeout_s if timeout_s else None
        start_by = time.monotonic() + START_TIMEOUT_S
        while not worker.ready.wait(POLL_S):
            if cancel is not None and cancel.is_set():
                self._give_back(worker)  # it is still loading: keep it for the next call
                return HostOutcome("cancelled")
            if time.monotonic() > start_by:
                output = worker.output_since(0)
                self._discard(worker)
                text = ToolHostUnavailable(f"it did not start within {START_TIMEOUT_S:g} s").message
                return HostOutcome("error", ToolError(text.removeprefix("Error: ")), output)
        if worker.dead:
            output = worker.output_since(0)
            self._discard(worker)
            text = ToolHostUnavailable(worker.exit_description()).message
            return HostOutcome("error", ToolError(text.removeprefix("Error: ")), output)

        call_id = next(self._ids)
        worker.reset_output()
        offset = worker.output_size()
        worker.send({"op": "call", "id": call_id, "origin": list(origin), "arguments": arguments})
        ended = ""
        while True:
            try:
                reply = worker.replies.get(timeout=POLL_S)
            except queue.Empty:
                reply = {}
                if cancel is not None and cancel.is_set():
                    ended = "cancelled"
                elif deadline is not None and time.monotonic() >= deadline:
                    ended = "timeout"
                elif worker.output_size() - offset > OUTPUT_LIMIT:
                    ended = "flooded"
                if not ended:
                    continue
                reply = self._stop(worker, call_id)
            if reply is None:  # the worker died during the call
                worker.proc.wait()
                output = worker.output_since(offset)
                self._log_output(name, output)
                why = worker.exit_description()
                self._discard(worker)
                if ended:
                    return self._ended(name, ended, output)
                return HostOutcome("error", ToolError(ToolHostCrashed(name, why).message.removeprefix("Error: ")),
                                   output)
            if reply.get("id") != call_id:
                continue  # a late answer to an earlier, abandoned call
            output = worker.output_since(offset)
            self._log_output(name, output)
            self._give_back(worker)
            if ended:
                return self._ended(name, ended, output)
            if reply.get("status") == "ok":
                return HostOutcome("ok", str(reply.get("text", "")), output)
            return HostOutcome("error", ToolError(str(reply.get("message") or "the tool failed")), output)

    def _stop(self, worker: _Worker, call_id: int) -> dict[str, Any] | None:
        """Ask the tool to stop; its answer if it comes within the grace time, else kill the worker (None)."""
        worker.send({"op": "cancel", "id": call_id})
        until = time.monotonic() + CANCEL_GRACE_S
        while time.monotonic() < until:
            try:
                reply = worker.replies.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if reply is None or reply.get("id") == call_id:
                return reply
        log.info("killing tool-host worker %s", worker.pid)
        worker.kill()
        return None

    @staticmethod
    def _ended(name: str, ended: str, output: str) -> HostOutcome:
        if ended == "flooded":
            text = ToolPrintedTooMuch(name, OUTPUT_LIMIT // (1024 * 1024)).message.removeprefix("Error: ")
            return HostOutcome("error", ToolError(text), output)
        return HostOutcome(ended, None, output)

    @staticmethod
    def _log_output(name: str, output: str) -> None:
        if output.strip():
            log.info("tool %s printed:\n%s", name, output.rstrip())
