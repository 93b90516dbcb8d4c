"""One turn of the terminal chat: run it on a worker thread (so Ctrl+C cancels it cleanly instead of
interrupting the main thread anywhere) and print its events, as plain text or as JSON Lines."""

from __future__ import annotations

import json
import queue
import re
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from desktop_agent.cli.errors import EXIT_FAILED, EXIT_OK, EXIT_STOPPED, terminal_text
from desktop_agent.cli.output import Output, as_output, write_failed, write_line

if TYPE_CHECKING:
    from desktop_agent.core.messages import Attachment
    from desktop_agent.core.session import ChatSession
    from desktop_agent.core.tools.permissions import Answer, PermissionRequest

#: asks the user about a tool call, on the main thread: ``ask(request) -> Answer``
TerminalAsk = Callable[["PermissionRequest"], "Answer"]

#: the backend's retry notices (``core.backends.keypool.Wait.notice``): transient, terminal only
_RETRY_NOTICE = re.compile(r" — retrying in [\d.]+ s$")

#: the worker thread's name (:func:`turn_still_running` looks for it)
TURN_THREAD = "agent-turn"

#: after Ctrl+C, how long to wait for the turn to wind down before giving up on it (seconds)
STOP_GRACE_S = 3.0


class _SigintCancels:
    """While active (main thread only), Ctrl+C sets ``cancel`` instead of raising KeyboardInterrupt
    wherever the main thread happens to be; a second Ctrl+C raises as usual."""

    def __init__(self, cancel: threading.Event):
        self.cancel = cancel
        self._old: Any = None  # the SIGINT handler to restore

    def __enter__(self) -> _SigintCancels:
        if threading.current_thread() is threading.main_thread():
            try:
                self._old = signal.signal(signal.SIGINT, self._handle)
            except (ValueError, OSError):  # not in the main interpreter / unsupported
                self._old = None
        return self

    def _handle(self, signum, frame) -> None:
        if self.cancel.is_set():
            raise KeyboardInterrupt
        self.cancel.set()

    def __exit__(self, *exc) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


def _retries(n: int) -> str:
    return f"gave up after {n} {'retry' if n == 1 else 'retries'}"


