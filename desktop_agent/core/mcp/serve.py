"""The user's Python tools as an MCP server (``desktop-agent mcp serve``): the SDK's low-level server over stdio,
listing the registry's tools with the schemas the model gets and their read-only / destructive hints, and running
each call through the one dispatch path (validation, the permission engine with the saved rules, the timeout, the
tool host) with an audit row marked as an MCP client's. A call that would ask the user is asked through the
client's elicitation when it offers it, else denied with a result that says how to allow it. Only protocol goes
to stdout."""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from desktop_agent.core.tools.permissions import Answer, PermissionEngine, PermissionRequest
from desktop_agent.core.tools.results import ToolResult

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from desktop_agent.core.store.database import StoreDatabase
    from desktop_agent.core.tools.definition import Tool
    from desktop_agent.core.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

#: how long the end of the session waits for calls still running (their tool processes are stopped first)
DRAIN_S = 10.0


def ask_denied_text(name: str) -> str:
    """The result of a call that needs the user's approval when the MCP client cannot ask the user."""
    return (f"Error: tool '{name}' was not run: it needs the user's approval, and this MCP client cannot ask "
            "(it offers no elicitation). To allow it, allow the tool in desktop-agent (Settings → Tools → "
            f"Permissions: add an allow rule for '{name}'), or add `--allow-tool {name}` to the "
            "`desktop-agent mcp serve` command in this client's MCP server configuration.")


def annotations_of(tool: Tool) -> dict[str, Any]:
    """The MCP tool annotations our declarations say: ``read_only_hint``; ``destructive_hint`` only when the tool
    declares it is destructive or read-only (else the spec's default — destructive — stands: we do not know)."""
    hints: dict[str, Any] = {"title": tool.name, "read_only_hint": bool(tool.read_only)}
    if tool.destructive:
        hints["destructive_hint"] = True
    elif tool.read_only:
        hints["destructive_hint"] = False
    return hints


