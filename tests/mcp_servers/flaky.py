"""An MCP server (stdio) whose tools misbehave on purpose: ``echo`` answers, ``fail`` reports an error result,
``die`` kills the server in the middle of its call, ``slow`` takes ``seconds`` to answer (a cancel test), ``grow`` adds
a tool ``added`` and tells the client its list changed (``tools/list_changed``)."""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("flaky")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason."""
    raise ValueError(reason)


@server.tool()
def die() -> str:
    """Kill the server mid-call."""
    print("dying now", file=sys.stderr, flush=True)
    os._exit(7)


@server.tool()
def slow(seconds: float) -> str:
    """Answer after a while."""
    time.sleep(seconds)
    return "slow done"


def added() -> str:
    """A tool that exists after grow."""
    return "added here"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool 'added' and say the list changed."""
    server.add_tool(added)
    await ctx.notify_tools_changed()  # to the listen streams of 2026-07-28 clients
    return "grown"


if __name__ == "__main__":
    print("flaky server starting", file=sys.stderr, flush=True)
    server.run()
