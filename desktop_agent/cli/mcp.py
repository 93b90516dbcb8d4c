"""``desktop-agent mcp list|add|remove|import``: the MCP servers chats use, kept in the settings file (their
secrets in the keyring); ``desktop-agent mcp serve``: the user's own tools as a stdio MCP server for other apps."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import Any, Literal

from desktop_agent.cli.output import as_output, quiet_library_logs, write_line

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def run_mcp(args: argparse.Namespace) -> int:
    """Run ``mcp <command>``; returns the exit status."""
    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.core.settings import Settings

    quiet_library_logs()
    command = getattr(args, "mcp_command", None)
    if command is None:
        parser = args._mcp_parser
        parser.print_usage(sys.stderr)
        _err(f"{parser.prog}: error: choose one of: list, add, remove, import, serve")
        return EXIT_USAGE
    settings, warnings = Settings.load()
    for w in warnings:
        _err(f"desktop-agent: warning: {w}")
    if command == "serve":
        return _serve(args, settings)
    secrets = SecretStore()
    return {"list": _list, "add": _add, "remove": _remove, "import": _import}[command](args, settings, secrets)


def _err(text: str) -> None:
    write_line(as_output(sys.stderr), text)


def _fail(text: str) -> int:
    _err("desktop-agent: " + text)
    return EXIT_FAILED


def _save(settings: Any) -> int | None:
    try:
        settings.save()
    except OSError as exc:
        return _fail(f"the settings could not be saved: {exc}")
    return None


def _list(args: argparse.Namespace, settings: Any, secrets: Any) -> int:
    from desktop_agent.core.assembly import start_mcp
    from desktop_agent.core.mcp.config import secret_keys

    servers = settings.mcp.servers
    if not servers:
        print("No MCP servers. Add one with: desktop-agent mcp add NAME -- COMMAND ARGS…")
        return EXIT_OK
    states = {}
    manager = None if args.no_start else start_mcp(settings, secrets)
    try:
        if manager is not None:
            states = {s.name: s for s in manager.wait_ready()}
        tools: dict[str, list[Any]] = {}
        if manager is not None:
            for t in manager.tools():
                tools.setdefault(t.server, []).append(t)
        for server in servers:
            where = server.url or " ".join([server.command, *server.args])
            state = states.get(server.name)
            status = "disabled" if not server.enabled else (state.line().split(": ", 1)[1] if state else "not started")
            print(f"{server.name}  [{status}]  {where}")
            for key, label in secret_keys(server):
                print(f"    {label}: in the keyring" if secrets.get_secret(key) else f"    {label}: NOT SET")
            if state is not None and state.state == "failed":
                for line in state.stderr:
                    print(f"    | {line}")
            for tool in (tools.get(server.name, []) if manager is not None else []):
                first = (tool.description.splitlines() or [""])[0]
                print(f"    {tool.name}  {first}")
    finally:
        if manager is not None:
            manager.close()
    failed = [s for s in states.values() if s.state == "failed"]
    return EXIT_FAILED if failed else EXIT_OK


def _pairs(values: list[str], flag: str) -> dict[str, str] | None:
    out = {}
    for value in values:
        name, sep, text = value.partition("=")
        if not sep or not name.strip():
            _err(f"desktop-agent mcp add: error: {flag} wants NAME=VALUE, not {value!r}")
            return None
        out[name.strip()] = text
    return out


def _no_keyring(args: argparse.Namespace) -> Literal["refuse", "file"]:
    """What to do with secrets when there is no keyring: this command's session ends at once, so keeping them
    "for this session" would lose them — refuse, unless the user chose the settings file (--secrets-in-file)."""
    return "file" if getattr(args, "secrets_in_file", False) else "refuse"


def _add(args: argparse.Namespace, settings: Any, secrets: Any) -> int:
    from desktop_agent.core.mcp.config import McpConfigError, import_entries

    command = list(args.server_command)
    if command and command[0] == "--":
        command = command[1:]
    env, headers = _pairs(args.env, "--env"), _pairs(args.header, "--header")
    if env is None or headers is None:
        return EXIT_USAGE
    if bool(command) == bool(args.url):
        _err("desktop-agent mcp add: error: give either -- COMMAND ARGS… or --url URL")
        return EXIT_USAGE
    entry: dict[str, Any] = {"env": env, "headers": headers, "cwd": os.path.abspath(args.cwd) if args.cwd else ""}
    if command:
        program = command[0]
        if os.sep in program and not os.path.isabs(program):  # ".venv/bin/x": where it is now, not from elsewhere
            program = os.path.abspath(program)
        if shutil.which(program, path=None if os.sep in program else os.environ.get("PATH")) is None:
            _err(f"desktop-agent: warning: {program} is not a command on this machine (yet): the server will fail "
                 "to start until it is installed")
        entry.update(command=program, args=command[1:])
    else:
        entry["url"] = args.url
    try:
        new, notes = import_entries({args.name: entry}, settings, secrets, no_keyring=_no_keyring(args))
    except McpConfigError as exc:
        return _fail(str(exc))
    failed = _save(new)
    if failed is not None:
        return failed
    for note in notes:
        print(note[0].upper() + note[1:] + ".")
    return EXIT_OK


def _remove(args: argparse.Namespace, settings: Any, secrets: Any) -> int:
    server = next((s for s in settings.mcp.servers if s.name == args.name), None)
    if server is None:
        names = ", ".join(s.name for s in settings.mcp.servers) or "none"
        return _fail(f"no MCP server is named {args.name!r} (configured: {names})")
    new = settings.updated({"mcp.servers": [s.model_dump() for s in settings.mcp.servers if s.name != args.name]})
    failed = _save(new)
    if failed is not None:
        return failed
    from desktop_agent.core.mcp.config import secret_keys

    for key, _label in secret_keys(server):
        secrets.set_secret(key, None)
    print(f"Removed {args.name}.")
    return EXIT_OK


def _import(args: argparse.Namespace, settings: Any, secrets: Any) -> int:
    from desktop_agent.core.mcp.config import McpConfigError, NoKeyring, UnreadableFile, import_file

    try:
        new, notes = import_file(args.file, settings, secrets, no_keyring=_no_keyring(args))
    except OSError as exc:
        return _fail(f"can't read {args.file}: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        return _fail(f"{args.file} is not an MCP servers file: it is not UTF-8 text ({exc.reason})")
    except UnreadableFile as exc:  # too large, or nested too deeply: refused unread
        _err(f"desktop-agent: {args.file} is not an MCP servers file: {exc}")
        return EXIT_USAGE
    except NoKeyring as exc:
        return _fail(str(exc))
    except McpConfigError as exc:
        return _fail(f"{args.file} is not an MCP servers file: {exc}")
    failed = _save(new)
    if failed is not None:
        return failed
    for note in notes:
        print(note[0].upper() + note[1:] + ".")
    return EXIT_OK


def _serve(args: argparse.Namespace, settings: Any) -> int:
    """``mcp serve``: the user's tools (shipped, tools folder, entry points, ``--tools-dir``; not other MCP servers'
    tools, and not those switched off in Settings → Tools) over stdio until the client closes stdin. Logging and
    anything printed go to stderr: stdout is the protocol's."""
    import contextlib

    import anyio

    from desktop_agent import __version__
    from desktop_agent.core.assembly import attach_rules, build_registry, permission_engine
    from desktop_agent.core.logs import setup_logging
    from desktop_agent.core.mcp.serve import ToolServer
    from desktop_agent.core.store import ConversationStore

    setup_logging()  # to the log file (stderr only when it cannot be written): never stdout
    permissions = permission_engine()
    store = None
    registry = None
    try:
        with contextlib.redirect_stdout(sys.stderr):  # a tool file that prints while it loads
            registry, problems = build_registry(settings, args.tools_dir, permissions)
        for problem in problems:
            _err(f"desktop-agent: warning: {problem}")
        offered = registry.without(settings.tools.disabled) if settings.tools.disabled else registry
        unknown = [n for n in args.allow_tool if offered.get(n) is None]
        if unknown:
            _err(f"desktop-agent mcp serve: error: --allow-tool names no served tool: '{unknown[0]}'. "
                 f"Served: {', '.join(offered.names()) or 'none'}")
            return EXIT_USAGE
        try:
            store = ConversationStore()
        except Exception as exc:  # noqa: BLE001 — the tools still work; the saved rules and the audit do not
            _err(f"desktop-agent: warning: the history store can't be opened ({exc}): saved permission rules do "
                 "not apply and calls are not audited")
        if store is not None:
            for w in store.warnings:
                _err(f"desktop-agent: warning: {w}")
            attach_rules(permissions, store)
        permissions.allow_for_run(args.allow_tool)
        server = ToolServer(offered, permissions, store, version=__version__)
        if sys.stdin.isatty():  # run by hand: say what this is (stderr; stdout is the protocol's)
            _err(f"desktop-agent mcp serve: serving {len(offered)} tools over stdin/stdout to an MCP client; "
                 "configure it in the client (see the README). Ctrl+D ends.")
        anyio.run(server.serve_stdio)
    except KeyboardInterrupt:
        return 130
    finally:
        if registry is not None:
            registry.close()  # the tool host's processes end with the server
        if store is not None:
            store.close()
    return EXIT_OK
