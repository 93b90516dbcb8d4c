"""The audit of tool calls, in the store's ``tool_calls`` table: one row per call of a chat — or of an MCP client
of ``desktop-agent mcp serve`` — when, which tool, its arguments, the permission decision and who made it, how
long it took and how it ended."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from desktop_agent.core.store.database import StoreDatabase
from desktop_agent.core.tools.permissions import Decision

R = TypeVar("R")
#: who made a call: a chat's turn, or an MCP client of ``desktop-agent mcp serve``
CHAT, MCP_CLIENT = "chat", "mcp client"
_COLUMNS = "call_id, tool, arguments, decision, decided_by, rule_id, reason, status, duration_ms, started_at"


@dataclass(frozen=True)
class AuditedCall:
    """One audited call (times in epoch seconds). ``decision`` None: the call never reached the check (an
    unknown tool, invalid arguments, stopped before it ran)."""

    call_id: str | None
    tool: str
    arguments: dict[str, Any]
    decision: str | None
    decided_by: str | None
    rule_id: int | None
    reason: str | None
    status: str
    duration_ms: float | None
    started_at: float
    #: :data:`CHAT` or :data:`MCP_CLIENT`
    source: str = CHAT

    def decision_text(self) -> str:
        """``allowed by rule #3``, ``denied by user: not now``, ``-`` when undecided."""
        if self.decision is None or self.decided_by is None:
            return "-"
        return Decision(self.decision, self.decided_by, self.rule_id, self.reason).summary()


class ToolAudit:
    """The ``tool_calls`` of an open store (``db``: the ConversationStore). Every method raises StoreError."""

    def __init__(self, db: StoreDatabase) -> None:
        self.db = db

    def record(self, conversation_id: str | None, call: AuditedCall) -> None:
        """Add one call of chat ``conversation_id`` (which must be saved already; None: a call from no chat, like
        an MCP client's — ``call.source`` says whose)."""
        def go() -> None:
            with self.db.write() as conn:
                conn.execute(
                    f"INSERT INTO tool_calls (conversation_id, {_COLUMNS}, source) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (conversation_id, call.call_id, call.tool,
                     json.dumps(call.arguments, ensure_ascii=False, default=str), call.decision, call.decided_by,
                     call.rule_id, call.reason, call.status, call.duration_ms, call.started_at, call.source),
                )

        self._guard(go)

    def calls(self, conversation_id: str) -> list[AuditedCall]:
        """The chat's calls, oldest first."""
        def go() -> list[AuditedCall]:
            rows = self.db.read(f"SELECT {_COLUMNS}, source FROM tool_calls WHERE conversation_id = ? ORDER BY id",
                                 (conversation_id,))
            return [AuditedCall(r[0], r[1], _arguments(r[2]), *r[3:]) for r in rows]

        return self._guard(go)

    def calls_from(self, source: str, limit: int = 1000) -> list[AuditedCall]:
        """The last ``limit`` calls made by ``source`` (e.g. :data:`MCP_CLIENT`), oldest first."""
        def go() -> list[AuditedCall]:
            rows = self.db.read(f"SELECT {_COLUMNS}, source FROM tool_calls WHERE source = ? ORDER BY id DESC "
                                 "LIMIT ?", (source, limit))
            return [AuditedCall(r[0], r[1], _arguments(r[2]), *r[3:]) for r in reversed(rows)]

        return self._guard(go)

    def _guard(self, fn: Callable[[], R]) -> R:
        try:
            return fn()
        except sqlite3.Error as exc:
            raise self.db.translate(exc) from exc


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {"_": text}
    return value if isinstance(value, dict) else {"_": value}
