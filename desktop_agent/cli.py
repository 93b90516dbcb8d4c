"""The terminal chat (``desktop-agent chat``) and ``desktop-agent tools``, over the same Agent as the
window. This is also the scripting surface:

- ``-p/--prompt TEXT``: one turn, the answer on stdout, exit.
- ``--events``: JSON Lines on stdout, one event per line (``core.events.event_to_dict``).
- Without ``-p``: reads lines from stdin until ``bye`` or end of input.

Exit codes: 0 success; 1 a turn failed (one-line reason on stderr); 2 bad usage; 130 stopped (Ctrl+C).
Chats are saved in the same store as the window's; ``--chat ID`` continues one.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
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
        print(f"desktop-agent: warning: {w}", file=err)
    settings = apply_environment(settings)
    update: dict[str, object] = {}
    if getattr(args, "backend", None):
        update["backend"] = args.backend
    if getattr(args, "host", None):
        update["ollama_host"] = normalize_host(args.host)
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
        print(f"desktop-agent: warning: {problem}", file=err)
    return registry


def build_agent(settings: Settings, registry, store) -> Agent:
    from desktop_agent.core.agent import Agent
    from desktop_agent.core.backends import create_backend

    keys: list[str] = []
    if settings.backend == "openai":
        from desktop_agent.core.secrets import SecretStore

        keys = SecretStore().get_api_keys()
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


# ---- running turns ----------------------------------------------------------------------------------


def run_turn(agent: Agent, conversation: Conversation, text: str, *, events: bool, out: TextIO, err: TextIO) -> int:
    """Run one turn on a worker thread (so Ctrl+C can cancel it cleanly) and print its events."""
    from desktop_agent.core import events as ev

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

    worker = threading.Thread(target=work, name="agent-turn", daemon=True)
    worker.start()
    code = EXIT_FAILED
    answered_text = False
    while True:
        try:
            item = q.get(timeout=0.1)
        except queue.Empty:
            continue
        except KeyboardInterrupt:
            cancel.set()
            continue
        if item is done:
            break
        if isinstance(item, BaseException):
            print(f"desktop-agent: internal error: {type(item).__name__}: {item}", file=err)
            code = EXIT_FAILED
            continue
        if events:
            out.write(json.dumps(ev.event_to_dict(item), ensure_ascii=False, default=str) + "\n")
            out.flush()
        if isinstance(item, ev.TextDelta):
            if not events:
                out.write(item.text)
                out.flush()
                answered_text = True
        elif isinstance(item, ev.Notice) and not events:
            print(f"[{item.text}]", file=err)
        elif isinstance(item, ev.ToolCallStarted) and not events and err.isatty():
            print(f"[tool] {item.name}({json.dumps(item.arguments, ensure_ascii=False)})", file=err)
        elif isinstance(item, ev.AnswerFinished):
            code = EXIT_OK
            if not events:
                if not answered_text:
                    out.write(item.message.content)
                out.write("\n")
                out.flush()
        elif isinstance(item, ev.TurnFailed):
            code = EXIT_FAILED
            if not events and answered_text:
                out.write("\n")
            print(f"desktop-agent: {item.error}", file=err)
        elif isinstance(item, ev.TurnCancelled):
            code = EXIT_STOPPED
            if not events:
                out.write("\n[stopped]\n")
    worker.join(timeout=5)
    return code


def run_chat(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None,
             inp: TextIO | None = None) -> int:
    out, err, inp = out or sys.stdout, err or sys.stderr, inp or sys.stdin
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
            print(f"desktop-agent: warning: {w}", file=err)
        if args.chat:
            conversation = _open_chat(store, args.chat)
        else:
            conversation = Conversation(backend=settings.backend, model=settings.model)
        agent = build_agent(settings, registry, store)
    except UsageError as exc:
        print(f"desktop-agent chat: error: {exc}", file=err)
        _close(store)
        return EXIT_USAGE
    except Exception as exc:  # a setup failure the user can act on (unreadable store, bad chat id…)
        print(f"desktop-agent: {exc}", file=err)
        _close(store)
        return EXIT_FAILED

    try:
        if args.prompt is not None:
            return run_turn(agent, conversation, args.prompt, events=args.events, out=out, err=err)
        code = EXIT_OK
        interactive = inp.isatty()
        while True:
            if interactive:
                err.write("you> ")
                err.flush()
            try:
                line = inp.readline()
            except KeyboardInterrupt:
                break
            if not line:
                break
            text = line.strip()
            if not text:
                continue
            if text.lower() == "bye":
                if not args.events:
                    print("Bye", file=out)
                break
            result = run_turn(agent, conversation, text, events=args.events, out=out, err=err)
            if result != EXIT_OK:
                code = result
        return code
    finally:
        agent.backend.close()
        _close(store)


def _open_chat(store, chat_id: str):
    return store.load(store.resolve(chat_id))


def _close(store) -> None:
    if store is not None:
        store.close()


def run_tools(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
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