class ToolServer:
    """Serves ``registry``'s tools; every call decided by ``permissions`` (its user rules re-read from ``store``
    before each call, so a rule made in the window meanwhile counts) and audited in ``store`` (None: no audit)."""

    def __init__(self, registry: ToolRegistry, permissions: PermissionEngine, store: StoreDatabase | None,
                 *, name: str = "desktop-agent", version: str = "") -> None:
        self.registry = registry
        self.permissions = permissions
        self.store = store
        self.name = name
        self.version = version
        self._running = 0
        self._idle = threading.Condition()
        self._cancels: set[threading.Event] = set()

    # ---- what the client sees --------------------------------------------------------------------------

    def tool_list(self) -> list[types.Tool]:
        import mcp_types as types

        return [types.Tool(name=t.name, description=t.description or None, input_schema=dict(t.parameters),
                           annotations=types.ToolAnnotations(**annotations_of(t)))
                for t in self.registry]

    def call(self, name: str, arguments: dict[str, Any] | None, cancel: threading.Event | None = None,
             asker: Callable[[PermissionRequest], Answer | None] | None = None,
             call_id: str | None = None, approval: _Approval | None = None) -> Any:
        """Run one call (on a worker thread: it blocks) and audit it; its ``CallToolResult`` — or, when the
        approval question must go back to the client first (``approval``, protocol 2026-07-28), the
        ``InputRequiredResult`` asking it (the tool did not run; the client calls again with the answer)."""
        import mcp_types as types

        from desktop_agent.core.tools.permissions import ChatPermissions

        cancel = cancel or threading.Event()
        with self._idle:
            self._running += 1
            self._cancels.add(cancel)
        started = time.time()
        try:
            self._reload_rules()
            result = self.registry.dispatch(name, dict(arguments or {}), cancel,
                                            chat=ChatPermissions(asker=asker), call_id=call_id)
            if approval is not None and approval.pending is not None:
                return approval.pending
            text = result.content
            decision = result.decision
            if result.status == "denied" and decision is not None and decision.by == "default":
                text = ask_denied_text(name)  # an "ask" with no one to ask
            self._audit(result, name, arguments, started, call_id)
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=result.status != "ok")
        finally:
            with self._idle:
                self._running -= 1
                self._cancels.discard(cancel)
                self._idle.notify_all()

    def drain(self, timeout_s: float = DRAIN_S) -> None:
        """Stop the calls still running (their tools are cancelled) and wait for them to be audited."""
        deadline = time.monotonic() + timeout_s
        with self._idle:
            for cancel in self._cancels:
                cancel.set()
            while self._running and time.monotonic() < deadline:
                self._idle.wait(0.1)

    def _reload_rules(self) -> None:
        if self.store is None:
            return
        from desktop_agent.core.store.rules import ToolRules

        try:
            self.permissions.rules.attach(ToolRules(self.store))
        except Exception:  # the rules read at start still decide
            log.warning("could not read the permission rules again", exc_info=True)

    def _audit(self, result: ToolResult, name: str, arguments: dict[str, Any] | None, started: float,
               call_id: str | None) -> None:
        if self.store is None:
            return
        from desktop_agent.core.store.toolcalls import MCP_CLIENT, AuditedCall, ToolAudit

        d = result.decision
        call = AuditedCall(call_id, name, dict(result.arguments or arguments or {}), d.decision if d else None,
                           d.by if d else None, d.rule_id if d else None, d.reason if d else None, result.status,
                           result.duration_ms, started, source=MCP_CLIENT)
        try:
            ToolAudit(self.store).record(None, call)
        except Exception:
            log.warning("could not audit the MCP client's call of %s", name, exc_info=True)

    # ---- the protocol --------------------------------------------------------------------------------

    def server(self) -> Server[Any]:
        """The SDK's low-level server answering ``tools/list`` and ``tools/call`` with this server's tools."""
        import anyio
        import anyio.to_thread
        import mcp_types as types
        from mcp.server.lowlevel import Server

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=self.tool_list())

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
            cancel = threading.Event()
            asker = _Approval(ctx, params)
            call_id = f"mcp-{ctx.request_id}" if ctx.request_id is not None else None
            work = functools.partial(self.call, params.name, params.arguments, cancel,
                                     asker if asker.can_ask else None, call_id, asker)
            try:
                return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
            except anyio.get_cancelled_exc_class():
                cancel.set()  # the client cancelled: the tool is stopped (its process killed), the call audited
                raise

        return Server(self.name, version=self.version, on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve_stdio(self) -> None:
        """Serve over this process's stdin/stdout until the client closes stdin. While serving, the SDK points
        fd 1 at stderr, so what a tool prints cannot reach the protocol."""
        from mcp.server.stdio import stdio_server

        server = self.server()
        try:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        finally:
            import anyio.to_thread

            await anyio.to_thread.run_sync(self.drain)


APPROVAL_KEY = "desktop-agent/approval"
APPROVAL_SCHEMA: dict[str, Any] = {"type": "object", "required": ["answer"], "properties": {"answer": {
    "type": "string", "title": "Allow?", "enum": ["once", "always", "deny"],
    "description": "once: this call; always: save an allow rule in desktop-agent; deny: do not run it"}}}


class _NeedsInput(Exception):
    """The question goes back to the client in an ``InputRequiredResult`` (the engine denies this round)."""


class _Approval:
    """The permission engine's asker for one call: the approval question put to the client's user through form
    elicitation — sent at once on a connection that can send requests to the client, or (protocol 2026-07-28)
    returned as an input request and answered when the client calls again. ``can_ask`` is False when the client
    offers no elicitation."""

    def __init__(self, ctx: Any, params: Any) -> None:
        import mcp_types as types

        self.ctx = ctx
        self.session = getattr(ctx, "session", None)
        self.reply = (getattr(params, "input_responses", None) or {}).get(APPROVAL_KEY)
        self.pending: Any = None
        try:
            wanted = types.ClientCapabilities(elicitation=types.ElicitationCapability(
                form=types.FormElicitationCapability()))
            self.can_ask = self.reply is not None or (
                self.session is not None and self.session.check_client_capability(wanted))
        except Exception:  # noqa: BLE001 — an SDK that cannot tell: do not ask
            self.can_ask = False

    def __call__(self, request: PermissionRequest) -> Answer:
        import mcp_types as types

        reply = self.reply
        if reply is None:
            message = (f"desktop-agent: allow the tool '{request.tool_name}' to run with these arguments?\n"
                       f"{_arguments_line(request.arguments)}")
            if not getattr(self.session, "can_send_request", False):
                form = types.ElicitRequest(params=types.ElicitRequestFormParams(
                    message=message, requested_schema=APPROVAL_SCHEMA))
                self.pending = types.InputRequiredResult(input_requests={APPROVAL_KEY: form})
                raise _NeedsInput
            import anyio.from_thread

            assert self.session is not None
            reply = anyio.from_thread.run(self.session.elicit_form, message, APPROVAL_SCHEMA, self.ctx.request_id)
        action = getattr(reply, "action", None)
        choice = (getattr(reply, "content", None) or {}).get("answer") if action == "accept" else None
        if choice in ("once", "always"):
            return Answer(str(choice))
        return Answer("deny", reason="cancelled in the MCP client" if action == "cancel" else
                      "declined in the MCP client")


def _arguments_line(arguments: dict[str, Any]) -> str:
    import json

    text = json.dumps(arguments, ensure_ascii=False, default=str)
    return text if len(text) <= 2000 else text[:1999] + "…"
