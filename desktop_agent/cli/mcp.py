"""``desktop-agent mcp list|add|remove|import``: the MCP servers chats use, kept in the settings file (their
secrets in the keyring); ``desktop-agent mcp serve``: the user's own tools as a stdio MCP server for other apps."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from desktop_agent.cli.output import as_output, quiet_library_logs, write_line

if TYPE_CHECKING:
    from desktop_agent.core.services import Services
    from desktop_agent.core.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def run_mcp(args: argparse.Namespace) -> int:
    """Run ``mcp <command>``; returns the exit status."""
    from desktop_agent.core.services import Services

    quiet_library_logs()
    command = getattr(args, "mcp_command", None)
    if command is None:
        parser = args._mcp_parser
        parser.print_usage(sys.stderr)
        _err(f"{parser.prog}: error: choose one of: list, add, remove, import, install, login, logout, serve")
        return EXIT_USAGE
    # `serve`: the user's own tools, never other MCP servers'; served whether tools are on in chats or not
    flags = {"tools.enabled": True, "mcp.enabled": False} if command == "serve" else {}
    with Services(flags, getattr(args, "data_dir", None), tool_dirs=getattr(args, "tools_dir", None) or ()) as services:
        for w in services.file_warnings:
            _err(f"desktop-agent: warning: {w}")
        if command == "serve":
            return _serve(args, services)
        if command in ("login", "logout"):
            from desktop_agent.cli import mcp_login

            return mcp_login.login(args, services) if command == "login" else mcp_login.logout(args, services)
        if command == "install":
            from desktop_agent.cli.mcp_install import run_install

            return run_install(args, services)
        return {"list": _list, "add": _add, "remove": _remove, "import": _import}[command](args, services)


def _err(text: str) -> None:
    write_line(as_output(sys.stderr), text)


def _fail(text: str) -> int:
    _err("desktop-agent: " + text)
    return EXIT_FAILED


class _Refused(Exception):
    """A change of the settings file given up (nothing written); ``code``: the exit status, already told."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def _edit(services: Services, change: Callable[[Settings], Settings]) -> int | None:
    """Apply ``change`` to the settings file as it is now (under its lock: a window saving meanwhile loses
    nothing, nor does this command); the exit status when it failed, else None."""
    try:
        services.edit_settings(change)
    except _Refused as refused:
        return refused.code
    except OSError as exc:
        return _fail(f"the settings could not be saved: {exc}")
    return None


def _list(args: argparse.Namespace, services: Services) -> int:
    from desktop_agent.core.mcp.config import secret_keys

    settings, secrets = services.effective, services.secrets
    servers = settings.mcp.servers
    if not servers:
        print("No MCP servers. Add one with: desktop-agent mcp add NAME -- COMMAND ARGS…")
        return EXIT_OK
    states = {}
    manager = None if args.no_start else services.mcp(settings)  # stopped when the services close
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
        if state is not None and state.protocol:
            print(f"    speaks MCP {state.protocol}")
        for key, label in secret_keys(server):
            print(f"    {label}: in the keyring" if secrets.get_secret(key) else f"    {label}: NOT SET")
        if server.url:
            from desktop_agent.cli.mcp_login import sign_in_line

            print(sign_in_line(server, secrets) or "", end="")
        if state is not None and state.state == "failed":
            for line in state.stderr:
                print(f"    | {line}")
        for notice in state.notices if state is not None else []:
            print(f"    ! {notice}")
        for tool in (tools.get(server.name, []) if manager is not None else []):
            first = (tool.description.splitlines() or [""])[0]
            print(f"    {tool.name}  {first}")
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


def _add(args: argparse.Namespace, services: Services) -> int:
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
    cwd = os.path.abspath(os.path.expanduser(args.cwd)) if args.cwd else ""
    entry: dict[str, Any] = {"env": env, "headers": headers, "cwd": cwd}
    if command:
        program = os.path.expanduser(command[0])  # "~/bin/x": the home's, not a folder named "~" here
        if os.sep in program and not os.path.isabs(program):  # ".venv/bin/x": where it is now, not from elsewhere
            program = os.path.abspath(program)
        from desktop_agent.core.mcp.launch import CommandNotFound, resolve

        try:
            resolve(program)
        except CommandNotFound as missing:
            _err(f"desktop-agent: warning: {missing}; the server will fail to start until it is installed")
        entry.update(command=program, args=command[1:])
    else:
        entry["url"] = args.url
    notes: list[str] = []

    def add(current: Settings) -> Settings:  # to the servers as the file holds them now
        try:
            new, told = import_entries({args.name: entry}, current, services.secrets, no_keyring=_no_keyring(args))
        except McpConfigError as exc:
            raise _Refused(_fail(str(exc))) from None
        notes.extend(told)
        return new

    failed = _edit(services, add)
    if failed is not None:
        return failed
    from desktop_agent.core.mcp.config import server_name

    if server_name(args.name) != args.name:  # said, so that `mcp remove` and the tools' names are no surprise
        print(f"{args.name!r} is saved as {server_name(args.name)!r}: a server's name is letters, digits, "
              "'.', '_' and '-'.")
    for note in notes:
        print(note[0].upper() + note[1:] + ".")
    return EXIT_OK


