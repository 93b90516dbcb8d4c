"""A configured MCP server's status on Settings → MCP servers, in words: short (the list's column) and long (the
details), from whether MCP is on, the server's config as running and its state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:
    from desktop_agent.core.mcp.manager import ServerState
    from desktop_agent.core.settings import McpServerSettings


def server_status(server: McpServerSettings, *, on: bool, running: McpServerSettings | None,
                  state: ServerState | None, was_started: bool) -> tuple[str, str, ServerState | None]:
    """The status of ``server`` (as edited on the page): ``on`` — MCP servers are on; ``running`` — its config
    as the app runs it (None: not running); ``state`` — its state, if running; ``was_started`` — it was enabled
    when the page opened and MCP was on (so the app starts it without a Save)."""
    if not on:
        return translate("McpPage", "MCP servers are off"), translate("McpPage",
                "MCP servers are off (tick Use MCP servers)."), None
    if not server.enabled:
        if running is not None:
            return translate("McpPage", "disabled — Save to stop it"), translate("McpPage",
                    "Disabled here: press Save to stop it."), None
        return "disabled", translate("McpPage", "Disabled: it is not started (tick it to use it)."), None
    if state is None or running is None:
        if was_started:
            return translate("McpPage", "not started yet"), translate("McpPage",
                    "Not started yet (servers start after the window shows)."), None
        return translate("McpPage", "not started — Save to start it"), translate("McpPage",
                "Not started: press Save to start it."), None
    if running != server:
        return translate("McpPage", "changed — Save to restart it"), translate("McpPage",
                "Changed here: press Save to restart it with the changes."), state
    line = state.line().removeprefix(f"{state.name}: ")
    if state.state == "failed":
        return translate("McpPage", "failed — {error}").format(error=state.error), translate("McpPage",
                "Failed: {error}").format(error=state.error), state
    if state.state == "ready":
        tools = ", ".join(state.tools)
        n = len(state.tools)
        ready = translate("McpPage", "Ready: %n tool", None, n) if n == 1 else translate("McpPage",
                "Ready: %n tools", None, n)
        speaks = translate("McpPage", "It speaks MCP {version}.").format(version=state.protocol) \
            if state.protocol else ""
        notes = "".join(f"\n• {n}" for n in state.notices)  # tools of its list repaired or left out
        return line, ready + (f" ({tools})." if tools else ".") + (f" {speaks}" if speaks else "") + notes, state
    if state.state == "stopped":
        return "stopped", translate("McpPage", "Stopped (Restart starts it again)."), state
    return line, translate("McpPage", "Starting…"), state
