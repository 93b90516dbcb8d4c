"""A server's tool list taken tool by tool: the SDK validates a ``tools/list`` answer as a whole, so one tool with a
broken entry (a schema without ``type``, a schema that is a string, no name) would fail the whole server with a
validation dump. :func:`repaired` sits between the transport and the SDK's session and mends each listing on its
way in — :func:`repair_tools` — so that a tool that can be repaired is, one that cannot is left out, and each is
said in one line (the server's notices). What a repaired schema means (its enums, nested objects, ``$ref``\\ s and
``$defs``) is kept as it was: the app's schema cleaning spells those out afterwards."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

#: notices kept per listing (a server with hundreds of broken tools says the first ones and how many)
MAX_NOTICES = 8


def repair_tools(result: dict[str, Any]) -> list[str]:
    """Mend ``result["tools"]`` (a ``tools/list`` result, in place); one line per tool repaired or left out."""
    from mcp_types import Tool
    from pydantic import ValidationError

    notices: list[str] = []
    kept: list[Any] = []
    for index, entry in enumerate(result.get("tools") or []):
        if not isinstance(entry, dict):
            notices.append(f"entry {index + 1} of its tool list was left out: it is not an object")
            continue
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            notices.append(f"entry {index + 1} of its tool list was left out: it has no name")
            continue
        tool, why = _repaired(dict(entry))
        if tool is None:
            notices.append(f"tool {name} was left out: {why}")
            continue
        try:
            Tool.model_validate(tool, by_name=False)
        except ValidationError as exc:
            first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": str(exc)}
            where = ".".join(str(p) for p in first.get("loc", ()))
            notices.append(f"tool {name} was left out: {where + ': ' if where else ''}{first.get('msg', '')}")
            continue
        if why:
            notices.append(f"tool {name} was repaired: {why}")
        kept.append(tool)
    result["tools"] = kept
    if len(notices) > MAX_NOTICES:
        notices = [*notices[:MAX_NOTICES - 1], f"and {len(notices) - MAX_NOTICES + 1} more tools"]
    return notices


def _repaired(tool: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """``(tool, what was repaired)`` or ``(None, why it cannot be)``."""
    fixes: list[str] = []
    schema = tool.get("inputSchema")
    if schema is None:
        tool["inputSchema"] = {"type": "object", "properties": {}}
        fixes.append("it had no input schema (it is called without arguments)")
    elif not isinstance(schema, dict):
        return None, f"its input schema is not a JSON object ({type(schema).__name__})"
    elif "type" not in schema:
        tool["inputSchema"] = {"type": "object", **schema}
        fixes.append('its input schema had no type ("object" assumed)')
    elif schema.get("type") != "object":
        return None, f"its input schema is of type {schema.get('type')!r}, not an object of named arguments"
    if "outputSchema" in tool and not isinstance(tool["outputSchema"], dict):
        del tool["outputSchema"]
        fixes.append("its output schema was not an object (ignored)")
    if "annotations" in tool and not isinstance(tool["annotations"], dict):
        del tool["annotations"]
        fixes.append("its annotations were not an object (ignored)")
    for key in ("description", "title"):
        if key in tool and tool[key] is not None and not isinstance(tool[key], str):
            tool[key] = str(tool[key])
    return tool, "; ".join(fixes)


@contextlib.asynccontextmanager
async def repaired(transport: Any, notices: list[str]) -> AsyncIterator[Any]:
    """``transport`` (an SDK transport: a context manager giving its streams) with every tool list that comes in
    mended by :func:`repair_tools`; ``notices`` holds the last listing's lines."""
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCResponse

    async with transport as streams:
        incoming = streams[0]
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def forward() -> None:
            async with send:
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError,
                                         anyio.EndOfStream):
                    async for item in incoming:
                        if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCResponse) \
                                and isinstance(item.message.result.get("tools"), list):
                            notices[:] = repair_tools(item.message.result)
                        await send.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(forward)
            try:
                yield (receive, *streams[1:])
            finally:
                group.cancel_scope.cancel()
                receive.close()
