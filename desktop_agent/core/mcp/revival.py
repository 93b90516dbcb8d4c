"""A server that died is started again on its next use: before a call, a server that was ready and then exited
(its process killed, its connection closed, a remote server gone away) is launched again — a remote one gets a
new session — and the call goes on. The attempts are bounded (:data:`MAX_ATTEMPTS` within :data:`WINDOW_S`) and
spaced (:data:`BACKOFF_S`); when they are spent the server stays failed with a reason that says so (Restart
starts counting again). A server that never started is not started again here: its failure is the user's to
fix."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop_agent.core.mcp.states import FAILED, READY, STARTING, STOPPED, McpCallCancelled, McpCallFailed, ServerState

if TYPE_CHECKING:
    from desktop_agent.core.mcp.manager import _Server

#: how many times a dead server is started again within :data:`WINDOW_S` before it is left failed
MAX_ATTEMPTS = 3
WINDOW_S = 300.0
#: the least time between two attempts (seconds; the n-th attempt waits ``BACKOFF_S[n-1]`` after the one before)
BACKOFF_S = (0.0, 2.0, 5.0)


@dataclass
class Revival:
    """One server's record: whether it was ever ready, when it was started again, and whether we gave up."""

    was_up: bool = False
    #: a stop we asked for (Restart, Settings, quitting): not a death
    halted: bool = False
    tries: list[float] = field(default_factory=list)
    gave_up: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        """The user restarted it: the attempts count again from none."""
        self.tries.clear()
        self.gave_up = self.halted = False

    def recent(self, now: float) -> list[float]:
        self.tries = [t for t in self.tries if now - t < WINDOW_S]
        return self.tries


def connection_gone(client: Any) -> bool:
    """``client``'s session has seen its connection end (the server exited): a request would fail unsent."""
    dispatcher = getattr(getattr(client, "_session", None), "_dispatcher", None)
    return bool(getattr(dispatcher, "_closed", False))


def revivable(server: _Server) -> bool:
    """``server`` died after it was ready (not stopped by us) and may still be started again: its tools are
    still offered, and its next call starts it."""
    r = server.revival
    return r.was_up and not r.halted and not r.gave_up and server.state.state in (FAILED, STOPPED)


class Reviving:
    """The part of :class:`~desktop_agent.core.mcp.manager.McpManager` that starts a dead server again (a
    mixin: the manager's own code, kept in this module)."""

    if TYPE_CHECKING:  # defined by McpManager
        _loop: Any
        start_timeout_s: float
        def _fail(self, server: _Server, why: str) -> None: ...
        def _changed(self, server: _Server) -> None: ...
        def _stop_one(self, server: _Server, timeout_s: float) -> None: ...
        def _launch(self, server: _Server) -> None: ...

    def _revive(self, server: _Server, cancel: threading.Event | None = None) -> None:
        """Before a call of ``server``: if it died, start it again (waiting its backoff, at most its start timeout)
        and return once it is ready. Raises :class:`~desktop_agent.core.mcp.manager.McpCallFailed` when it cannot be
        (attempts spent, it failed to start again, the user stopped); does nothing for a live server."""
        name = server.config.name
        with server.revival.lock:  # one call starts it; the others wait and find it ready
            if server.state.state == READY and server.client is not None and connection_gone(server.client):
                self._fail(server, "it exited or closed its connection")
                if server.stop is not None and self._loop is not None:
                    self._loop.call_soon_threadsafe(server.stop.set)  # let its session close
            if not revivable(server):
                return
            r = server.revival
            now = time.monotonic()
            tries = r.recent(now)
            if len(tries) >= MAX_ATTEMPTS:
                r.gave_up = True
                old = server.state
                why = (f"it was started again {len(tries)} times within {WINDOW_S / 60:g} minutes and stopped each "
                       f"time (last: {old.error or old.state}); it is not started again automatically: see its output, "
                       "then Restart it")
                server.state = ServerState(name, FAILED, [], why, list(old.stderr))
                self._changed(server)
                raise McpCallFailed(f"the MCP server {name} is not available ({server.state.line()})")
            wait = (tries[-1] + BACKOFF_S[min(len(tries), len(BACKOFF_S) - 1)] - now) if tries else 0.0
            if wait > 0 and cancel is not None and cancel.wait(wait):
                raise McpCallCancelled(f"starting {name} again was cancelled")
            if wait > 0 and cancel is None:
                time.sleep(wait)
            tries.append(time.monotonic())
            self._stop_one(server, timeout_s=5.0)  # what is left of its session
            r.halted = False
            self._launch(server)
            deadline = time.monotonic() + self.start_timeout_s + 5.0
            while server.state.state == STARTING and time.monotonic() < deadline:
                if cancel is not None and cancel.wait(0.05):
                    raise McpCallCancelled(f"starting {name} again was cancelled")
                if cancel is None:
                    time.sleep(0.05)
            if server.state.state != READY:
                raise McpCallFailed(f"the MCP server {name} stopped and could not be started again "
                                    f"({server.state.line()}); the other tools still work")