def _remove(args: argparse.Namespace, services: Services) -> int:
    removed: list[Any] = []

    from desktop_agent.core.mcp.config import server_name

    def remove(current: Settings) -> Settings:  # from the servers as the file holds them now
        servers = current.mcp.servers
        # the name as given, or as `mcp add` saved it ("bad name" → "bad-name")
        server = next((s for s in servers if s.name == args.name), None) or next(
            (s for s in servers if s.name == server_name(args.name)), None)
        if server is None:
            names = ", ".join(s.name for s in servers) or "none"
            raise _Refused(_fail(f"no MCP server is named {args.name!r} (configured: {names})"))
        removed.append(server)
        return current.updated({"mcp.servers": [s.model_dump() for s in servers if s.name != server.name]})

    failed = _edit(services, remove)
    if failed is not None:
        return failed
    from desktop_agent.core.mcp.config import secret_keys

    for key, _label in secret_keys(removed[0]):
        services.secrets.set_secret(key, None)
    print(f"Removed {removed[0].name}.")
    from desktop_agent.cli.mcp_install import remove_files

    gone = remove_files(removed[0].name, services.saved)  # a bundle's: its files go too
    if gone:
        print(gone)
    return EXIT_OK


def _import(args: argparse.Namespace, services: Services) -> int:
    from desktop_agent.core.mcp.config import (
        McpConfigError,
        NoKeyring,
        UnreadableFile,
        fill_inputs,
        read_servers,
        store_found,
    )

    try:
        found = read_servers(args.file)
    except OSError as exc:
        return _fail(f"can't read {args.file}: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        return _fail(f"{args.file} is not an MCP servers file: it is not UTF-8 text ({exc.reason})")
    except UnreadableFile as exc:  # too large, or nested too deeply: refused unread
        _err(f"desktop-agent: {args.file} is not an MCP servers file: {exc}")
        return EXIT_USAGE
    except McpConfigError as exc:
        return _fail(f"{args.file} is not an MCP servers file: {exc}")
    # asked before the settings file is locked: the user may take a while
    unset = fill_inputs(found, {p.id: _ask_input(p) for p in found.prompts})
    notes: list[str] = []

    def add(current: Settings) -> Settings:  # to the servers as the file holds them now
        try:
            new, told = store_found(found, current, services.secrets, no_keyring=_no_keyring(args))
        except NoKeyring as exc:
            raise _Refused(_fail(str(exc))) from None
        notes.extend(told)
        return new

    failed = _edit(services, add)
    if failed is not None:
        return failed
    if found.app:
        print(f"Read {args.file} as {found.app}'s MCP servers file.")
    for note in [*notes, *unset]:
        print(note[0].upper() + note[1:] + ".")
    return EXIT_OK


def _ask_input(prompt: Any) -> str | None:
    """The value of a VS Code ``${input:…}``: asked on the terminal (hidden when it is a password), or one line of
    piped stdin; None when there is nothing to read."""
    label = prompt.description or prompt.id
    if sys.stdin is None:
        return None
    if sys.stdin.isatty():
        import getpass

        try:
            if prompt.password:
                return getpass.getpass(f"{label} (input {prompt.id}, hidden): ") or None
            return input(f"{label} (input {prompt.id}): ") or None
        except EOFError:
            return None
    line = sys.stdin.readline()
    return line.rstrip("\r\n") or None


def _serve(args: argparse.Namespace, services: Services) -> int:
    """``mcp serve``: the user's tools (shipped, tools folder, entry points, ``--tools-dir``; not other MCP servers'
    tools, and not those switched off in Settings → Tools) over stdio until the client closes stdin. Logging and
    anything printed go to stderr: stdout is the protocol's."""
    import contextlib

    import anyio

    from desktop_agent import __version__
    from desktop_agent.core.logs import setup_logging
    from desktop_agent.core.mcp.serve import ToolServer

    setup_logging()  # to the log file (stderr only when it cannot be written): never stdout
    settings = services.effective
    try:
        with contextlib.redirect_stdout(sys.stderr):  # a tool file that prints while it loads
            registry = services.registry(settings)
        assert registry is not None  # tools are on for serving
        for problem in services.tool_problems():
            _err(f"desktop-agent: warning: {problem}")
        offered = registry.without(settings.tools.disabled) if settings.tools.disabled else registry
        unknown = [n for n in args.allow_tool if offered.get(n) is None]
        if unknown:
            _err(f"desktop-agent mcp serve: error: --allow-tool names no served tool: '{unknown[0]}'. "
                 f"Served: {', '.join(offered.names()) or 'none'}")
            return EXIT_USAGE
        store = None
        try:
            store = services.store  # the saved permission rules apply from now on
        except Exception as exc:  # noqa: BLE001 — the tools still work; the saved rules and the audit do not
            _err(f"desktop-agent: warning: the history store can't be opened ({exc}): saved permission rules do "
                 "not apply and calls are not audited")
        if store is not None:
            for w in store.warnings:
                _err(f"desktop-agent: warning: {w}")
        permissions = services.permissions
        permissions.allow_for_run(args.allow_tool)
        server = ToolServer(offered, permissions, store, version=__version__)
        if sys.stdin.isatty():  # run by hand: say what this is (stderr; stdout is the protocol's)
            _err(f"desktop-agent mcp serve: serving {len(offered)} tools over stdin/stdout to an MCP client; "
                 "configure it in the client (see the README). Ctrl+D ends.")
        anyio.run(server.serve_stdio)
    except KeyboardInterrupt:
        return 130
    return EXIT_OK  # the tool host's processes end with the services
