"""``desktop-agent tools``: the tools the agent can load, one line each (name, source, description's first line;
the tools switched off in Settings → Tools are marked) — the configured MCP servers' too (started and waited for
as ``chat`` does; ``--no-mcp`` skips them)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from desktop_agent.cli.chat import build_registry, start_mcp_servers
from desktop_agent.cli.errors import EXIT_OK
from desktop_agent.cli.output import Output, as_output, quiet_library_logs, write_failed, write_line

if TYPE_CHECKING:
    from desktop_agent.core.settings import Settings
    from desktop_agent.core.tools.registry import ToolRegistry


def run_tools(args: argparse.Namespace, out: TextIO | Output | None = None,
              err: TextIO | Output | None = None) -> int:
    """``desktop-agent tools``: print the loaded tools; returns the exit code."""
    out, err = as_output(out or sys.stdout), as_output(err or sys.stderr)
    quiet_library_logs()
    from desktop_agent.core.settings import Settings

    settings, warnings = Settings.load()
    for w in warnings:
        write_line(err, f"desktop-agent: warning: {w}")
    registry = build_registry(settings, args.tools_dir, err)
    mcp = None if getattr(args, "no_mcp", False) else start_mcp_servers(settings, err)
    try:
        if mcp is not None:
            from desktop_agent.core.assembly import with_mcp_tools

            registry = with_mcp_tools(registry, mcp, settings.updated({"tools.enabled": True})) or registry
        return _print(registry, settings, out, err)
    finally:
        if mcp is not None:
            mcp.close()
        registry.close()


def _print(registry: ToolRegistry, settings: Settings, out: Output, err: Output) -> int:
    tools = sorted(registry, key=lambda t: t.name)
    width = max((len(t.name) for t in tools), default=4)
    source_width = max((len(str(t.source)) + 2 for t in tools), default=0)  # descriptions line up
    off = set(settings.tools.disabled)
    for t in tools:
        first = (t.description or "").strip().splitlines()[0] if t.description else ""
        mark = "  (off: not offered to the model; Settings → Tools)" if t.name in off else ""
        out.write(f"{t.name:<{width}}  {f'[{t.source}]':<{source_width}}  {first}{mark}\n")
    if not tools:
        out.write("no tools loaded\n")
    if out.error is not None:
        return write_failed(out, err)
    return EXIT_OK
