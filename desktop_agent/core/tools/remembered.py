"""What the store remembers about tools: the permission rules kept in it ("always allow" survives a restart)
and the decisions audited for a chat's calls. Store wiring every surface needs, so it lives in core."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


def audited_decisions(store: Any, conversation_id: str) -> dict[str, str]:
    """Call id → the permission decision audited for chat ``conversation_id`` (empty when it can't be read)."""
    from desktop_agent.core.store.toolcalls import ToolAudit

    try:
        return {c.call_id: c.decision_text() for c in ToolAudit(store).calls(conversation_id)
                if c.call_id and c.decision is not None}
    except Exception:  # an old or broken store costs only the decisions shown
        log.warning("could not read the tool audit of chat %s", conversation_id, exc_info=True)
        return {}


def keep_rules_in(assembly: Any, store: Any) -> list[str]:
    """Keep the permission rules of ``assembly`` in ``store``; returns the warnings to show (none when it worked)."""
    try:
        assembly.use_store(store)
    except Exception as exc:
        log.warning("could not load the tool permission rules", exc_info=True)
        return [f"Tool permission rules could not be loaded; approvals will not be remembered ({exc})."]
    return []
