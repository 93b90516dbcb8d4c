"""An MCP server (stdio; ``--http PORT``: Streamable HTTP on 127.0.0.1) whose tools misbehave on purpose: ``echo``
answers, ``fail`` reports an error result,
``die`` kills the server in the middle of its call, ``slow`` takes ``seconds`` to answer (a cancel test),
``wait_for_cancel`` notes that the client cancelled it, ``grow`` adds a tool ``added`` and tells the client its list
changed (``tools/list_changed``)."""

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


@server.tool()
async def wait_for_cancel(marker: str) -> str:
    """Wait a minute; when the client cancels the call, write 'cancelled' to the file ``marker``."""
    import anyio

    try:
        await anyio.sleep(60)
    except anyio.get_cancelled_exc_class():
        with open(marker, "w", encoding="utf-8") as f:
            f.write("cancelled")
        raise
    return "not cancelled"


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
    if len(sys.argv) > 2 and sys.argv[1] == "--http":  # Streamable HTTP on 127.0.0.1:PORT/mcp
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
