"""What saving the MCP servers changes in the keyring: the secrets typed or cleared, those a renamed server takes
along, and those of removed servers and rows, which are deleted."""

from __future__ import annotations

from desktop_agent.core.mcp.config import secret_name
from desktop_agent.core.settings import McpServerSettings


def secret_keys(server: McpServerSettings) -> list[tuple[str, str, str]]:
    """The secrets of ``server``: (keyring name, kind, variable or header name)."""
    return ([(secret_name(server.name, "env", n), "env", n) for n in server.secret_env]
            + [(secret_name(server.name, "header", n), "header", n) for n in server.secret_headers])


def secret_writes(original: list[McpServerSettings], final: list[McpServerSettings], origin: dict[str, str],
                  staged: dict[str, str | None]) -> tuple[dict[str, str | None], dict[str, str]]:
    """What saving changes in the keyring: values to write (None deletes: a secret whose row or server is gone),
    and values to copy (new keyring name → old one: a server renamed keeps its secrets)."""
    kept = {key for server in final for key, _kind, _name in secret_keys(server)}
    before = {key for server in original for key, _kind, _name in secret_keys(server)}
    writes: dict[str, str | None] = {key: value for key, value in staged.items() if key in kept or value is None}
    copies: dict[str, str] = {}
    for server in final:
        old = origin.get(server.name, server.name)
        if not old or old == server.name:
            continue
        for key, kind, name in secret_keys(server):
            if key not in writes:
                copies[key] = secret_name(old, kind, name)
    for key in before - kept:
        writes.setdefault(key, None)
    return writes, copies
