"""``desktop-agent mcp login NAME`` / ``mcp logout NAME``: sign in to a remote MCP server that needs it (OAuth, the
browser for consent; the tokens go to the OS keyring) and out of it again (revoked at the server, deleted from the
keyring). See :mod:`desktop_agent.core.mcp.oauth`."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING

from desktop_agent.cli.output import as_output, write_line

if TYPE_CHECKING:
    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.core.services import Services
    from desktop_agent.core.settings import McpServerSettings

EXIT_OK, EXIT_FAILED = 0, 1


def _say(text: str, stream: object = None) -> None:
    write_line(as_output(stream or sys.stdout), text)  # type: ignore[arg-type]


def _remote(args: argparse.Namespace, services: Services) -> McpServerSettings | None:
    from desktop_agent.core.mcp.config import server_name

    servers = services.effective.mcp.servers
    server = next((s for s in servers if s.name in (args.name, server_name(args.name))), None)
    if server is None:
        names = ", ".join(s.name for s in servers) or "none"
        _say(f"desktop-agent: no MCP server is named {args.name!r} (configured: {names})", sys.stderr)
        return None
    if not server.url:
        _say(f"desktop-agent: {server.name} is a local (stdio) server: only a remote one is signed in to",
             sys.stderr)
        return None
    return server


def sign_in_line(server: McpServerSettings, secrets: SecretStore) -> str:
    """For ``mcp list``: ``    signed in at ISSUER (in the keyring)`` and a newline when the server is signed in to."""
    from desktop_agent.core.mcp.oauth import sign_in_state, with_server_secrets

    state = sign_in_state(secrets, with_server_secrets(server, secrets).url)
    return f"    signed in at {state.issuer} (tokens in the keyring)\n" if state.signed_in else ""


def _open_browser(url: str) -> None:
    """Open the consent page in the user's browser, and print it too (a terminal over SSH has none)."""
    import webbrowser
    from urllib.parse import urlsplit

    _say(f"Opening your browser to sign in at {urlsplit(url).netloc}. If it does not open, visit:")
    _say(f"  {url}")
    with contextlib.suppress(Exception):  # no browser: the printed address is the way then
        webbrowser.open(url)


def login(args: argparse.Namespace, services: Services) -> int:
    from desktop_agent.core.logs import setup_logging
    from desktop_agent.core.mcp.oauth import sign_in

    setup_logging()  # a sign-in is worth a line in the log file (never a token)

    server = _remote(args, services)
    if server is None:
        return EXIT_FAILED
    if services.secrets.backend_name is None:  # the tokens would be gone when this command ends
        problem = services.secrets.problem or "no secure keyring is available"
        _say(f"desktop-agent: can't sign in to {server.name}: {problem}. The tokens are kept only in the system "
             "keyring: install and unlock a Secret Service keyring (GNOME Keyring, KWallet), then try again",
             sys.stderr)
        return EXIT_FAILED
    try:
        result = sign_in(server, services.secrets, _open_browser,
                         on_waiting=lambda: _say("Waiting for the browser… (Ctrl+C gives up)"))
    except KeyboardInterrupt:
        _say("desktop-agent: the sign-in was given up; nothing was saved", sys.stderr)
        return 130
    if not result.ok:
        _say(f"desktop-agent: {server.name}: {result.message}", sys.stderr)
        return EXIT_FAILED
    _say(result.message[0].upper() + result.message[1:] + ". The tokens are in the keyring.")
    return EXIT_OK


def logout(args: argparse.Namespace, services: Services) -> int:
    from desktop_agent.core.logs import setup_logging
    from desktop_agent.core.mcp.oauth import sign_out

    setup_logging()

    server = _remote(args, services)
    if server is None:
        return EXIT_FAILED
    message = sign_out(server, services.secrets)
    _say(message[0].upper() + message[1:] + ".")
    return EXIT_OK


def add_parsers(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """``login`` and ``logout`` under ``mcp``."""
    p = sub.add_parser("login", help="sign in to a remote server that needs it (opens the browser)",
                       parents=parents)
    p.add_argument("name", metavar="NAME")
    p = sub.add_parser("logout", help="sign out of a remote server (revokes and forgets its tokens)",
                       parents=parents)
    p.add_argument("name", metavar="NAME")
