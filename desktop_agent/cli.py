"""The terminal chat (``desktop-agent chat``) and ``desktop-agent tools``, over the same Agent as the
window. This is also the scripting surface:

- ``-p/--prompt TEXT``: one turn, the answer on stdout, exit.
- ``--events``: JSON Lines on stdout: first ``{"type": "Chat", "id": <chat id>, "new": <bool>}`` (a
  line of the terminal chat, not a core event), then one core event per line
  (``core.events.event_to_dict``; a ``TurnFailed`` error's ``message`` is the terminal text).
- Without ``-p``: reads lines from stdin until ``bye`` (``exit``, ``quit``) or end of input.

stdout carries only the answer (or the events); everything else — errors, warnings, ``[stopped]``,
retry notices, the prompt — goes to stderr. Retry notices (``[… — retrying in 1 s]``) and the chat id
are shown only when stderr is a terminal; to a pipe or file a failed turn is exactly one line,
which says how many retries were made.

Exit codes: 0 success; 1 a turn failed (one-line reason on stderr), or stdout can't be written
(a full disk); 2 bad usage; 130 stopped with Ctrl+C (during a ``-p`` turn, at the prompt, while
starting, or during a turn when stdin is not a terminal). A turn stopped with Ctrl+C in an
interactive session returns to the prompt and does not change the exit code: a session ended with
``bye`` exits 0, or 1 when one of its turns failed. When the reader of stdout goes away
(``… | head``) the turn is stopped quietly and the exit code is 0. Plain text streams to a
terminal; to a pipe or file only the final answer is written. Chats are saved in the same store as
the window's; ``--chat ID`` continues one.
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import queue
import re
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from desktop_agent.core.messages import Conversation
    from desktop_agent.core.session import ChatSession
    from desktop_agent.core.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_STOPPED = 0, 1, 2, 130

#: lines that end the stdin session (case-insensitive)
QUIT_WORDS = frozenset({"bye", "exit", "quit", "/bye", "/exit", "/quit"})

#: the backend's retry notices (``core.backends.keypool.Wait.notice``): transient, terminal only
_RETRY_NOTICE = re.compile(r" — retrying in [\d.]+ s$")


class UsageError(Exception):
    """Bad command-line usage: exit code 2."""


CHAT_EPILOG = """\
Without -p, chat reads one message per line from stdin until "bye" (or "exit", "quit", end of input).

defaults (saved settings replace them; flags override both):
  --backend ollama              --model llama3.2 (ollama) / gpt-4o-mini (openai)
  --host http://localhost:11434 --base-url https://api.openai.com/v1
  --timeout 300 (ollama) / 60 (openai) seconds without an answer before the turn fails
  --max-steps 8                 --temperature 0          --tool-choice auto

environment:
  OLLAMA_HOST         the Ollama address, like --host (":PORT" means 127.0.0.1:PORT)
  OPENAI_API_KEY      the API key for --backend openai (a key saved by the window is used first)
  DESKTOP_AGENT_HOME  keep settings, chats and logs under this folder, like --data-dir

output:
  the answer on stdout; errors, notices and "[stopped]" on stderr. --events: JSON Lines on stdout,
  the first line {"type": "Chat", "id": "<chat id>", "new": true|false}, then one event per line.

exit status:
  0 answered (a session ended with bye or end of input), 1 a turn failed (one line on stderr),
  2 bad usage, 130 stopped with Ctrl+C.
