"""``desktop-agent tools``: the tools the agent can load, one line each (name, source, description's first line;
the tools switched off in Settings → Tools are marked) — the configured MCP servers' too (started and waited for
as ``chat`` does; ``--no-mcp`` skips them).

``--learned`` lists instead what the app learned about each server and model (the cache folder's
``capabilities.json``), ``--forget-learned [MODEL]`` forgets it (Settings → Tools → Learned in the window)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from desktop_agent.cli.chat import load_tools, open_services
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
    if getattr(args, "learned", False) or getattr(args, "forget_learned", None) is not None:
        return _learned(args.forget_learned, out, err)
    flags = {"tools.enabled": True}  # every tool is listed; those switched off are marked
    if getattr(args, "no_mcp", False):
        flags["mcp.enabled"] = False
    services = open_services(args, err, flags, server=False)
    try:
        settings = services.effective
        registry = load_tools(services, settings, err)
        assert registry is not None  # tools are on for this listing
        return _print(registry, settings, out, err)
    finally:
        services.close()


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


def _learned(forget: str | None, out: Output, err: Output) -> int:
    """``--learned``: each server and model and what was learned about it; ``--forget-learned [MODEL]``
    (``forget`` not None; empty: all) forgets it and says how much."""
    from desktop_agent.core import paths
    from desktop_agent.core.assembly import learned_capabilities

    caps = learned_capabilities()
    where = paths.cache_dir() / "capabilities.json"
    if forget is not None:
        count = caps.forget(model=forget or None)
        if not count:
            write_line(out, f"nothing was learned about {forget}" if forget else "nothing was learned")
        elif forget:
            servers = "1 server" if count == 1 else f"{count} servers"
            write_line(out, f"forgot what was learned about {forget} ({servers}): its next chat offers tools again")
        else:
            write_line(out, f"forgot everything learned ({count} server and model{'s' if count > 1 else ''}): "
                            "the next chats offer tools again")
    else:
        entries = caps.entries()
        for entry in entries:
            write_line(out, f"{entry.model}  [{entry.backend} {entry.url}]")
            for line in entry.lines():
                write_line(out, f"  {line}")
        if entries:
            write_line(out, f"(kept in {where}; forget with: desktop-agent tools --forget-learned [MODEL])")
        else:
            write_line(out, "nothing learned about any server or model")
    if out.error is not None:
        return write_failed(out, err)
    return EXIT_OK
