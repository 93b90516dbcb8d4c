"""MCP servers as people write them down: a Claude-Desktop-style ``{"mcpServers": {NAME: {...}}}`` file (stdio
``command``/``args``/``env``/``cwd``, or ``url``/``headers`` for a remote server) read into settings, with every
secret-looking value (a token, a key, a password) moved to the OS keyring instead of the settings file."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from desktop_agent.core.settings import McpServerSettings, Settings

if TYPE_CHECKING:
    from desktop_agent.core.secrets import SecretStore

#: names of environment variables and headers whose values are secrets
SECRET_NAME = re.compile(r"(TOKEN|KEY|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|COOKIE|SESSION)", re.IGNORECASE)


class McpConfigError(ValueError):
    """The file is not an MCP servers file; the message says what is wrong with it."""


@dataclass
class Imported:
    """What an import found: the servers (secrets replaced by their names), the secrets to keep in the keyring
    (keyring name → value), and one line per entry that was skipped."""

    servers: list[McpServerSettings] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


def secret_name(server: str, kind: str, name: str) -> str:
    """The keyring name of ``server``'s environment variable or header ``name`` (``kind``: env / header)."""
    return f"mcp:{server}:{kind}:{name}"


def server_from_entry(name: str, entry: Any) -> tuple[McpServerSettings, dict[str, str]]:
    """One ``mcpServers`` entry as settings plus the secrets it carried. Raises ``McpConfigError``."""
    if not isinstance(entry, dict):
        raise McpConfigError(f"{name}: an entry must be an object")
    clean_name = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")[:40] or "server"
    secrets: dict[str, str] = {}

    def split(values: Any, kind: str) -> tuple[dict[str, str], list[str]]:
        if values is None:
            return {}, []
        if not isinstance(values, dict):
            raise McpConfigError(f"{name}: '{kind}' must be an object of names and values")
        plain, hidden = {}, []
        for key, value in values.items():
            text = "" if value is None else str(value)
            if SECRET_NAME.search(str(key)) and text:
                secrets[secret_name(clean_name, kind, str(key))] = text
                hidden.append(str(key))
            else:
                plain[str(key)] = text
        return plain, hidden

    env, secret_env = split(entry.get("env"), "env")
    headers, secret_headers = split(entry.get("headers"), "header")
    args = entry.get("args") or []
    if not isinstance(args, list):
        raise McpConfigError(f"{name}: 'args' must be a list")
    try:
        server = McpServerSettings(
            name=clean_name, enabled=not bool(entry.get("disabled", False)),
            command=str(entry.get("command") or ""), args=[str(a) for a in args], env=env,
            cwd=str(entry.get("cwd") or ""), url=str(entry.get("url") or entry.get("serverUrl") or ""),
            headers=headers, secret_env=secret_env, secret_headers=secret_headers,
        )
    except ValidationError as exc:
        raise McpConfigError(f"{name}: " + "; ".join(e["msg"].removeprefix("Value error, ")
                                                      for e in exc.errors())) from None
    return server, secrets


def parse(text: str) -> Imported:
    """Read an ``{"mcpServers": {...}}`` document (the bare ``{NAME: {...}}`` object too). Raises
    ``McpConfigError`` when it is not JSON or has no servers; a bad entry is skipped and said."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise McpConfigError(f"not JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("mcpServers"), dict):
        entries = data["mcpServers"]
    elif isinstance(data, dict) and isinstance(data.get("servers"), dict):
        entries = data["servers"]
    elif isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
        entries = data
    else:
        raise McpConfigError('no "mcpServers" object in it')
    out = Imported()
    for name, entry in entries.items():
        try:
            server, secrets = server_from_entry(str(name), entry)
        except McpConfigError as exc:
            out.skipped.append(str(exc))
            continue
        out.servers.append(server)
        out.secrets.update(secrets)
    if not out.servers and not out.skipped:
        raise McpConfigError("it lists no servers")
    return out


def merged(settings: Settings, servers: list[McpServerSettings]) -> tuple[Settings, list[str]]:
    """``settings`` with ``servers`` added — a server of the same name is replaced — and what changed, one line
    each."""
    current = {s.name: s for s in settings.mcp.servers}
    notes = []
    for server in servers:
        notes.append(f"{'replaced' if server.name in current else 'added'} {server.name}")
        current[server.name] = server
    new = settings.updated({"mcp.servers": [s.model_dump() for s in current.values()]})
    return new, notes


def import_file(path: str | Path, settings: Settings, secrets: SecretStore | None) -> tuple[Settings, list[str]]:
    """The settings with the servers of the file at ``path`` merged in, and lines for the user: what was added,
    which secrets went where, what was skipped. The secrets are stored now. Raises ``McpConfigError``,
    ``OSError``."""
    return _store(parse(Path(path).read_text(encoding="utf-8-sig")), settings, secrets)


def import_entries(entries: dict[str, Any], settings: Settings,
                   secrets: SecretStore | None) -> tuple[Settings, list[str]]:
    """Like :func:`import_file` for ``{NAME: entry}`` given directly (``desktop-agent mcp add``); a bad entry
    raises ``McpConfigError``."""
    found = Imported()
    for name, entry in entries.items():
        server, hidden = server_from_entry(name, entry)
        found.servers.append(server)
        found.secrets.update(hidden)
    return _store(found, settings, secrets)


def _store(found: Imported, settings: Settings, secrets: SecretStore | None) -> tuple[Settings, list[str]]:
    new, notes = merged(settings, found.servers)
    for key, value in found.secrets.items():
        where = secrets.set_secret(key, value) if secrets is not None else "this session only"
        _server, kind, name = key.split(":", 3)[1:]
        place = "in the system keyring" if where == "system keyring" else "for this session only (no keyring)"
        notes.append(f"the {'header' if kind == 'header' else 'environment variable'} {name} of {_server} is "
                     f"kept {place}, not in the settings file")
    notes.extend(f"skipped {line}" for line in found.skipped)
    return new, notes