"""


# ---- argument types: bad values are usage errors that name the flag --------------------------------


def _nonempty(what: str):
    def check(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{what} is empty")
        return text

    return check


def _number(lo: float | None, hi: float | None, *, integer: bool = False, above: bool = False):
    kind = "a whole number" if integer else "a number"

    def check(text: str) -> float | int:
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {kind}") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
        if (lo is not None and (value <= lo if above else value < lo)) or (
                hi is not None and value > hi):
            if above:
                raise argparse.ArgumentTypeError(f"must be more than {lo:g}, not {text}")
            raise argparse.ArgumentTypeError(f"must be from {lo:g} to {hi:g}, not {text}")
        return value

    return check


def _host_url(text: str) -> str:
    from desktop_agent.core.assembly import parse_ollama_host
    from desktop_agent.core.settings import check_url

    try:
        return check_url(parse_ollama_host(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(_clean(str(exc))) from None


def _base_url(text: str) -> str:
    from desktop_agent.core.settings import check_url

    try:
        return check_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(_clean(str(exc))) from None


def _clean(text: str) -> str:
    return " ".join(text.replace("Value error, ", "").split())


def add_chat_parser(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser] = ()) -> None:
    p = sub.add_parser(
        "chat", help="chat in the terminal", description="Chat with the agent in the terminal.",
        epilog=CHAT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter, parents=list(parents),
    )
    p.add_argument("--backend", choices=["ollama", "openai"], help="which server to talk to (default ollama)")
    p.add_argument("--host", metavar="URL", type=_host_url,
                   help="Ollama host (default http://localhost:11434, or OLLAMA_HOST)")
    p.add_argument("--base-url", metavar="URL", type=_base_url,
                   help="OpenAI-compatible base URL, e.g. http://localhost:8080/v1")
    p.add_argument("--model", metavar="NAME", type=_nonempty("the model name"),
                   help="model name (default llama3.2 / gpt-4o-mini)")
    p.add_argument("--no-api-key", action="store_true",
                   help="the OpenAI-compatible server needs no API key (local servers on 127.0.0.1 never do)")
    p.add_argument("--timeout", type=_number(0, None, above=True), metavar="SECONDS",
                   help="how long to wait for the server's next data (default 300 ollama, 60 openai)")
    p.add_argument("--system", metavar="TEXT", help="system prompt")
    p.add_argument("--temperature", type=_number(0, 2), metavar="X", help="sampling temperature, 0 to 2 (default 0)")
    p.add_argument("--max-steps", type=_number(1, 100, integer=True), metavar="N",
                   help="most model calls per turn, 1 to 100 (default 8)")
    p.add_argument(
        "--tool-choice",
        metavar="auto|required|none|NAME",
        type=_nonempty("the tool choice"),
        help="tool choice for the first model call of each turn (default auto; Ollama has no tool "
        "choice: NAME offers only that tool, required is like auto)",
    )
    p.add_argument("--chat", metavar="ID", type=_nonempty("the chat id"),
                   help="continue a saved chat (an id or a unique prefix)")
    p.add_argument(
        "--tools-dir", action="append", default=[], metavar="DIR", help="also load tools from DIR (repeatable)"
    )
    p.add_argument("--no-tools", action="store_true", help="offer no tools to the model")
    p.add_argument("-p", "--prompt", metavar="TEXT", type=_nonempty("the prompt"),
                   help="run one turn, print the answer and exit")
    p.add_argument("--events", action="store_true", help="print events as JSON Lines instead of plain text")
    p.set_defaults(_parser=p)


def add_tools_parser(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser] = ()) -> None:
    p = sub.add_parser("tools", help="list the tools the agent can use", description="List loaded tools.",
                       parents=list(parents))
    p.add_argument("--tools-dir", action="append", default=[], metavar="DIR", help="also load tools from DIR")
    p.set_defaults(_parser=p)


# ---- building the parts ----------------------------------------------------------------------------

#: dotted setting → the flag that sets it (for validation errors)
_FLAG_FOR_SETTING = {
    "backend": "--backend", "ollama.host": "--host", "openai.base_url": "--base-url",
    "ollama.model": "--model", "openai.model": "--model", "loop.system_prompt": "--system",
    "generation.temperature": "--temperature", "loop.max_steps": "--max-steps", "loop.tool_choice": "--tool-choice",
    "openai.timeout_s": "--timeout", "ollama.timeout_s": "--timeout", "openai.needs_key": "--no-api-key",
}


def flag_settings(args: argparse.Namespace, saved_backend: str) -> dict[str, object]:
    """The command-line flags as dotted settings (only those given)."""
    backend = getattr(args, "backend", None) or saved_backend
    timeout = getattr(args, "timeout", None)
    flags: dict[str, object] = {
        "backend": getattr(args, "backend", None),
        "ollama.host": getattr(args, "host", None),
        "openai.base_url": getattr(args, "base_url", None),
        f"{backend}.model": getattr(args, "model", None),
        "openai.needs_key": False if getattr(args, "no_api_key", False) else None,
        "ollama.timeout_s": timeout,
        "openai.timeout_s": timeout,
        "loop.system_prompt": getattr(args, "system", None),
        "generation.temperature": getattr(args, "temperature", None),
        "loop.max_steps": getattr(args, "max_steps", None),
        "loop.tool_choice": getattr(args, "tool_choice", None),
    }
    return {k: v for k, v in flags.items() if v is not None}


def load_settings(args: argparse.Namespace, err: TextIO) -> Settings:
    """Saved settings, then ``OLLAMA_HOST``, then the flags (one layering, in core.assembly). Raises
    UsageError for bad flag values."""
    from desktop_agent.core.assembly import FlagError, layer
    from desktop_agent.core.settings import Settings

    saved, warnings = Settings.load()
    for w in warnings:
        err.write(f"desktop-agent: warning: {w}\n")
    try:
        layered = layer(saved, flags=flag_settings(args, saved.backend))
    except FlagError as exc:
        raise UsageError(f"argument {_FLAG_FOR_SETTING.get(exc.key, exc.key)}: {_clean(str(exc))}") from None
    if layered.effective.backend == "ollama":
        for w in layered.warnings:
            err.write(f"desktop-agent: warning: {w}\n")
    return layered.effective


def build_registry(settings: Settings, extra_dirs: list[str], err: TextIO):
    from desktop_agent.core.assembly import build_registry as assemble

    registry, problems = assemble(settings, extra_dirs)
    for problem in problems:
        err.write(f"desktop-agent: warning: {problem}\n")
    return registry


def build_session(settings: Settings, registry, store, conversation: Conversation) -> ChatSession:
    """The chat session for ``settings``. ``session.key_source`` says where the API keys came from
    (``"environment"``, ``"system keyring"``, ``"this session only"``; None for Ollama or no key)."""
    from desktop_agent.core.assembly import api_keys, backend_spec, build_agent, build_backend
    from desktop_agent.core.session import ChatSession

    secrets = None
    if settings.backend == "openai":
        from desktop_agent.core.secrets import SecretStore

        secrets = SecretStore()
    keys = api_keys(settings, secrets)
    backend = build_backend(backend_spec(settings, keys), keys)
    session = ChatSession(conversation, store, build_agent(settings, backend, registry))
    session.key_source = keys.source  # type: ignore[attr-defined]
    return session


def terminal_text(error: BaseException, key_source: str | None = None) -> str:
    """The one line the terminal prints for ``error``: the command-line fix (flags, environment
    variables), not the window's; for a rejected key, where that key came from."""
    from desktop_agent.core.backends.keypool import NoApiKey
    from desktop_agent.core.errors import AuthenticationFailed

    if isinstance(error, AuthenticationFailed) and not isinstance(error, NoApiKey) and key_source:
        if key_source == "environment":
            fix = "Check OPENAI_API_KEY."
        elif key_source == "system keyring":
            fix = ("Check the key saved in the system keyring (the window's Settings → OpenAI-compatible); "
                   "it is used before OPENAI_API_KEY.")
        else:
            fix = "Check the key (OPENAI_API_KEY)."
        text = f"{error.what} {fix}"
    else:
        fn = getattr(error, "for_terminal", None)
        text = fn() if callable(fn) else str(error)
    return " ".join(text.split()) or type(error).__name__