def run_turn(session: ChatSession, text: str, *, events: bool, out: TextIO | Output,
             err: TextIO | Output, ask: TerminalAsk | None = None, compact: bool = False,
             attachments: Sequence[Attachment] = ()) -> int:
    """Run one turn on a worker thread (so Ctrl+C can cancel it cleanly) and print its events.

    Plain text: on a terminal the answer streams as it arrives; to a pipe or file only the final
    answer is written (streamed text may turn out to be reasoning — a lone ``</think>`` — which a
    terminal gets corrected after the fact but a file could not). Retry notices go to stderr only
    when it is a terminal; otherwise a failure line ends with "(gave up after N retries)". Returns
    the exit code: 130 when stopped by Ctrl+C, 0 when the reader of stdout went away, 1 when stdout
    could not be written (reported on stderr).

    ``ask``: how a tool call that needs the user's approval is asked about (on this, the main, thread; see
    :mod:`desktop_agent.cli.approval`). None: no one can be asked — such calls are denied (unless a rule or
    ``--allow-tool`` allows them), and a line on stderr says how to allow them.
    ``compact``: instead of a turn, summarise the chat's earlier messages (``/compact`` in the chat loop).
    ``attachments``: files attached to the message (``--attach``).
    """
    from desktop_agent.core import events as ev
    from desktop_agent.core.mcp.elicitation import DECLINE, Question
    from desktop_agent.core.tools.permissions import PermissionRequest

    out, err = as_output(out), as_output(err)
    key_source = getattr(session, "key_source", None)
    cancel = threading.Event()
    q: queue.Queue = queue.Queue()
    done = object()

    def show(request: PermissionRequest) -> None:  # the session's asker, on the worker: the main thread asks
        q.put(request)

    session.asker = show if ask is not None else None

    def work() -> None:
        try:
            for event in (session.compact(cancel) if compact else session.run_turn(text, cancel, attachments)):
                q.put(event)
        except BaseException as exc:  # noqa: BLE001 — the agent yields failures as events; this is a bug guard
            q.put(exc)
        finally:
            q.put(done)

    def result(code: int) -> int:
        if out.error is not None:
            return write_failed(out, err)
        if out.closed:
            return EXIT_OK if code == EXIT_STOPPED else code
        return code

    stream = not events and out.isatty()
    notices_shown = err.isatty()
    retries = 0  # retry notices not shown
    worker = threading.Thread(target=work, name=TURN_THREAD, daemon=True)
    code = EXIT_FAILED
    printed = ""  # answer text written so far in the current model call (terminal only)
    stopped_at: float | None = None
    sent: tuple[float, ev.RequestSent] | None = None  # the model call waiting for its first data
    with _SigintCancels(cancel):
        worker.start()
        while True:
            try:
                item = q.get(timeout=0.1)
            except queue.Empty:
                if sent is not None and time.monotonic() - sent[0] >= sent[1].QUIET_S and not cancel.is_set():
                    if notices_shown and not events:
                        if printed:
                            out.write("\n")
                            printed = ""
                        write_line(err, f"[{sent[1].waiting_text()}]")
                    sent = None
                if out.closed and not cancel.is_set():
                    cancel.set()  # nobody reads the answer any more
                if cancel.is_set():
                    stopped_at = stopped_at or time.monotonic()
                    if time.monotonic() - stopped_at > STOP_GRACE_S:
                        # the backend or a tool ignores the stop: give up on the turn (the user
                        # message is saved already) rather than hang
                        if not events:
                            if printed:
                                out.write("\n")
                            write_line(err, "[stopped]")
                        return result(EXIT_STOPPED)
                continue
            if item is done:
                break
            sent = (time.monotonic(), item) if isinstance(item, ev.RequestSent) else None
            if isinstance(item, BaseException):
                write_line(err, f"desktop-agent: internal error: {type(item).__name__}: {item}")
                code = EXIT_FAILED
                continue
            if isinstance(item, PermissionRequest):
                if ask is not None and not item.answered:
                    if printed:
                        out.write("\n")
                        printed = ""
                    item.answer(ask(item))
                continue
            if isinstance(item, Question):  # an MCP server asks the user (the asker answers it)
                if ask is not None and not item.answered.is_set():
                    if printed:
                        out.write("\n")
                        printed = ""
                    ask(item)  # type: ignore[arg-type]
                item.answer(DECLINE)  # (no effect once answered)
                continue
            if events:
                data = ev.event_to_dict(item)
                if isinstance(item, ev.TurnFailed) and isinstance(data.get("error"), dict):
                    data["error"]["message"] = terminal_text(item.error, key_source)
                out.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
            if isinstance(item, ev.TextDelta):
                if stream:
                    out.write(item.text)
                    printed += item.text
            elif isinstance(item, ev.MessageAdded):
                if item.message.role == "assistant" and printed:
                    out.write("\n")  # text written before the tool calls of this step
                    printed = ""
            elif isinstance(item, ev.Notice):
                if _RETRY_NOTICE.search(item.text) and not notices_shown:
                    retries += 1
                elif not events:
                    write_line(err, f"[{item.text}]")
            elif isinstance(item, ev.ToolsOffered) and not events and err.isatty() and item.names:
                write_line(err, f"[tools offered: {', '.join(item.names)} — {item.reason}]")
            elif isinstance(item, ev.ToolCallStarted) and not events and err.isatty():
                write_line(err, f"[tool] {item.name}({json.dumps(item.arguments, ensure_ascii=False)})")
            elif isinstance(item, ev.ChatCompacted):
                code = EXIT_OK if compact else code
                if not events:
                    n = item.summary.covers or 0
                    write_line(err, f"[the first {n} messages are summarised: the model gets the summary instead]")
            elif isinstance(item, ev.ToolCallFinished) and item.status == "denied" and not events:
                d = item.decision
                if d is not None and d.by == "default" and ask is None:
                    write_line(err, f"[tool {item.name} was denied: it needs approval and there is no terminal "
                                    f"to ask; allow it with --allow-tool {item.name}]")
                elif d is not None:
                    write_line(err, f"[tool {item.name} {d.summary()}]")
            elif isinstance(item, ev.AnswerFinished):
                code = EXIT_OK
                if not events:
                    _finish_text(out, err, printed, item.message.content, stream)
            elif isinstance(item, ev.TurnFailed):
                code = EXIT_FAILED
                if not events:
                    partial = item.partial.content if item.partial is not None else ""
                    if printed or partial:
                        _finish_text(out, err, printed, partial, stream)
                reason = terminal_text(item.error, key_source)
                if retries:
                    reason += f" ({_retries(retries)})"
                write_line(err, f"desktop-agent: {reason}")
            elif isinstance(item, ev.TurnCancelled):
                code = EXIT_STOPPED
                if not events:
                    partial = item.partial.content if item.partial is not None else ""
                    if printed or partial:
                        _finish_text(out, err, printed, partial, stream)
                    write_line(err, "[stopped]")
    worker.join(timeout=5)
    return result(code)


def _finish_text(out: Output, err: Output, printed: str, final: str, stream: bool) -> None:
    """End the answer: to a pipe write ``final``; on a terminal end the streamed line, and when what
    was streamed is not the final text (reasoning moved out after a lone ``</think>``), say so and
    write the final text."""
    if not stream:
        write_line(out, final)
        return
    shown, answer = printed.strip(), final.strip()
    if shown == answer:
        out.write("\n")
        return
    if printed:
        out.write("\n")
        if answer and shown.endswith(answer):  # the answer is all there, after the reasoning
            write_line(err, "[the text before the answer above was the model's reasoning]")
            return
        write_line(err, "[the text above was the model's reasoning; the answer:]")
    write_line(out, final)


def turn_still_running() -> bool:
    """True when an abandoned turn (see STOP_GRACE_S) may still touch the conversation: the session
    must end rather than start another turn on the same history."""
    return any(t.name == TURN_THREAD and t.is_alive() for t in threading.enumerate())
