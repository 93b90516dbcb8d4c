"""The terminal chat (``desktop-agent chat``), over the same Agent as the window: the session's set-up
(settings layered by core.assembly, tools, the store, a new or continued chat), then one turn (``-p``) or
the stdin loop. This is also the scripting surface:

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
from typing import TYPE_CHECKING, Any, TextIO

from desktop_agent.cli.errors import EXIT_FAILED, EXIT_OK, EXIT_STOPPED, EXIT_USAGE, UsageError, terminal_text
from desktop_agent.cli.output import Output, as_output, quiet_library_logs, write_failed, write_line
from desktop_agent.cli.parser import clean_message
from desktop_agent.cli.turn import run_turn, turn_still_running

if TYPE_CHECKING:
    from desktop_agent.core.messages import Conversation
    from desktop_agent.core.session import ChatSession
    from desktop_agent.core.settings import Settings
    from desktop_agent.core.tools.permissions import PermissionEngine
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


def load_settings(args: argparse.Namespace, err: TextIO | Output) -> Settings:
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
        flag = _FLAG_FOR_SETTING.get(exc.key, exc.key)
        raise UsageError(f"argument {flag}: {clean_message(str(exc))}") from None
    if layered.effective.backend == "ollama":
        for w in layered.warnings:
            err.write(f"desktop-agent: warning: {w}\n")
    return layered.effective


def build_registry(settings: Settings, extra_dirs: list[str], err: TextIO | Output,
                   permissions: PermissionEngine | None = None) -> ToolRegistry:
    """The tool registry for ``settings`` and ``extra_dirs``; its problems are printed as warnings."""
    from desktop_agent.core.assembly import build_registry as assemble

    registry, problems = assemble(settings, extra_dirs, permissions)
    for problem in problems:
        err.write(f"desktop-agent: warning: {problem}\n")
    return registry


def start_mcp_servers(settings: Settings, err: TextIO | Output) -> Any:
    """The configured MCP servers, started and waited for (each at most its start timeout); a server that
    failed is one warning line. None when there are none."""
    from desktop_agent.core.assembly import start_mcp
    from desktop_agent.core.secrets import SecretStore

    manager = start_mcp(settings, SecretStore())
    if manager is None:
        return None
    for state in manager.wait_ready():
        if state.state != "ready":
            tail = f" (its last output: {state.stderr[-1]})" if state.stderr else ""
            err.write(f"desktop-agent: warning: MCP server {state.line()}{tail}\n")
    return manager


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
    store = None
    mcp = None
    try:
        if args.no_tools and args.tool_choice not in (None, "auto", "none"):
            raise UsageError(f"--tool-choice {args.tool_choice} needs tools: drop --no-tools")
        settings = load_settings(args, err)
        from desktop_agent.core.assembly import attach_rules, permission_engine

        permissions = permission_engine()
        registry = None if args.no_tools else build_registry(settings, args.tools_dir, err, permissions)
        if registry is not None and registry.host is not None and len(registry):
            registry.host.warm()  # its process loads while the model is asked
        if not args.no_tools and not getattr(args, "no_mcp", False):
            mcp = start_mcp_servers(settings, err)
            from desktop_agent.core.assembly import with_mcp_tools

            registry = with_mcp_tools(registry, mcp, settings, permissions)
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
        from desktop_agent.core.messages import Conversation
        from desktop_agent.core.store import ConversationStore

        store = ConversationStore()
        for w in store.warnings:
            write_line(err, f"desktop-agent: warning: {w}")
        attach_rules(permissions, store)  # the saved rules ("always allow" in the window or here)
        permissions.allow_for_run(allowed)
        if args.chat:
            conversation = _open_chat(store, args.chat)
        else:
            conversation = Conversation(backend=settings.backend, model=settings.model)
        session = build_session(settings, registry, store, conversation)
    except UsageError as exc:
        _close(store, mcp)
        return _usage_error(args, err, str(exc))
    except Exception as exc:  # noqa: BLE001 — a setup failure the user can act on (unreadable store, bad chat id…)
        write_line(err, f"desktop-agent: {terminal_text(exc)}")
        _close(store, mcp)
        return EXIT_FAILED
    except BaseException:  # Ctrl+C while starting: nothing of this session to keep
        _close(store, mcp)
        raise

    try:
        if args.events:
            write_line(out, json.dumps({"type": "Chat", "id": conversation.id, "new": not args.chat}))
        ask = _terminal_asker(args, err, inp)
        if args.prompt is not None:
            code = run_turn(session, args.prompt, events=args.events, out=out, err=err, ask=ask)
        else:
            code = _chat_loop(session, args, out, err, inp)
        if out.error is not None and code != EXIT_FAILED:
            code = write_failed(out, err)
        _tell_chat_id(conversation, args, err)
        return code
    finally:
        session.agent.backend.close()
        if registry is not None:
            registry.close()  # the tool host's processes end with the command
        _close(store, mcp)


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
        result = run_turn(session, text, events=args.events, out=out, err=err, ask=_terminal_asker(args, err, inp),
                          compact=text.lower() in COMPACT_WORDS)
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

    return lambda request: ask(request, err, inp)


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


def _open_chat(store, chat_id: str):
    return store.load(store.resolve(chat_id))


def _close(store, mcp: Any = None) -> None:
    if mcp is not None:
        mcp.close()
    if store is not None:
        store.close()
