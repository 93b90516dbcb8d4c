"""Command-line entry point: ``desktop-agent`` (the window), ``desktop-agent chat`` (terminal chat),
``desktop-agent tools`` (list tools), ``desktop-agent history ...`` (saved chats).

Only ``argparse`` is imported at start-up; each sub-command imports what it needs.
"""

from __future__ import annotations

import argparse
import sys

from desktop_agent import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="desktop-agent",
        description="A desktop AI assistant for Ollama and OpenAI-compatible servers. "
        "Without a command, opens the window.",
    )
    parser.add_argument("--version", action="version", version=f"desktop-agent {__version__}")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="keep settings, chats, cache and logs under DIR instead of the user folders",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    from desktop_agent import cli

    cli.add_chat_parser(sub)
    cli.add_tools_parser(sub)
    from desktop_agent import history_cli

    history_cli.add_history_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 failed, 2 bad usage, 130 Ctrl+C)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl+C anywhere (start-up imports, loading tools…): no traceback
        return 130


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.data_dir:
        from desktop_agent.core import paths

        paths.set_home(args.data_dir)
    if args.command == "chat":
        from desktop_agent import cli

        return cli.run_chat(args)
    if args.command == "tools":
        from desktop_agent import cli

        return cli.run_tools(args)
    if args.command == "history":
        from desktop_agent import history_cli

        return history_cli.run_history(args)

    from desktop_agent.ui.main_window import run_gui

    return run_gui([sys.argv[0]], {})


if __name__ == "__main__":
    raise SystemExit(main())