# ---- output the terminal may refuse ---------------------------------------------------------------


class Output:
    """A text stream that never raises on the way out.

    - characters the stream's encoding lacks are written as replacements (``?``), not a
      ``UnicodeEncodeError`` (a ``PYTHONIOENCODING=ascii`` pipe, a Latin-1 terminal);
    - when the reader went away (``… | head``: ``BrokenPipeError``) further writes are dropped and
      :attr:`closed` turns True, so the caller can stop the turn instead of dying with a traceback;
    - any other write error (``> /dev/full``: ENOSPC, EIO) does the same and is kept in
      :attr:`error`, for the caller to report in one line.
    """

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.closed = False
        self.error: OSError | None = None

    def isatty(self) -> bool:
        try:
            return bool(self.stream.isatty())
        except (ValueError, OSError, AttributeError):
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
            if exc.errno not in (errno.EPIPE, errno.EINVAL):
                self.error = exc
            self._gone()
        except ValueError:  # the stream was closed under us
            self._gone()

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
        try:  # drop what the failed write left in the buffer
            buffer = getattr(self.stream, "buffer", None)
            if buffer is not None:
                buffer.flush()
        except (ValueError, OSError):
            pass


def _line(stream: Output, text: str) -> None:
    stream.write(text + "\n")


def _write_failed(out: Output, err: Output) -> int:
    """Report that stdout could not be written (once) and return exit code 1."""
    problem = out.error
    reason = (problem.strerror or str(problem)) if problem is not None else "unknown error"
    _line(err, f"desktop-agent: can't write the answer to stdout: {reason}")
    return EXIT_FAILED


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


