"""Running one tool call: the arguments decoded and validated, the permission check (allow / ask / deny, see
:mod:`.permissions`), the function run on a worker
thread with a timeout and cancel, and every failure turned into a :class:`ToolResult` the model can read."""

from __future__ import annotations

import difflib
import logging
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from desktop_agent.core import state
from desktop_agent.core.arguments import parse_tool_arguments
from desktop_agent.core.errors import ToolTimedOut
from desktop_agent.core.streams import run_watched
from desktop_agent.core.tools.decorator import ToolError
from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.origin import origin_of
from desktop_agent.core.tools.permissions import ChatPermissions, Decision, PermissionEngine, denial_text
from desktop_agent.core.tools.results import (
    DEFAULT_OUTPUT_CAP,
    Attachment,
    ProgressReport,
    ToolReply,
    ToolResult,
    cap_text,
    describe_exception,
    format_validation_error,
    result_to_text,
)

if TYPE_CHECKING:
    from desktop_agent.core.tools.host import ToolHost

log = logging.getLogger(__name__)

#: Default timeout of a tool call, in seconds.
DEFAULT_TIMEOUT_S = 30.0

#: seconds an ``inline`` tool may take (the wait for Stop) before it is run on a worker thread instead
INLINE_LIMIT_S = 0.05

def dispatch_call(
    tools: Mapping[str, Tool],
    name: str,
    arguments: str | dict[str, Any] | None,
    cancel: threading.Event | None = None,
    *,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    output_cap: int | None = DEFAULT_OUTPUT_CAP,
    permissions: PermissionEngine | None = None,
    chat: ChatPermissions | None = None,
    call_id: str | None = None,
    host: ToolHost | None = None,
    progress: ProgressReport | None = None,
) -> ToolResult:
    """Run tool ``name`` of ``tools`` with ``arguments`` and return its :class:`ToolResult`. Never raises.

    ``arguments``: a JSON object as text (OpenAI), a dict (Ollama), or None/"" for none. Failures
    become results the model can read: unknown tool (lists the available ones), arguments
    that are not JSON (with the parse error), validation errors (the function is not
    called), exceptions (``Error: ValueError: …`` without traceback), timeout
    (``Error: tool 'x' timed out after 1 s``, status ``timeout``), ``cancel`` set while
    waiting (status ``cancelled``, returns within ~50 ms), refused by the permission check (status ``denied``,
    saying why). ``permissions`` decides every call (default: no rules, the default policies); ``chat`` is the
    chat's grants and asker (None: an "ask" call is denied). The result carries the :class:`Decision`.
    ``timeout_s`` applies to tools without their own (None or 0: no timeout, only cancellation);
    ``output_cap`` caps ``ToolResult.content`` (None or 0: no cap). ``host``: run the function in the tool
    host's child process (see :mod:`.host`; what it prints is in ``ToolResult.output``) rather than in a
    thread of this process; a tool declared ``inline`` (quick, never blocking) that runs in this process is
    called in this thread, without the hand-off to a worker (see :func:`_run_inline`). ``progress``: where a
    tool that reports progress while it runs (an MCP server's) reports it, from its own thread. A tool may
    return a :class:`ToolReply`: its text goes to the model, its attachments (images) only to
    ``ToolResult.attachments``.
    """
    start = [time.monotonic()]  # restarted once the call is allowed: its duration is its run, not the ask

    def elapsed() -> float:
        return (time.monotonic() - start[0]) * 1000.0

    decision: Decision | None = None

    def fail(message: str, status: str = "error", args: dict[str, Any] | None = None) -> ToolResult:
        result = ToolResult.failure(name, message, status=status, arguments=args, duration_ms=elapsed(),
                                    output_cap=output_cap)
        result.decision = decision
        return result

    try:
        found = tools.get(name) if isinstance(name, str) else None
        if found is None:
            available = ", ".join(tools) or "none"
            text = f"tool '{name}' does not exist. Available tools: {available}"
            close = difflib.get_close_matches(str(name), list(tools), n=1)
            if close:
                text += f". Did you mean '{close[0]}'?"
            return fail(text)

        args, problem = decode_arguments(arguments)
        if problem is not None:
            return fail(f"the arguments for tool '{name}' could not be read ({problem}); it was not run. "
                        "Send the arguments as one JSON object.")
        try:
            kwargs = found.prepare(args)
        except ValidationError as exc:
            return fail(format_validation_error(name, exc), args=args)

        # ---- the permission check: before anything of the tool runs (no surface can skip it)
        engine = permissions if permissions is not None else state.PERMISSIONS
        # judged on the arguments the tool takes: an extra one (a "path" the tool ignores) cannot vouch for it
        declared = found.parameters.get("properties") or {}
        taken = {k: v for k, v in args.items() if k in declared} if declared else dict(args)
        decision = engine.check(found, taken, chat, cancel, call_id)
        if not decision.allowed:
            return fail(denial_text(name, decision), "denied", args)
        # ---- end of the permission check
        start[0] = time.monotonic()  # (a wait for the user's answer is not the tool's time)

        if cancel is not None and cancel.is_set():
            return fail(f"tool '{name}' was cancelled by the user.", "cancelled", args)

        timeout = found.timeout_s if found.timeout_s is not None else timeout_s
        if getattr(found, "asks_user", False):  # its questions (an MCP server's) go where approvals go
            from desktop_agent.core.mcp.elicitation import CallRoute

            kwargs = {**kwargs, _ROUTE: CallRoute(chat.asker if chat is not None else None,  # type: ignore[arg-type]
                                                  call_id or "", cancel)}
        status, value, output = _run(found, args, kwargs, timeout, cancel, host, progress)
        if status == "timeout":
            result = fail(ToolTimedOut(name, float(timeout or 0)).message, "timeout", args)
        elif status == "cancelled":
            result = fail(f"tool '{name}' was cancelled by the user.", "cancelled", args)
        elif status == "error":
            result = fail(describe_exception(value), "error", args)
        else:
            attachments: tuple[Attachment, ...] = ()
            if isinstance(value, ToolReply):
                attachments, value = value.attachments, value.text
            try:
                text = result_to_text(value)
            except Exception as exc:  # noqa: BLE001 — whatever the value's serialisation raises goes to the model
                result = fail(f"tool '{name}' returned a value that cannot be sent as text "
                              f"({type(exc).__name__}: {exc})", "error", args)
            else:
                result = ToolResult(name=name, status="ok", content=cap_text(text, output_cap), full=text,
                                    error=None, duration_ms=elapsed(), arguments=args, decision=decision,
                                    attachments=attachments)
        result.output = output
        return result
    except Exception as exc:  # a bug here must still not break the agent loop
        log.exception("dispatch of tool %r failed", name)
        return fail(f"internal error while running tool '{name}': {describe_exception(exc)}")


