"""The terminal chat (``desktop-agent chat``), over the same Agent as the window: the session's set-up
(through :class:`~desktop_agent.core.services.Services`: settings layered, tools, the store, a new or continued
chat), then one turn (``-p``) or the stdin loop. This is also the scripting surface:

- ``-p/--prompt TEXT``: one turn, the answer on stdout, exit.
- ``--events``: JSON Lines on stdout: first ``{"type": "Chat", "id": <chat id>, "new": <bool>}`` (a
  line of the terminal chat, not a core event), then one core event per line
  (``core.events.event_to_dict``; a ``TurnFailed`` error's ``message`` is the terminal text).
- Without ``-p``: reads lines from stdin until ``bye`` (``exit``, ``quit``) or end of input; ``/compact``
  summarises the chat's earlier messages (the model gets the summary instead of them).
- Tools that need approval (the permission engine's "ask") are asked about on the terminal
  (:mod:`desktop_agent.cli.approval`: y / n / a = always / c = this chat). With no terminal to ask — stdin not
  a TTY, or ``--events`` — they are denied unless ``--allow-tool NAME`` (repeatable, for this run) or a saved
  rule allows them: nothing runs unapproved because no one was there. Rules made with "always" are saved in
  the store, like the window's.

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
import contextlib
import json
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from desktop_agent.cli.errors import EXIT_FAILED, EXIT_OK, EXIT_STOPPED, EXIT_USAGE, UsageError, terminal_text
from desktop_agent.cli.output import Output, as_output, quiet_library_logs, write_failed, write_line
from desktop_agent.cli.parser import clean_message
from desktop_agent.cli.turn import run_turn, turn_still_running

if TYPE_CHECKING:
    from desktop_agent.core.messages import Attachment, Conversation
    from desktop_agent.core.services import Services
    from desktop_agent.core.session import ChatSession
    from desktop_agent.core.settings import Settings
    from desktop_agent.core.tools.registry import ToolRegistry

#: lines that end the stdin session (case-insensitive)
QUIT_WORDS = frozenset({"bye", "exit", "quit", "/bye", "/exit", "/quit"})
#: summarise the chat's earlier messages instead of sending a message
COMPACT_WORDS = frozenset({"/compact"})


# ---- the session's parts --------------------------------------------------------------------------

#: dotted setting → the flag that sets it (for validation errors)
_FLAG_FOR_SETTING = {
    "backend": "--backend", "ollama.host": "--host", "openai.base_url": "--base-url",
    "ollama.model": "--model", "openai.model": "--model", "loop.system_prompt": "--system",
    "generation.temperature": "--temperature", "loop.max_steps": "--max-steps", "loop.tool_choice": "--tool-choice",
    "openai.timeout_s": "--timeout", "ollama.timeout_s": "--timeout", "openai.needs_key": "--no-api-key",
}


def flag_settings(args: argparse.Namespace) -> dict[str, object]:
    """The command-line flags as dotted settings (only those given; ``model`` is the chosen backend's)."""
    timeout = getattr(args, "timeout", None)
    flags: dict[str, object] = {
        "backend": getattr(args, "backend", None),
        "ollama.host": getattr(args, "host", None),
        "openai.base_url": getattr(args, "base_url", None),
        "model": getattr(args, "model", None),
        "openai.needs_key": False if getattr(args, "no_api_key", False) else None,
        "ollama.timeout_s": timeout,
        "openai.timeout_s": timeout,
        "loop.system_prompt": getattr(args, "system", None),
        "generation.temperature": getattr(args, "temperature", None),
        "loop.max_steps": getattr(args, "max_steps", None),
        "loop.tool_choice": getattr(args, "tool_choice", None),
    }
    if getattr(args, "no_tools", False):
        flags["tools.enabled"] = False
    if getattr(args, "no_tools", False) or getattr(args, "no_mcp", False):
        flags["mcp.enabled"] = False  # no server is started for this run
    return {k: v for k, v in flags.items() if v is not None}


def open_services(args: argparse.Namespace, err: TextIO | Output, flags: Mapping[str, object] | None = None, *,
                  server: bool = True) -> Services:
    """The app opened for a command: saved settings, then ``OLLAMA_HOST``, then the flags (``flags``, default
    :func:`flag_settings`), layered by :class:`~desktop_agent.core.services.Services`; their warnings are printed
    (the environment's only when the command talks to an Ollama server: ``server``). Raises UsageError for bad
    flag values."""
    from desktop_agent.core.services import FlagError, Services

    services = Services(flag_settings(args) if flags is None else flags, getattr(args, "data_dir", None),
                        tool_dirs=getattr(args, "tools_dir", None) or ())
    try:
        layered = services.layered
    except FlagError as exc:
        flag = _FLAG_FOR_SETTING.get(exc.key, exc.key)
        raise UsageError(f"argument {flag}: {clean_message(str(exc))}") from None
    for w in services.file_warnings:
        err.write(f"desktop-agent: warning: {w}\n")
    if server and layered.effective.backend == "ollama":
        for w in layered.env_warnings:
            err.write(f"desktop-agent: warning: {w}\n")
    return services


def load_tools(services: Services, settings: Settings, err: TextIO | Output) -> ToolRegistry | None:
    """The tool registry of ``settings`` (None when tools are off) with the tools of the MCP servers that
    started: the tool files' problems are warnings, then each server is waited for (at most its start
    timeout) and one that failed is one warning line."""
    services.registry(settings)  # loads the tool files (the MCP servers start meanwhile)
    for problem in services.tool_problems():
        err.write(f"desktop-agent: warning: {problem}\n")
    for state in services.wait_for_mcp(settings):
        if state.state != "ready":
            tail = f" (its last output: {state.stderr[-1]})" if state.stderr else ""
            err.write(f"desktop-agent: warning: MCP server {state.line()}{tail}\n")
    return services.registry(settings)


def _usage_error(args: argparse.Namespace, err: Output, message: str) -> int:
    parser = getattr(args, "_parser", None)
    prog = parser.prog if parser is not None else "desktop-agent chat"
    if parser is not None:
        err.write(parser.format_usage())
    write_line(err, f"{prog}: error: {message}")
    return EXIT_USAGE


def run_chat(args: argparse.Namespace, out: TextIO | Output | None = None, err: TextIO | Output | None = None,
             inp: TextIO | None = None) -> int:
    """``desktop-agent chat``: set the session up, run ``-p`` or the stdin loop; returns the exit code."""
    out, err, inp = as_output(out or sys.stdout), as_output(err or sys.stderr), inp or sys.stdin
    quiet_library_logs()
    services: Services | None = None
    try:
        if args.no_tools and args.tool_choice not in (None, "auto", "none"):
            raise UsageError(f"--tool-choice {args.tool_choice} needs tools: drop --no-tools")
        services = open_services(args, err)
        settings = services.effective
        registry = load_tools(services, settings, err)
        choice = settings.loop.tool_choice
        if registry is not None and choice not in ("auto", "required", "none") and registry.get(choice) is None:
            if getattr(args, "tool_choice", None) is not None:  # the user's flag: a usage error
                raise UsageError(f"--tool-choice names no loaded tool: '{choice}'. "
                                 f"Available: {', '.join(registry.names()) or 'none'}")
            # the saved setting names a tool this run does not have (an MCP server skipped or failed): say so, go on
            write_line(err, f"desktop-agent: warning: the saved tool choice '{choice}' is not loaded in this run; "
                            "the model chooses its tools")
            settings = settings.updated({"loop.tool_choice": "auto"})
        allowed = list(getattr(args, "allow_tool", None) or [])
        unknown = [n for n in allowed if registry is None or registry.get(n) is None]
        if unknown:
            available = ", ".join(registry.names()) if registry is not None else "none (--no-tools)"
            raise UsageError(f"--allow-tool names no loaded tool: '{unknown[0]}'. Available: {available}")
        store = services.store  # the saved rules ("always allow" in the window or here) apply from now on
        for w in store.warnings:
            write_line(err, f"desktop-agent: warning: {w}")
        services.permissions.allow_for_run(allowed)
        attachments = read_attachments(getattr(args, "attach", None) or [])
        from desktop_agent.core.session import ChatSession

        conversation = _chat_of(args, services, settings)
        if conversation is not None:  # the chat's own model, prompt and options, under the flags given
            settings = _with_flags(ChatSession(conversation).effective(settings), flag_settings(args))
        session = services.new_session(settings, conversation)
        conversation = session.conversation
    except UsageError as exc:
        _close(services)
        return _usage_error(args, err, str(exc))
    except Exception as exc:  # noqa: BLE001 — a setup failure the user can act on (unreadable store, bad chat id…)
        write_line(err, f"desktop-agent: {terminal_text(exc)}")
        _close(services)
        return EXIT_FAILED
    except BaseException:  # Ctrl+C while starting: nothing of this session to keep
        _close(services)
        raise

    try:
        if args.events:
            write_line(out, json.dumps({"type": "Chat", "id": conversation.id, "new": not args.chat}))
        ask = _terminal_asker(args, err, inp)
        _warn_if_unseen(session, attachments, err)
        if args.prompt is not None:
            code = run_turn(session, args.prompt, events=args.events, out=out, err=err, ask=ask,
                            attachments=attachments)
        else:
            # each turn takes the tools offered now: a tool an MCP server added (tools/list_changed) is usable
            code = _chat_loop(session, args, out, err, inp, attachments,
                              lambda: services.assembly.agent(settings) if services is not None else None)
        if out.error is not None and code != EXIT_FAILED:
            code = write_failed(out, err)
        _tell_chat_id(conversation, args, err)
        return code
    finally:
        _close(services)  # the backend, the tool host's processes and the MCP servers end with the command


def read_attachments(files: list[str]) -> list[Attachment]:
    """``--attach`` files as attachments; a file that cannot be used is a usage error naming it and why (nothing
    is sent)."""
    from desktop_agent.core.attachments import attach_file

    out = []
    for name in files:
        a = attach_file(name)
        if a.kind == "unreadable":
            why = CLI_PROBLEMS.get(a.problem or "", "it cannot be read")
            raise UsageError(f"--attach {name}: {why}")
        out.append(a)
    return out


def _warn_if_unseen(session: ChatSession, attachments: list[Attachment], err: Output) -> None:
    """Before an attached image goes to a model whose server does not say it can see and that is not a model
    known to (:mod:`desktop_agent.core.vision`): a warning on stderr (the image is sent: the user may know
    better). A model whose server says it cannot see is told by the turn itself (the image is left out)."""
    if not any(a.kind == "image" for a in attachments):
        return
    from desktop_agent.core.vision import MAY_NOT_SEE_CLI, sight

    backend = session.agent.backend
    known = getattr(backend, "model_facts", None)
    try:
        facts = known() if callable(known) else None
    except Exception:  # noqa: BLE001 - the facts are a help: unknown then
        facts = None
    model = str(getattr(backend, "model", "") or "")
    if sight(model, facts) == "unknown":
        write_line(err, MAY_NOT_SEE_CLI.format(model=model or "the model"))


#: why an ``--attach`` file cannot be used, in the terminal's words
CLI_PROBLEMS = {
    "not_found": "no such file",
    "binary": "not a text file, PDF or image (PNG, JPEG, GIF, WebP)",
    "too_big": "the file is too big",
    "damaged": "the file is damaged or protected",
    "no_text": "the PDF has no text (scanned pages?)",
    "empty": "the file is empty",
    "unsupported_image": "models take PNG, JPEG, GIF and WebP images only",
}


def _chat_loop(session: ChatSession, args, out: Output, err: Output, inp: TextIO,
               attachments: list[Attachment] | None = None, fresh_agent: Callable[[], Any] | None = None) -> int:
    """The stdin session; returns its exit code (see the module docstring). ``attachments`` go with the first
    message; ``fresh_agent`` gives the agent of each turn after the first (the tools offered now)."""
    failed = False
    turns = 0
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
            write_line(err, "desktop-agent: warning: skipped a line that is not valid text")
            continue
        if not line:
            break
        text = line.strip()
        if not text:
            continue
        if text.lower() in QUIT_WORDS:
            if not args.events:
                write_line(out, "Bye")
            break
        compact = text.lower() in COMPACT_WORDS
        turns += 1
        agent = fresh_agent() if fresh_agent is not None and turns > 1 else None
        if agent is not None:
            session.agent = agent
        result = run_turn(session, text, events=args.events, out=out, err=err, ask=_terminal_asker(args, err, inp),
                          compact=compact, attachments=() if compact else attachments or ())
        if not compact:
            attachments = None
        if result == EXIT_FAILED:
            failed = True
        if out.closed:
            return result if result == EXIT_FAILED else (EXIT_FAILED if failed else EXIT_OK)
        if result == EXIT_STOPPED and (not interactive or turn_still_running()):
            # Ctrl+C with piped input stops the whole run; an abandoned turn may still touch the
            # history, so no other turn may start on it
            return EXIT_STOPPED
    return EXIT_FAILED if failed else EXIT_OK


def _terminal_asker(args, err: Output, inp: TextIO):
    """How tool calls needing approval are asked about: on the terminal when stdin is one and the output is
    not ``--events``; else None (they are denied)."""
    try:
        interactive = inp.isatty() and not args.events
    except (ValueError, OSError, AttributeError):
        interactive = False
    if not interactive:
        return None
    from desktop_agent.cli.approval import ask
    from desktop_agent.cli.questions import ask_question
    from desktop_agent.core.mcp.elicitation import Question

    def asker(request):  # a tool call to approve, or an MCP server's question
        if isinstance(request, Question):
            return ask_question(request, err, inp)
        return ask(request, err, inp)

    return asker


def _tell_chat_id(conversation, args, err: Output) -> None:
    """On a terminal, say how to continue the chat (scripts get the id from --events)."""
    if args.events or not err.isatty() or not conversation.messages:
        return
    short = conversation.id[:8]
    write_line(err, f"[chat {short} — continue it with: desktop-agent chat --chat {short}]")


def _lenient_input(inp: TextIO) -> None:
    """Lines that are not valid in the input's encoding become replacement characters instead of a
    ``UnicodeDecodeError`` (a Latin-1 file piped in, a terminal in another encoding)."""
    reconfigure = getattr(inp, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError, TypeError):
            reconfigure(errors="replace")


def _close(services: Services | None) -> None:
    if services is not None:
        services.close()


def _chat_of(args: argparse.Namespace, services: Services, settings: Settings) -> Conversation | None:
    """The chat this run continues (``--chat``), or a new one started from ``--preset``; None: a plain new chat.
    Raises UsageError for an unknown preset (naming the presets there are)."""
    from desktop_agent.core import presets
    from desktop_agent.core.messages import Conversation

    name = getattr(args, "preset", None)
    if name is not None:
        if args.chat:
            raise UsageError("--preset starts a new chat: drop --chat (a saved chat keeps its own settings)")
        preset = presets.find(settings, name)
        if preset is None:
            raise UsageError(f"--preset: there is no preset named '{name}'. Presets: "
                             f"{', '.join(presets.names(settings)) or 'none (Settings → Presets adds some)'}")
        options = presets.chat_options_of(preset, settings)
        own = settings.updated(options)
        return Conversation(options=options, backend=own.backend, model=own.model)
    if args.chat:
        store = services.store
        return store.load(store.resolve(args.chat))
    return None


def _with_flags(settings: Settings, flags: Mapping[str, object]) -> Settings:
    """``settings`` with the command-line flags over them (``model``: the model of the backend then in use)."""
    changes = {k: v for k, v in flags.items() if k != "model"}
    settings = settings.updated(changes) if changes else settings
    return settings.updated({settings.model_field: flags["model"]}) if "model" in flags else settings