def _retries(n: int) -> str:
    return f"gave up after {n} {'retry' if n == 1 else 'retries'}"


def run_turn(session: ChatSession, text: str, *, events: bool, out: TextIO, err: TextIO) -> int:
    """Run one turn on a worker thread (so Ctrl+C can cancel it cleanly) and print its events.

    Plain text: on a terminal the answer streams as it arrives; to a pipe or file only the final
    answer is written (streamed text may turn out to be reasoning — a lone ``</think>`` — which a
    terminal gets corrected after the fact but a file could not). Retry notices go to stderr only
    when it is a terminal; otherwise a failure line ends with "(gave up after N retries)". Returns
    the exit code: 130 when stopped by Ctrl+C, 0 when the reader of stdout went away, 1 when stdout
    could not be written (reported on stderr).
    """
    from desktop_agent.core import events as ev

    out = out if isinstance(out, Output) else Output(out)
    err = err if isinstance(err, Output) else Output(err)
    key_source = getattr(session, "key_source", None)
    cancel = threading.Event()
    q: queue.Queue = queue.Queue()
    done = object()

    def work() -> None:
        try:
            for event in session.run_turn(text, cancel):
                q.put(event)
        except BaseException as exc:  # the agent yields failures as events; this is a bug guard
            q.put(exc)
        finally:
            q.put(done)

    def result(code: int) -> int:
        if out.error is not None:
            return _write_failed(out, err)
        if out.closed:
            return EXIT_OK if code == EXIT_STOPPED else code
        return code

    stream = not events and out.isatty()
    notices_shown = err.isatty()
    retries = 0  # retry notices not shown
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
                            if printed:
                                out.write("\n")
                            _line(err, "[stopped]")
                        return result(EXIT_STOPPED)
                continue
            if item is done:
                break
            if isinstance(item, BaseException):
                _line(err, f"desktop-agent: internal error: {type(item).__name__}: {item}")
                code = EXIT_FAILED
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
                line = terminal_text(item.error, key_source)
                if retries:
                    line += f" ({_retries(retries)})"
                _line(err, f"desktop-agent: {line}")
            elif isinstance(item, ev.TurnCancelled):
                code = EXIT_STOPPED
                if not events:
                    partial = item.partial.content if item.partial is not None else ""
                    if printed or partial:
                        _finish_text(out, err, printed, partial, stream)
                    _line(err, "[stopped]")
    worker.join(timeout=5)
    return result(code)


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


def _usage_error(args: argparse.Namespace, err: Output, message: str) -> int:
    parser = getattr(args, "_parser", None)
    prog = parser.prog if parser is not None else "desktop-agent chat"
    if parser is not None:
        err.write(parser.format_usage())
    _line(err, f"{prog}: error: {message}")
    return EXIT_USAGE


