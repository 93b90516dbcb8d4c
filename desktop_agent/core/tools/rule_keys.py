"""What a tool's permission rules and chat grants are kept under (:func:`rule_key`), and the tool name a rule's
key shows (:func:`tool_label`)."""

from __future__ import annotations

from typing import Any


def rule_key(tool: Any) -> str:
    """The key of ``tool``'s rules and grants: its name — for an MCP server's tool, its name and the server's
    identity (``time__now@3f2a…``: a server replaced under the same name, with another command or URL, inherits
    none of them; another server's tool of the same name has another name already)."""
    return str(getattr(tool, "rule_key", None) or tool.name)


def tool_label(key: str) -> str:
    """The tool name of a rule's ``key`` (see :func:`rule_key`), for people."""
    return key.split("@", 1)[0]
