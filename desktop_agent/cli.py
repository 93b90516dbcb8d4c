"""The terminal chat (``desktop-agent chat``) and ``desktop-agent tools``, over the same Agent as the
window. This is also the scripting surface:

- ``-p/--prompt TEXT``: one turn, the answer on stdout, exit.
- ``--events``: JSON Lines on stdout, one event per line (``core.events.event_to_dict``).
- Without ``-p``: reads lines from stdin until ``bye`` or end of input.

Exit codes: 0 success; 1 a turn failed (one-line reason on stderr); 2 bad usage; 130 stopped (Ctrl+C,
during a turn, at the prompt or while starting). When the reader of stdout goes away (``… | head``)
the turn is stopped quietly and the exit code is 0. Plain text streams to a terminal; to a pipe or
file only the final answer is written. Chats are saved in the same store as the window's; ``--chat ID``
continues one.
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import queue
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from desktop_agent.core.agent import Agent
    from desktop_agent.core.messages import Conversation
    from desktop_agent.core.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_STOPPED = 0, 1, 2, 130


class UsageError(Exception):
    """Bad command-line usage: exit code 2."""


def add_chat_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("chat", help="chat in the terminal", description="Chat with the agent in the terminal.")
    p.add_argument("--backend", choices=["ollama", "openai"], help="which server to talk to")
    p.add_argument("--host", metavar="URL", help="Ollama host (default http://localhost:11434, or OLLAMA_HOST)")
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible base URL, e.g. http://localhost:8080/v1")
    p.add_argument("--model", metavar="NAME", help="model name")
    p.add_argument("--system", metavar="TEXT", help="system prompt")
    p.add_argument("--temperature", type=float, metavar="X", help="sampling temperature (0–2)")
    p.add_argument("--max-steps", type=int, metavar="N", help="most model calls per turn (default 8)")
    p.add_argument(
        "--tool-choice",
        metavar="auto|required|none|NAME",
        help="tool choice for the first model call of each turn (default auto)",
    )
    p.add_argument("--chat", metavar="ID", help="continue a saved chat (an id or a unique prefix)")
    p.add_argument(
        "--tools-dir", action="append", default=[], metavar="DIR", help="also load tools from DIR (repeatable)"
    )
    p.add_argument("--no-tools", action="store_true", help="offer no tools to the model")
    p.add_argument("-p", "--prompt", metavar="TEXT", help="run one turn, print the answer and exit")
    p.add_argument("--events", action="store_true", help="print events as JSON Lines instead of plain text")


def add_tools_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tools", help="list the tools the agent can use", description="List loaded tools.")
    p.add_argument("--tools-dir", action="append", default=[], metavar="DIR", help="also load tools from DIR")


# ---- building the parts ----------------------------------------------------------------------------


def load_settings(args: argparse.Namespace, err: TextIO) -> Settings:
    """Saved settings, then ``OLLAMA_HOST``, then the flags. Raises UsageError for bad flag values."""
    from pydantic import ValidationError

    from desktop_agent.core.settings import Settings, apply_environment, normalize_host

    settings, warnings = Settings.load()
    for w in warnings:
        err.write(f"desktop-agent: warning: {w}\n")
    settings = apply_environment(settings)
    update: dict[str, object] = {}
    if getattr(args, "backend", None):
        update["backend"] = args.backend
    if getattr(args, "host", None):
        try:
            update["ollama_host"] = normalize_host(args.host)
        except ValueError as exc:  # e.g. a port that is not a number
            raise UsageError(f"invalid value for --host: '{args.host}' ({exc})") from None
    if getattr(args, "base_url", None):
        update["openai_base_url"] = args.base_url
    backend = update.get("backend", settings.backend)
    if getattr(args, "model", None):
        update["ollama_model" if backend == "ollama" else "openai_model"] = args.model
    for flag, field in (("system", "system_prompt"), ("temperature", "temperature"), ("max_steps", "max_steps"),
                        ("tool_choice", "tool_choice")):
        value = getattr(args, flag, None)
        if value is not None:
            update[field] = value
    try:
        return Settings.model_validate({**settings.model_dump(), **update})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise UsageError(f"invalid value for {where}: {first.get('msg')}") from None


def build_registry(settings: Settings, extra_dirs: list[str], err: TextIO):
    from desktop_agent.core.tool_loader import load_tools
    from desktop_agent.core.tooling import ToolRegistry

    registry = ToolRegistry(timeout_s=settings.tool_timeout_s, output_cap=settings.tool_output_cap)
    for problem in load_tools(registry, [*settings.tools_dirs, *extra_dirs]):
        err.write(f"desktop-agent: warning: {problem}\n")
    return registry


def build_agent(settings: Settings, registry, store) -> Agent:
    from desktop_agent.core.agent import Agent
    from desktop_agent.core.backends import create_backend

    keys: list[str] = []
    if settings.backend == "openai":
        from desktop_agent.core.secrets import SecretStore

        keys = SecretStore().get_api_keys(settings.openai_base_url)
    backend = create_backend(settings, keys)
    return Agent(
        backend,
        registry,
        system_prompt=settings.system_prompt,
        max_steps=settings.max_steps,
        max_history=settings.max_history_messages,
        tool_choice=settings.tool_choice,
        on_message=store.add_message if store is not None else None,
    )


# ---- output the terminal may refuse ---------------------------------------------------------------


class Output:
    """A text stream that never raises on the way out.

    - characters the stream's encoding lacks are written as replacements (``?``), not a
      ``UnicodeEncodeError`` (a ``PYTHONIOENCODING=ascii`` pipe, a Latin-1 terminal);
    - when the reader went away (``… | head``: ``BrokenPipeError``) further writes are dropped and
      :attr:`closed` turns True, so the caller can stop the turn instead of dying with a traceback.
    """

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.closed = False

    def isatty(self) -> bool:
        try:
            return bool(self.stream.isatty())
        except (ValueError, OSError):
            return False

    def write(self, text: str) -> None:
        if self.closed or not text:
            return
        try:
            try:
                self.stream.write(text)
            except UnicodeEncodeError:
                enc = getattr(self.stream, "encoding", None) or "ascii"
                self.stream.write(text.encode(enc, "replace").decode(enc, "replace"))
            self.stream.flush()
        except (BrokenPipeError, ConnectionResetError):
            self._gone()
        except OSError as exc:
            if exc.errno in (errno.EPIPE, errno.EINVAL):
                self._gone()
            else:
                raise

    def flush(self) -> None:
        self.write("")

    def _gone(self) -> None:
        self.closed = True
        try:  # Python flushes stdout again at exit: point it at /dev/null so that cannot fail either
            fd = self.stream.fileno()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
        except (AttributeError, ValueError, OSError):
            pass


def _line(stream: Output, text: str) -> None:
    stream.write(text + "\n")


# ---- running turns ----------------------------------------------------------------------------------

#: after Ctrl+C, how long to wait for the turn to wind down before giving up on it (seconds)
STOP_GRACE_S = 3.0


class _SigintCancels:
    """While active (main thread only), Ctrl+C sets ``cancel`` instead of raising KeyboardInterrupt
    wherever the main thread happens to be; a second Ctrl+C raises as usual."""

    def __init__(self, cancel: threading.Event):
        self.cancel = cancel
        self._old = None

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


def run_turn(agent: Agent, conversation: Conversation, text: str, *, events: bool, out: TextIO, err: TextIO) -> int:
    """Run one turn on a worker thread (so Ctrl+C can cancel it cleanly) and print its events.

    Plain text: on a terminal the answer streams as it arrives; to a pipe or file only the final
    answer is written (streamed text may turn out to be reasoning — a lone ``</think>`` — which a
    terminal gets corrected after the fact but a file could not). Returns the exit code; 130 when
    stopped by Ctrl+C (or when the output was closed, which stops the turn: exit 0 then).
    """
    from desktop_agent.core import events as ev

    out = out if isinstance(out, Output) else Output(out)
    err = err if isinstance(err, Output) else Output(err)
    cancel = threading.Event()
    q: queue.Queue = queue.Queue()
    done = object()

    def work() -> None:
        try:
            for event in agent.run(conversation, text, cancel):
                q.put(event)
        except BaseException as exc:  # the agent yields failures as events; this is a bug guard
            q.put(exc)
        finally:
            q.put(done)

    stream = not events and out.isatty()
    worker = threading.Thread(target=work, name="agent-turn", daemon=True)
    code = EXIT_FAILED
    printed = ""  # answer text written so far in the current model call (terminal only)
    stopped_at: float | None = None
    with _SigintCancels(cancel):
        worker.start()
        while True:
            try:
                item = q.get(timeout=0.1)
            except queue.Empty:
                if out.closed and not cancel.is_set():
                    cancel.set()  # nobody reads the answer any more
                if cancel.is_set():
                    stopped_at = stopped_at or time.monotonic()
                    if time.monotonic() - stopped_at > STOP_GRACE_S:
                        # the backend or a tool ignores the stop: give up on the turn (the user
                        # message is saved already) rather than hang
                        if not events:
                            _line(out, "\n[stopped]" if printed else "[stopped]")
                        return EXIT_OK if out.closed else EXIT_STOPPED
                continue
            if item is done:
                break
            if isinstance(item, BaseException):
                _line(err, f"desktop-agent: internal error: {type(item).__name__}: {item}")
                code = EXIT_FAILED
                continue
            if events:
                out.write(json.dumps(ev.event_to_dict(item), ensure_ascii=False, default=str) + "\n")
            if isinstance(item, ev.TextDelta):
                if stream:
                    out.write(item.text)
                    printed += item.text
            elif isinstance(item, ev.MessageAdded):
                if item.message.role == "assistant" and printed:
                    out.write("\n")  # text written before the tool calls of this step
                    printed = ""
            elif isinstance(item, ev.Notice) and not events:
                _line(err, f"[{item.text}]")
            elif isinstance(item, ev.ToolCallStarted) and not events and err.isatty():
                _line(err, f"[tool] {item.name}({json.dumps(item.arguments, ensure_ascii=False)})")
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
                _line(err, f"desktop-agent: {item.error}")
            elif isinstance(item, ev.TurnCancelled):
                code = EXIT_STOPPED
                if not events:
                    partial = item.partial.content if item.partial is not None else ""
                    if printed or partial:
                        _finish_text(out, err, printed, partial, stream)
                    _line(out, "[stopped]")
    worker.join(timeout=5)
    if out.closed:
        return EXIT_OK if code == EXIT_STOPPED else code
    return code


def _finish_text(out: Output, err: Output, printed: str, final: str, stream: bool) -> None:
    """End the answer: to a pipe write ``final``; on a terminal end the streamed line, and when what
    was streamed is not the final text (reasoning moved out after a lone ``</think>``), say so and
    write the final text."""
    if not stream:
        _line(out, final)
        return
    shown, answer = printed.strip(), final.strip()
    if shown == answer:
        out.write("\n")
        return
    if printed:
        out.write("\n")
        if answer and shown.endswith(answer):  # the answer is all there, after the reasoning
            _line(err, "[the text before the answer above was the model's reasoning]")
            return
        _line(err, "[the text above was the model's reasoning; the answer:]")
    _line(out, final)


def run_chat(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None,
             inp: TextIO | None = None) -> int:
    out, err, inp = Output(out or sys.stdout), Output(err or sys.stderr), inp or sys.stdin
    _quiet_library_logs()
    store = None
    try:
        settings = load_settings(args, err)
        if args.max_steps is not None and args.max_steps < 1:
            raise UsageError("--max-steps must be at least 1")
        registry = None if args.no_tools else build_registry(settings, args.tools_dir, err)
        if registry is not None and settings.tool_choice not in ("auto", "required", "none"):
            if registry.get(settings.tool_choice) is None:
                raise UsageError(
                    f"--tool-choice names no loaded tool: '{settings.tool_choice}'. "
                    f"Available: {', '.join(registry.names()) or 'none'}"
                )
        from desktop_agent.core.messages import Conversation
        from desktop_agent.core.store import ConversationStore

        store = ConversationStore()
        for w in store.warnings:
            _line(err, f"desktop-agent: warning: {w}")
        if args.chat:
            conversation = _open_chat(store, args.chat)
        else:
            conversation = Conversation(backend=settings.backend, model=settings.model)
        agent = build_agent(settings, registry, store)
    except UsageError as exc:
        _line(err, f"desktop-agent chat: error: {exc}")
        _close(store)
        return EXIT_USAGE
    except Exception as exc:  # a setup failure the user can act on (unreadable store, bad chat id…)
        _line(err, f"desktop-agent: {' '.join(str(exc).split()) or type(exc).__name__}")
        _close(store)
        return EXIT_FAILED
    except BaseException:  # Ctrl+C while starting: nothing of this session to keep
        _close(store)
        raise

    try:
        if args.prompt is not None:
            return run_turn(agent, conversation, args.prompt, events=args.events, out=out, err=err)
        code = EXIT_OK
        interactive = inp.isatty()
        _lenient_input(inp)
        while True:
            if interactive:
                err.write("you> ")
            try:
                line = inp.readline()
            except KeyboardInterrupt:
                return EXIT_STOPPED
            except UnicodeDecodeError:  # a stream we could not reconfigure
                _line(err, "desktop-agent: warning: skipped a line that is not valid text")
                continue
            if not line:
                break
            text = line.strip()
            if not text:
                continue
            if text.lower() == "bye":
                if not args.events:
                    _line(out, "Bye")
                break
            result = run_turn(agent, conversation, text, events=args.events, out=out, err=err)
            if result != EXIT_OK:
                code = result
            if out.closed or (result == EXIT_STOPPED and _turn_still_running()):
                break
        return code
    finally:
        agent.backend.close()
        _close(store)


def _turn_still_running() -> bool:
    """True when an abandoned turn (see STOP_GRACE_S) may still touch the conversation: the session
    must end rather than start another turn on the same history."""
    return any(t.name == "agent-turn" and t.is_alive() for t in threading.enumerate())


def _lenient_input(inp: TextIO) -> None:
    """Lines that are not valid in the input's encoding become replacement characters instead of a
    ``UnicodeDecodeError`` (a Latin-1 file piped in, a terminal in another encoding)."""
    reconfigure = getattr(inp, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="replace")
        except (ValueError, OSError, TypeError):
            pass


def _quiet_library_logs() -> None:
    """The terminal chat prints every problem itself, once: keep Python's last-resort handler from
    printing the core's log warnings a second time (records still reach handlers set up by others)."""
    logger = logging.getLogger("desktop_agent")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())


def _open_chat(store, chat_id: str):
    return store.load(store.resolve(chat_id))


def _close(store) -> None:
    if store is not None:
        store.close()


def run_tools(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = Output(out or sys.stdout), Output(err or sys.stderr)
    _quiet_library_logs()
    from desktop_agent.core.settings import Settings

    settings, _ = Settings.load()
    registry = build_registry(settings, args.tools_dir, err)
    tools = sorted(registry, key=lambda t: t.name)
    width = max((len(t.name) for t in tools), default=4)
    for t in tools:
        first = (t.description or "").strip().splitlines()[0] if t.description else ""
        out.write(f"{t.name:<{width}}  [{t.source}]  {first}\n")
    if not tools:
        out.write("no tools loaded\n")
    return EXIT_OK