#: the keyword a tool that ``asks_user`` gets its :class:`~desktop_agent.core.mcp.elicitation.CallRoute` by
_ROUTE = "__route__"


def _run(found: Tool, args: dict[str, Any], kwargs: dict[str, Any], timeout: float | None,
         cancel: threading.Event | None, host: ToolHost | None,
         progress: ProgressReport | None = None) -> tuple[str, Any, str]:
    """Run the tool — in ``host`` when there is one and it can address the tool, else in a daemon thread —
    and wait for it, the timeout or ``cancel``.

    Returns ``(status, value, output)``: ``("ok", value)``, ``("error", exception)``, ``("timeout", None)`` or
    ``("cancelled", None)``, and what the tool printed (host only). In the host, timeout and cancel kill the
    call's process; in a thread, the tool's own ``cancel`` event is set and the thread is abandoned (daemon:
    it never blocks the app's exit).
    """
    origin = origin_of(found) if host is not None else None
    if host is not None and origin is not None:
        outcome = host.run(found.name, origin, args, timeout, cancel)
        return outcome.status, outcome.value, outcome.output
    if getattr(found, "inline", False):  # (a tool-like object without the attribute is not inline)
        status, value = _run_inline(found, kwargs, timeout, cancel)
    else:
        status, value = _run_in_thread(found, kwargs, timeout, cancel, progress)
    return status, value, ""


def _run_inline(found: Tool, kwargs: dict[str, Any], timeout: float | None,
                cancel: threading.Event | None) -> tuple[str, Any]:
    """A tool declared ``inline`` (quick, never blocking) called in this thread: no hand-off to a worker.

    Stop and the timeout keep their outcome: a call that returns after its timeout is a timeout, one during
    which ``cancel`` was set is cancelled (its value dropped). A call that took longer than
    :data:`INLINE_LIMIT_S` broke its promise: the tool runs on a worker from then on, where Stop and the
    timeout end the wait at once."""
    stop = threading.Event() if found.accepts_cancel else None  # what the tool sees as `cancel`
    start = time.monotonic()
    try:
        status, value = "ok", found.invoke(dict(kwargs), stop)
    except ToolError as exc:
        log.info("tool %s: %s", found.name, exc)
        status, value = "error", exc
    except (Exception, SystemExit) as exc:
        log.info("tool %s raised", found.name, exc_info=True)
        status, value = "error", exc
    took = time.monotonic() - start
    if took > INLINE_LIMIT_S:
        found.inline = False
        log.warning("tool %s is declared inline but took %.2f s; it runs on a worker thread from now on",
                    found.name, took)
    if cancel is not None and cancel.is_set():
        return "cancelled", None
    if timeout and took > timeout:
        return "timeout", None
    return status, value


def _run_in_thread(found: Tool, kwargs: dict[str, Any], timeout: float | None,
                   cancel: threading.Event | None, progress: ProgressReport | None = None) -> tuple[str, Any]:
    stop = threading.Event()  # what the tool sees as `cancel`

    def work() -> Any:
        try:
            if progress is not None:
                return found.invoke(dict(kwargs), stop, progress)
            return found.invoke(dict(kwargs), stop)
        except ToolError as exc:  # the tool's own, expected refusal ("no such city"): one line, no traceback
            log.info("tool %s: %s", found.name, exc)
            raise
        except BaseException:  # SystemExit in a tool must not kill the worker: run_watched reports it
            log.info("tool %s raised", found.name, exc_info=True)
            raise

    status, value = run_watched(work, cancel, timeout_s=timeout, name=f"tool:{found.name}")
    if status == "cancelled":
        stop.set()
    elif status == "timeout":
        stop.set()
        log.warning("tool %s timed out after %s s; its thread is abandoned", found.name, timeout)
    return status, value


def decode_arguments(arguments: Any) -> tuple[dict[str, Any], str | None]:
    """``(arguments as a dict, problem or None)`` from a JSON string, a dict, None or ""."""
    if isinstance(arguments, BaseModel):
        arguments = arguments.model_dump()
    return parse_tool_arguments(arguments)
