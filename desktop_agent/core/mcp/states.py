"""What the MCP manager tells of a server and a call: a server's state (starting, ready, failed, stopped) as
the user sees it, and the errors of a call. Imported by :mod:`.manager` (which gives the same names) and by
:mod:`.revival`, below it."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_agent.core.tools.decorator import ToolError

STARTING, READY, FAILED, STOPPED = "starting", "ready", "failed", "stopped"


class McpCallFailed(ToolError):
    """A call could not be made or did not finish: the server is not ready, died, or timed out (the model reads
    the message)."""


class McpCallCancelled(McpCallFailed):
    """The user stopped the call."""


@dataclass
class ServerState:
    """What the app knows about one server, as the user sees it."""

    name: str
    state: str = STARTING
    tools: list[str] = field(default_factory=list)
    error: str = ""
    stderr: list[str] = field(default_factory=list)
    #: what its tool list needed: a tool repaired or left out, one line each (see :mod:`.listing`)
    notices: list[str] = field(default_factory=list)
    #: the MCP protocol version the server speaks (``2025-11-25``, ``2026-07-28``…), once it is ready
    protocol: str = ""

    def line(self) -> str:
        """One line: ``time: ready (2 tools)``, ``files: failed — …``."""
        if self.state == READY:
            mended = f"; {len(self.notices)} repaired or left out" if self.notices else ""
            return f"{self.name}: ready ({len(self.tools)} tool{'s' if len(self.tools) != 1 else ''}{mended})"
        if self.state == FAILED:
            return f"{self.name}: failed — {self.error}"
        return f"{self.name}: {self.state}"
