"""Command-line entry point: ``desktop-agent`` (the window), ``desktop-agent ask`` (the quick-ask window),
``desktop-agent chat`` (terminal chat),
``desktop-agent tools`` (list tools), ``desktop-agent history ...`` (saved chats).

Only ``argparse`` is imported at start-up, and without arguments not even the parsers are built: the window
starts at once. Each sub-command imports what it needs. ``--data-dir`` is
accepted before or after the sub-command. Bad usage prints the usage of the (sub-)command it
concerns and exits 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from desktop_agent import __version__

DATA_DIR_HELP = "keep settings, chats, cache and logs under DIR instead of the user folders"


def _data_dir_parent() -> argparse.ArgumentParser:
    """``--data-dir`` for the sub-commands. SUPPRESS: when not given after the sub-command, the value
    given before it (or None) is kept."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS, help=DATA_DIR_HELP)
    return parent


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="desktop-agent",
        description="A desktop AI assistant for Ollama and OpenAI-compatible servers. "
        "Without a command, opens the window.",
        epilog="Run `desktop-agent COMMAND --help` for a command's options. "
        "Exit status: 0 ok, 1 failed, 2 bad usage, 130 stopped with Ctrl+C.",
    )
    parser.add_argument("--version", action="version", version=f"desktop-agent {__version__}")
    parser.add_argument("--data-dir", metavar="DIR", help=DATA_DIR_HELP)
    entry = parser.add_mutually_exclusive_group()
    entry.add_argument("--install-desktop-entry", action="store_true",
                       help="add the app to your desktop's menu: write the .desktop file and icons into "
                       "$XDG_DATA_HOME (~/.local/share), starting this installation")
    entry.add_argument("--uninstall-desktop-entry", action="store_true",
                       help="remove what --install-desktop-entry wrote")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parents = [_data_dir_parent()]

    from desktop_agent.cli.parser import (
        add_ask_parser,
        add_chat_parser,
        add_doctor_parser,
        add_history_parser,
        add_mcp_parser,
        add_tools_parser,
    )

    add_ask_parser(sub, parents)
    add_chat_parser(sub, parents)
    add_tools_parser(sub, parents)
    add_history_parser(sub, parents)
    add_mcp_parser(sub, parents)
    add_doctor_parser(sub, parents)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 failed, 2 bad usage, 130 Ctrl+C)."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, not at exit: a reader that went away is seen below
        return code
    except KeyboardInterrupt:  # Ctrl+C anywhere (start-up imports, loading tools…): no traceback
        return 130
    except BrokenPipeError:  # `… | head`: the reader went away; what it wanted it got
        _quiet_stdout()
        return 141


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that Python's last flush at exit cannot fail (and print) again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # the window: no parser to build (the sub-commands' parsers cost start-up time)
        problem = _home_problem()
        if problem:  # no window yet to say it in
            sys.stderr.write(f"desktop-agent: {problem}\n")
            return 2
        return _run_window()
    if argv[:1] == ["--tool-host"]:  # the frozen app started as its own tool host (see core.tools.host)
        from desktop_agent.core.tools.host_main import main as host_main

        host_main()
        return 0
    parser = build_parser()
    # `mcp add NAME -- COMMAND ARGS…`: the server's command line is taken whole, options and all
    server_command: list[str] = []
    if "--" in argv and "mcp" in argv[: argv.index("--")] and "add" in argv[: argv.index("--")]:
        cut = argv.index("--")
        argv, server_command = argv[:cut], argv[cut + 1 :]
    args, extras = parser.parse_known_args(argv)
    if server_command:
        args.server_command = server_command
    # the parser of the (sub-)command the arguments were meant for: its usage, its name
    target: argparse.ArgumentParser = getattr(args, "_parser", None) or parser
    if extras:
        target.error(f"unrecognized arguments: {' '.join(extras)}")
    if args.install_desktop_entry or args.uninstall_desktop_entry:
        if args.command:
            target.error("--install-desktop-entry and --uninstall-desktop-entry take no command")
        from desktop_agent.cli.desktop_entry import run_desktop_entry

        return run_desktop_entry(remove=args.uninstall_desktop_entry)
    if args.data_dir is not None:
        _use_data_dir(args.data_dir, target)
    elif problem := _home_problem():
        target.exit(2, f"desktop-agent: {problem}\n")
    if args.command == "ask":
        return _run_window({"action": "ask", "text": " ".join(args.text).strip()})
    if args.command == "chat":
        from desktop_agent.cli.chat import run_chat

        return run_chat(args)
    if args.command == "tools":
        from desktop_agent.cli.tools import run_tools

        return run_tools(args)
    if args.command == "history":
        from desktop_agent.cli.history import run_history

        return run_history(args)
    if args.command == "mcp":
        from desktop_agent.cli.mcp import run_mcp

        return run_mcp(args)
    if args.command == "doctor":
        from desktop_agent.cli.doctor import run_doctor

        return run_doctor(args)

    return _run_window()


def _run_window(request: dict[str, str] | None = None) -> int:
    """The window — or, for ``request`` ``{"action": "ask", …}``, the quick-ask window; a running app gets it."""
    from desktop_agent.ui.application import run_gui

    return run_gui([sys.argv[0]], {}, request=request)


def _use_data_dir(value: str, parser: argparse.ArgumentParser) -> None:
    """Point every folder of the app at ``value``; a value that cannot be a folder is bad usage."""
    from desktop_agent.core import paths

    if not value.strip():
        parser.error("argument --data-dir: the folder name is empty")
    problem = _folder_problem(value)
    if problem:
        parser.error(f"argument --data-dir: {problem}")
    paths.set_home(Path(value).expanduser())


def _folder_problem(value: str) -> str | None:
    """Why ``value`` cannot be the app's folder (created when missing), or None."""
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        return f"{value} is not a folder"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"can't create {value}: {exc.strerror or exc}"
    return None


def _home_problem() -> str | None:
    """Why ``DESKTOP_AGENT_HOME`` (as ``--data-dir``) cannot be the app's folder, or None (also when not set)."""
    from desktop_agent.core.environment import current_env

    home = current_env().home
    problem = _folder_problem(home) if home.strip() else None
    return f"DESKTOP_AGENT_HOME: {problem}" if problem else None


if __name__ == "__main__":
    raise SystemExit(main())