def run_chat(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None,
             inp: TextIO | None = None) -> int:
    out, err, inp = Output(out or sys.stdout), Output(err or sys.stderr), inp or sys.stdin
    _quiet_library_logs()
    store = None
    try:
        if args.no_tools and args.tool_choice not in (None, "auto", "none"):
            raise UsageError(f"--tool-choice {args.tool_choice} needs tools: drop --no-tools")
        settings = load_settings(args, err)
        registry = None if args.no_tools else build_registry(settings, args.tools_dir, err)
        if registry is not None and settings.loop.tool_choice not in ("auto", "required", "none"):
            if registry.get(settings.loop.tool_choice) is None:
                raise UsageError(
                    f"--tool-choice names no loaded tool: '{settings.loop.tool_choice}'. "
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
        session = build_session(settings, registry, store, conversation)
    except UsageError as exc:
        _close(store)
        return _usage_error(args, err, str(exc))
    except Exception as exc:  # a setup failure the user can act on (unreadable store, bad chat id…)
        _line(err, f"desktop-agent: {terminal_text(exc)}")
        _close(store)
        return EXIT_FAILED
    except BaseException:  # Ctrl+C while starting: nothing of this session to keep
        _close(store)
        raise

    try:
        if args.events:
            _line(out, json.dumps({"type": "Chat", "id": conversation.id, "new": not args.chat}))
        if args.prompt is not None:
            code = run_turn(session, args.prompt, events=args.events, out=out, err=err)
        else:
            code = _chat_loop(session, args, out, err, inp)
        if out.error is not None and code != EXIT_FAILED:
            code = _write_failed(out, err)
        _tell_chat_id(conversation, args, err)
        return code
    finally:
        session.agent.backend.close()
        _close(store)


def _chat_loop(session: ChatSession, args, out: Output, err: Output, inp: TextIO) -> int:
    """The stdin session; returns its exit code (see the module docstring)."""
    failed = False
    interactive = inp.isatty()
    _lenient_input(inp)
    while True:
        if interactive:
            err.write("you> ")
        try:
            line = inp.readline()
        except KeyboardInterrupt:
            if interactive:
                err.write("\n")
            return EXIT_STOPPED
        except UnicodeDecodeError:  # a stream we could not reconfigure
            _line(err, "desktop-agent: warning: skipped a line that is not valid text")
            continue
        if not line:
            break
        text = line.strip()
        if not text:
            continue
        if text.lower() in QUIT_WORDS:
            if not args.events:
                _line(out, "Bye")
            break
        result = run_turn(session, text, events=args.events, out=out, err=err)
        if result == EXIT_FAILED:
            failed = True
        if out.closed:
            return result if result == EXIT_FAILED else (EXIT_FAILED if failed else EXIT_OK)
        if result == EXIT_STOPPED and (not interactive or _turn_still_running()):
            # Ctrl+C with piped input stops the whole run; an abandoned turn may still touch the
            # history, so no other turn may start on it
            return EXIT_STOPPED
    return EXIT_FAILED if failed else EXIT_OK


def _tell_chat_id(conversation, args, err: Output) -> None:
    """On a terminal, say how to continue the chat (scripts get the id from --events)."""
    if args.events or not err.isatty() or not conversation.messages:
        return
    short = conversation.id[:8]
    _line(err, f"[chat {short} — continue it with: desktop-agent chat --chat {short}]")


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

    settings, warnings = Settings.load()
    for w in warnings:
        _line(err, f"desktop-agent: warning: {w}")
    registry = build_registry(settings, args.tools_dir, err)
    tools = sorted(registry, key=lambda t: t.name)
    width = max((len(t.name) for t in tools), default=4)
    for t in tools:
        first = (t.description or "").strip().splitlines()[0] if t.description else ""
        out.write(f"{t.name:<{width}}  [{t.source}]  {first}\n")
    if not tools:
        out.write("no tools loaded\n")
    if out.error is not None:
        return _write_failed(out, err)
    return EXIT_OK
