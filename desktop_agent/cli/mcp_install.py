"""``desktop-agent mcp install FILE.mcpb``: an MCP bundle shown (name, author, version, what it does, its tools,
what it needs), its ``user_config`` values asked for line by line (a secret without echo; ``--set KEY=VALUE``
gives one beforehand, piped input one line each), then installed — unpacked under the data folder, its server
added and its secrets in the keyring (see :mod:`desktop_agent.core.mcp.bundle`). Anything wrong installs nothing."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING, Any, Literal

from desktop_agent.cli.output import as_output, write_line

if TYPE_CHECKING:
    from desktop_agent.core.mcp.bundle_manifest import UserField
    from desktop_agent.core.services import Services
    from desktop_agent.core.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _err(text: str) -> None:
    write_line(as_output(sys.stderr), text)


def _ask(f: UserField, interactive: bool, before: Any = None) -> Any:
    """One value from the terminal (None: the default — ``before``, what the installed version was given, else
    the manifest's — or left out); EOFError when the input ended."""
    from desktop_agent.core.mcp.bundle_manifest import as_text, expand_default

    default = before if before is not None else expand_default(f.default)
    shown = "" if f.sensitive or default in (None, "", []) else f" [{as_text(default, ', ')}]"
    kind = {"boolean": " (yes/no)", "number": " (a number)", "directory": " (a folder)", "file": " (a file)"}.get(
        f.type, "")
    several = " — several: separate them with ':'" if f.multiple else ""
    prompt = f"{f.title}{kind}{' (required)' if f.required else ''}{several}{shown}: "
    if f.description and interactive:
        print(f"  {f.description}", file=sys.stderr)
    if f.sensitive and interactive:
        text = getpass.getpass(prompt)
    else:
        if interactive:
            print(prompt, end="", file=sys.stderr, flush=True)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        text = line.rstrip("\n")
    return text.strip() or before


def run_install(args: argparse.Namespace, services: Services) -> int:
    from desktop_agent.core.mcp.bundle import (
        BundleError,
        install,
        open_bundle,
        previous_values,
        requirements,
        summary,
    )
    from desktop_agent.core.mcp.config import NoKeyring

    try:
        bundle = open_bundle(args.file)
    except BundleError as exc:
        _err(f"desktop-agent: {args.file} cannot be installed: {exc}. Nothing was installed.")
        return EXIT_FAILED
    except OSError as exc:
        _err(f"desktop-agent: can't read {args.file}: {exc.strerror or exc}")
        return EXIT_FAILED
    for line in summary(bundle):
        print(line)
    _command, problems = requirements(bundle.manifest)
    if problems:
        for problem in problems:
            _err(f"desktop-agent: {bundle.manifest.title} cannot run here: {problem}.")
        _err("Nothing was installed.")
        return EXIT_FAILED
    given: dict[str, Any] = {}
    for pair in args.set:
        key, sep, value = pair.partition("=")
        if not sep or bundle.manifest.field(key.strip()) is None:
            keys = ", ".join(f.key for f in bundle.manifest.user_config) or "none"
            _err(f"desktop-agent mcp install: error: --set wants KEY=VALUE with a KEY of the bundle ({keys}), "
                 f"not {pair!r}")
            return EXIT_USAGE
        given[key.strip()] = value
    interactive = sys.stdin.isatty()
    before = previous_values(bundle)
    try:
        for f in bundle.manifest.user_config:
            if f.key not in given and not args.defaults:
                given[f.key] = _ask(f, interactive, before.get(f.key))
            elif f.key not in given:
                given[f.key] = before.get(f.key)
    except (EOFError, KeyboardInterrupt):
        _err("\ndesktop-agent: the input ended before every value was given. Nothing was installed.")
        return EXIT_FAILED
    notes: list[str] = []
    no_keyring: Literal["file", "refuse"] = "file" if args.secrets_in_file else "refuse"

    def save(change: Any) -> Any:
        return services.edit_settings(change)

    try:
        notes = install(bundle, given, save, services.secrets, no_keyring=no_keyring)
    except (BundleError, NoKeyring) as exc:
        _err(f"desktop-agent: {bundle.manifest.title} was not installed: {exc}.")
        return EXIT_FAILED
    except OSError as exc:
        _err(f"desktop-agent: {bundle.manifest.title} was not installed: {exc}")
        return EXIT_FAILED
    print(f"Installed {bundle.manifest.title} {bundle.manifest.version} as the MCP server {bundle.server_name}.")
    for note in notes:
        print(note[0].upper() + note[1:] + ".")
    print("Its tools are offered in the next chat; `desktop-agent mcp list` starts it and lists them.")
    return EXIT_OK


def remove_files(name: str, settings: Settings) -> str | None:
    """After ``mcp remove NAME``: delete the files of the bundle installed as ``name``; a line saying so, or
    None when it was not a bundle."""
    from desktop_agent.core.mcp.bundle import bundles_dir, uninstall_files

    if any(s.name == name for s in settings.mcp.servers):
        return None
    folder = bundles_dir() / name
    return f"Deleted its bundle's files ({folder})." if uninstall_files(name) else None
