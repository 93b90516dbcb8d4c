"""An MCP server's tool as a registry tool: a name every backend accepts, the server's schema cleaned like ours,
the server as its source, its hints as what it declares (read-only, destructive), its result as text (images kept
for the user), its progress reported."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from desktop_agent.core.tools.decorator import ToolError
from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.results import Attachment, ProgressReport, ToolReply
from desktop_agent.core.tools.schema import clean_schema

if TYPE_CHECKING:
    from desktop_agent.core.mcp.manager import McpManager

_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]+")


#: a server name whose ``server__tool`` names can be read back: no ``__`` inside, no ``_`` at either end
_PLAIN_SERVER = re.compile(r"^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$")
_PLAIN_TOOL = re.compile(r"^[A-Za-z0-9_-]+$")


def registry_name(server: str, tool: str, taken: Iterable[str] = ()) -> str:
    """``server__tool`` as a function name every backend accepts (OpenAI: ``^[a-zA-Z0-9_-]{1,64}$``, no dots).

    The name is the same for the same server and tool whatever else is configured: rules are kept by name, so
    two tools must never take turns at one (server ``a`` tool ``b__c`` and server ``a__b`` tool ``c``, or
    ``my.server`` and ``my_server``, by which of them started first). A name that cannot be read back as this
    server and tool — characters replaced, a ``__`` in the server name, too long — or that is ``taken`` (by a
    Python tool) is shortened and made its own with a hash of the server and tool."""
    plain = f"{server}__{tool}"
    if _PLAIN_SERVER.match(server) and _PLAIN_TOOL.match(tool) and len(plain) <= 64 and plain not in set(taken):
        return plain
    name = _NOT_ALLOWED.sub("_", plain).strip("_") or "tool"
    digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[:55]}_{digest}"


def server_identity(config: Any) -> str:
    """A short fingerprint of what a server is: its name and what runs (command and arguments) or where it is (URL).
    A server replaced under the same name — another command, package or URL — has another; its secrets, folder
    and environment do not count (changing a token is not another server)."""
    what = "\0".join([str(config.name), str(config.command), *map(str, config.args), str(config.url)])
    return hashlib.sha256(what.encode()).hexdigest()[:12]


def usable_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A server's (cleaned) input schema as one every backend takes: an object whose ``properties`` is an object
    of schemas and whose ``required`` lists some of them. One server's malformed schema (``"properties": [...]``)
    would otherwise make the backend refuse every request that offers tools; the server still checks the
    arguments itself."""
    out = dict(schema)
    out["type"] = "object"
    properties = out.get("properties")
    if not isinstance(properties, dict):
        properties = {}
    out["properties"] = {str(k): (v if isinstance(v, dict) else {}) for k, v in properties.items()}
    required = out.get("required")
    if required is not None:
        kept = [r for r in required if isinstance(r, str) and r in out["properties"]] \
            if isinstance(required, list) else []
        if kept:
            out["required"] = kept
        else:
            out.pop("required")
    return out


def attachments(result: Any) -> tuple[Attachment, ...]:
    """The images and audio of a ``CallToolResult``, for the user (the model reads :func:`result_text`'s line)."""
    out = []
    for item in getattr(result, "content", None) or []:
        kind = getattr(item, "type", "")
        data = getattr(item, "data", None)
        if kind in ("image", "audio") and isinstance(data, str) and data:
            out.append(Attachment(kind, str(getattr(item, "mime_type", None) or ""), data))
        res = getattr(item, "resource", None) if kind == "resource" else None
        blob, mime = getattr(res, "blob", None), str(getattr(res, "mime_type", None) or "")
        if isinstance(blob, str) and blob and mime.startswith("image/"):  # an embedded image resource
            out.append(Attachment("image", mime, blob))
    return tuple(out)


def result_text(result: Any) -> tuple[str, bool]:
    """``(text for the model, is_error)`` of a ``CallToolResult``: text parts as they are; images, audio and
    resources summarised in one line each (the sidebar shows the details); structured content as JSON when
    there is no text."""
    parts: list[str] = []
    for item in getattr(result, "content", None) or []:
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(str(getattr(item, "text", "")))
        elif kind in ("image", "audio"):
            data = getattr(item, "data", "") or ""
            parts.append(f"[{kind}: {getattr(item, 'mime_type', None) or 'unknown type'}, "
                         f"{len(data) * 3 // 4} bytes — shown to the user]")
        elif kind == "resource":
            res = getattr(item, "resource", None)
            text = getattr(res, "text", None)
            uri = getattr(res, "uri", "")
            parts.append(f"[resource {uri}]\n{text}" if text else f"[resource {uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource link: {getattr(item, 'uri', '')}]")
        else:
            parts.append(f"[{kind or 'content'}]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts), bool(getattr(result, "is_error", False))


class McpTool(Tool):
    """A tool of an MCP server, called through ``manager``. Arguments go to the server as given (the server
    validates them against its own schema and answers an error the model can read)."""

    #: the server's progress notifications reach the turn (as ``ToolCallProgress``)
    reports_progress = True

    def __init__(self, manager: McpManager, server: str, info: Any, name: str, identity: str = "") -> None:
        # not Tool.__init__: there is no Python function to read a schema from
        self.fn = None  # type: ignore[assignment]
        self.manager = manager
        self.server = server
        self.remote_name = str(info.name)
        self.name = name
        #: its permission rules and grants are kept under this: the name and which server it is (see
        #: :func:`server_identity`) — never inherited by another server's tool or a replaced server
        self.rule_key = f"{name}@{identity}" if identity else name
        self.description = (getattr(info, "description", None) or getattr(info, "title", None) or "").strip()
        schema = getattr(info, "input_schema", None) or {"type": "object", "properties": {}}
        self.parameters = usable_schema(clean_schema(dict(schema)) if isinstance(schema, dict) else {})
        hints = getattr(info, "annotations", None)
        self.read_only = bool(getattr(hints, "read_only_hint", False))
        destructive = getattr(hints, "destructive_hint", None)
        # the spec's default for destructiveHint is true — but only a tool that says so is treated as one
        self.destructive = bool(destructive) and not self.read_only
        #: asks before it runs unless it declares itself read-only (the permission engine reads this)
        self.requires_approval = not self.read_only
        # the manager bounds the call (its timeout, paused while the server's question waits for the user)
        self.timeout_s = 0
        self.source = f"MCP server {server}"
        self.model = None  # type: ignore[assignment]
        self.accepts_cancel = True
        self._json_params: set[str] = set()
        #: the server may ask the user something during a call (its questions go to the chat's surface)
        self.asks_user = True

    def prepare(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return dict(arguments)

    def invoke(self, kwargs: dict[str, Any], cancel: threading.Event | None = None,
               progress: ProgressReport | None = None) -> Any:
        arguments = dict(kwargs)
        route = arguments.pop("__route__", None)  # (set by the dispatch: where the server's questions go)
        result = self.manager.call(self.server, self.remote_name, arguments, cancel=cancel, progress=progress,
                                   route=route)
        text, is_error = result_text(result)
        if route is not None and route.notes:  # the model hears that a question was not answered
            text = "\n".join([text, *route.notes]) if text else "\n".join(route.notes)
        if is_error:
            raise ToolError(text or f"the MCP server {self.server} reported an error")
        shown = attachments(result)
        return ToolReply(text, shown) if shown else text

    def __repr__(self) -> str:
        return f"McpTool({self.name!r}, server={self.server!r})"
