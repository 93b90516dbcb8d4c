"""The MCP server files of other apps, read as JSONC and brought to one shape (Claude Desktop's entry:
``command``/``args``/``env``/``cwd`` or ``url``/``headers``) for :mod:`desktop_agent.core.mcp.config`:

- **Claude Desktop** and **Cursor**: ``{"mcpServers": {NAME: entry}}``;
- **VS Code** ``mcp.json``: ``{"servers": {NAME: {"type": "stdio"|"http", …}}, "inputs": [{"id", "description",
  "password"}]}`` (also under ``"mcp"`` in its ``settings.json``);
- **Zed** ``settings.json``: ``{"context_servers": {NAME: {"command": "…", "args": […], "env": {…}}}}`` (its older
  ``"command": {"path", "args", "env"}`` too; a server a Zed extension provides cannot be mapped);
- a bare ``{NAME: entry}``.

Placeholders (VS Code's and Cursor's): ``${env:NAME}`` is the variable's value now, ``${userHome}`` the home;
``${input:ID}`` stays in the value until the user is asked (:class:`Prompt`) — the importer keeps such a value as a
secret and never passes the placeholder on; any other (``${workspaceFolder}``…) only the other app knows, so that
entry is skipped with why. Comments and trailing commas (as VS Code and Zed write their files) are read."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: ``${…}`` in a value
PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")
INPUT = re.compile(r"\$\{input:([^}]+)\}")


class FormatError(ValueError):
    """The file is not one of the MCP server files read here; the message says why."""


@dataclass(frozen=True)
class Prompt:
    """A VS Code ``inputs`` entry: what to ask the user for a ``${input:ID}``."""

    id: str
    description: str = ""
    password: bool = True


@dataclass
class Found:
    """The servers of a file: ``app`` (which app's format), ``entries`` (Claude Desktop shape), what cannot be
    mapped (one line each, with why), and the prompts of its ``${input:…}`` placeholders."""

    app: str
    entries: dict[str, Any]
    skipped: list[str]
    prompts: dict[str, Prompt]


def read_jsonc(text: str) -> Any:
    """``text`` as JSON with comments (``//``, ``/* */``) and trailing commas allowed, as VS Code and Zed write
    it. Comments become spaces, so a JSON error's line and column stay right. Raises ``ValueError``."""
    return json.loads(strip_jsonc(text))


def strip_jsonc(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ValueError("a /* comment is not closed")
            out.append("".join(c if c == "\n" else " " for c in text[i:j + 2]))
            i = j + 2
        elif ch == ",":
            j = i + 1
            while j < n:  # a comma followed (past blanks and comments) by } or ] is dropped
                if text[j] in " \t\r\n":
                    j += 1
                elif text.startswith("//", j):
                    k = text.find("\n", j)
                    j = n if k < 0 else k
                elif text.startswith("/*", j):
                    k = text.find("*/", j + 2)
                    j = n if k < 0 else k + 2
                else:
                    break
            out.append(" " if j < n and text[j] in "}]" else ",")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def locate(data: Any) -> Found:
    """The servers of a parsed file, in whichever app's format it is. Raises :class:`FormatError`."""
    if not isinstance(data, dict):
        raise FormatError('no "mcpServers", "servers" or "context_servers" object in it')
    if isinstance(data.get("mcp"), dict) and isinstance(data["mcp"].get("servers"), dict):  # VS Code settings.json
        data = data["mcp"]
    if isinstance(data.get("mcpServers"), dict):
        return _common("Claude Desktop / Cursor", data["mcpServers"], {})
    if isinstance(data.get("servers"), dict):
        return _common("VS Code", data["servers"], _prompts(data.get("inputs")))
    if isinstance(data.get("context_servers"), dict):
        return _zed(data["context_servers"])
    if data and all(isinstance(v, dict) for v in data.values()):
        return _common("MCP servers", data, {})
    raise FormatError('no "mcpServers", "servers" or "context_servers" object in it')


def _prompts(inputs: Any) -> dict[str, Prompt]:
    out: dict[str, Prompt] = {}
    for item in inputs if isinstance(inputs, list) else []:
        if isinstance(item, dict) and item.get("id"):
            out[str(item["id"])] = Prompt(str(item["id"]), str(item.get("description") or ""),
                                          bool(item.get("password", True)))
    return out


_TRANSPORTS = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamablehttp": "http"}


def _common(app: str, servers: dict[str, Any], prompts: dict[str, Prompt]) -> Found:
    entries: dict[str, Any] = {}
    skipped: list[str] = []
    for name, entry in servers.items():
        why = _unmappable(entry, servers_from=app)
        if why:
            skipped.append(f"{name}: {why}")
            continue
        entries[str(name)] = {k: v for k, v in entry.items() if k not in ("type", "transport")}
    return Found(app, entries, skipped, _used(prompts, entries))


def _unmappable(entry: Any, servers_from: str) -> str:
    if not isinstance(entry, dict):
        return "an entry must be an object"
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    if kind == "sse":
        return ("it uses the older SSE transport, which this app does not speak (if the server also offers "
                "Streamable HTTP, add its URL, often ending in /mcp)")
    if kind and kind not in _TRANSPORTS:
        return f"its type {kind!r} is not one this app knows (stdio or http)"
    if _TRANSPORTS.get(kind) == "stdio" and not entry.get("command"):
        return "a stdio server without a command"
    if _TRANSPORTS.get(kind) == "http" and not (entry.get("url") or entry.get("serverUrl")):
        return "an http server without a url"
    if entry.get("envFile"):
        return (f"its variables are in an envFile ({entry['envFile']}), which only {servers_from.split(' /')[0]} "
                "reads: add the server by hand with its variables")
    for text in _strings(entry):
        for found in PLACEHOLDER.finditer(text):
            inner = found.group(1)
            if not (inner.startswith(("env:", "input:")) or inner == "userHome"):
                return f"it uses ${{{inner}}}, which only the app it was written for knows"
    return ""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _used(prompts: dict[str, Prompt], entries: dict[str, Any]) -> dict[str, Prompt]:
    """The prompts of the placeholders the kept entries use (one asked for without an ``inputs`` entry: by id)."""
    out: dict[str, Prompt] = {}
    for text in _strings(entries):
        for found in INPUT.finditer(text):
            out.setdefault(found.group(1), prompts.get(found.group(1)) or Prompt(found.group(1)))
    return out


def _zed(servers: dict[str, Any]) -> Found:
    entries: dict[str, Any] = {}
    skipped: list[str] = []
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            skipped.append(f"{name}: an entry must be an object")
            continue
        command = entry.get("command")
        if isinstance(command, dict):  # Zed's older shape: {"command": {"path", "args", "env"}}
            entry = {"command": command.get("path") or command.get("command"), "args": command.get("args"),
                     "env": command.get("env")}
        elif command is None and not entry.get("url"):
            source = entry.get("source", "")
            skipped.append(f"{name}: " + ("a Zed extension provides it (its command is inside the extension): add "
                                          "the server by hand" if source == "extension" or "settings" in entry
                                          else "it has no command and no url"))
            continue
        why = _unmappable(entry, servers_from="Zed")
        if why:
            skipped.append(f"{name}: {why}")
            continue
        entries[str(name)] = {k: v for k, v in entry.items() if k in ("command", "args", "env", "url", "headers")}
    return Found("Zed", entries, skipped, {})


def expand(text: str, secret_named: Callable[[str], bool],
           environ: dict[str, str] | None = None) -> tuple[str, bool, list[str]]:
    """``text`` with ``${env:NAME}`` and ``${userHome}`` filled in (``${input:…}`` kept), whether it came from a
    variable whose name says it is a secret (``secret_named``: ``${env:GITHUB_TOKEN}``), and the variables it
    names that are not set."""
    env = os.environ if environ is None else environ
    secret, unset = False, []

    def fill(found: re.Match[str]) -> str:
        nonlocal secret
        inner = found.group(1)
        if inner == "userHome":
            return os.path.expanduser("~")
        if inner.startswith("env:"):
            name = inner[4:]
            secret = secret or secret_named(name)
            if name not in env:
                unset.append(name)
            return env.get(name, "")
        return found.group(0)

    return PLACEHOLDER.sub(fill, text), secret, unset
