"""MCP servers as people write them down: a Claude-Desktop-style ``{"mcpServers": {NAME: {...}}}`` file (stdio
``command``/``args``/``env``/``cwd``, or ``url``/``headers`` for a remote server) read into settings, with every
secret-looking value (a token, a key, a password) moved to the OS keyring instead of the settings file.

What counts as a secret: an environment variable or header whose *name* says so (TOKEN, KEY, AUTH…); any value
that *looks* like a credential whatever its name (``sk-…``, ``ghp_…``, ``Bearer …``, a JWT…); in the arguments,
the value of a flag whose name says so (``--api-key VALUE``, ``--token=VALUE``; not ``--key-file PATH``) or an
argument that looks like a credential; in a URL, its ``user:password@`` or a query parameter named like a secret or
looking like one (``?api_key=…``). Without a keyring the caller chooses (``no_keyring``): keep them for this
session only (the window), refuse (:class:`NoKeyring`, the terminal's default) or write them into the settings
file (``--secrets-in-file``, said in the notes). A file larger than :data:`MAX_FILE_BYTES` or nested too deeply
is refused with :class:`McpConfigError`."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import ValidationError

from desktop_agent.core.mcp.formats import INPUT, FormatError, Prompt, expand, locate, read_jsonc
from desktop_agent.core.settings import McpServerSettings, Settings

if TYPE_CHECKING:
    from desktop_agent.core.secrets import SecretStore

#: names of environment variables and headers whose values are secrets
SECRET_NAME = re.compile(r"(TOKEN|KEY|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|COOKIE|SESSION)", re.IGNORECASE)
#: values that are credentials whatever they are called (the well-known token shapes, an HTTP credential, a JWT)
SECRET_VALUE = re.compile(
    r"^(?:sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_-]{30,}|hf_[A-Za-z0-9]{30,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"|(?:Bearer|Basic|Token)\s+\S{8,})$")
#: a flag or parameter named like a secret that holds where one is, not the secret itself
_NOT_SECRET_NAME = re.compile(r"(FILE|PATH|DIR|ENV|NAME|ID|MODE|TYPE|METHOD|URL|URI|HOST|PORT|USER|LEVEL|TIMEOUT)$",
                              re.IGNORECASE)
#: the largest MCP servers file read (a Claude Desktop config is a few kB)
MAX_FILE_BYTES = 5 * 1024 * 1024
NoKeyringChoice = Literal["session", "refuse", "file"]


class McpConfigError(ValueError):
    """The file is not an MCP servers file; the message says what is wrong with it."""


class UnreadableFile(McpConfigError):
    """The file is too large, or its JSON nested too deeply, to be read as an MCP servers file."""


class NoKeyring(McpConfigError):
    """There are secrets to keep and no keyring to keep them in (the caller asked to refuse then)."""


def looks_secret(value: str) -> bool:
    """``value`` has the shape of a credential (see :data:`SECRET_VALUE`), or is a URL carrying one (a
    ``user:password@``, as in ``postgresql://me:pw@localhost/db``)."""
    text = value.strip()
    return bool(SECRET_VALUE.match(text)) or _url_with_password(text)


def _url_with_password(text: str) -> bool:
    if "://" not in text or "@" not in text:
        return False
    try:
        return bool(urlsplit(text).password)
    except ValueError:
        return False


def _secret_named(name: str) -> bool:
    name = name.strip().lstrip("-")
    return bool(SECRET_NAME.search(name)) and not _NOT_SECRET_NAME.search(name.replace("-", "_"))


def secret_args(args: list[str]) -> list[tuple[int, int]]:
    """``(index, start)`` of each argument holding a secret from ``start`` on: the value after ``--api-key`` or
    ``--token=``, or an argument that looks like a credential (``KEY=VALUE``: the value)."""
    found: list[tuple[int, int]] = []
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if arg.startswith("-") and eq and value and _secret_named(flag) and not os.path.exists(value):
            found.append((i, len(flag) + 1))
        elif arg.startswith("-") and not eq and _secret_named(arg) and i + 1 < len(args) \
                and args[i + 1] and not args[i + 1].startswith("-") and not os.path.exists(args[i + 1]):
            found.append((i + 1, 0))
        elif eq and value and not arg.startswith("-") and looks_secret(value):
            found.append((i, len(flag) + 1))
        elif looks_secret(arg):
            found.append((i, 0))
    return list(dict(reversed(found)).items())[::-1]  # one per argument: the first reason found


def redacted_url(url: str) -> str | None:
    """``url`` without its credentials (``user:password@``; the values of query parameters named like secrets or
    looking like them), or None when it has none."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    query = parse_qsl(parts.query, keep_blank_values=True)
    hidden = [(k, "" if v and (_secret_named(k) or looks_secret(v)) else v) for k, v in query]
    netloc = parts.netloc.rpartition("@")[2] if "@" in parts.netloc else parts.netloc
    if netloc == parts.netloc and hidden == query:
        return None
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(hidden), parts.fragment))


@dataclass
class Imported:
    """What an import found: the servers (secrets replaced by their names), the secrets to keep in the keyring
    (keyring name → value), and one line per entry that was skipped."""

    servers: list[McpServerSettings] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    #: which app's format the file is in; what to ask the user for its ``${input:…}`` placeholders; the secrets
    #: still holding them (keyring name → value with placeholders: :func:`fill_inputs` makes them secrets, never
    #: passed on as they are); notes for the user (a ``${env:…}`` not set)
    app: str = ""
    prompts: list[Prompt] = field(default_factory=list)
    pending: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def secret_name(server: str, kind: str, name: str) -> str:
    """The keyring name of ``server``'s environment variable or header ``name`` (``kind``: env / header)."""
    return f"mcp:{server}:{kind}:{name}"


#: letters that do not decompose into an ASCII letter and an accent
_LETTERS = str.maketrans({"ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l",
                          "Ł": "L", "đ": "d", "Đ": "D", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D", "ı": "i"})


def server_name(name: str) -> str:
    """The name a server given as ``name`` is saved under: letters, digits, ``.``, ``_`` and ``-`` (an accented
    letter becomes its plain one, "ünïcode" → "unicode"; a run of anything else becomes one ``-``), at most 40
    characters ("bad name" → "bad-name")."""
    import unicodedata

    plain = "".join(c for c in unicodedata.normalize("NFKD", name.translate(_LETTERS))
                    if not unicodedata.combining(c))
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", plain).strip("-")[:40] or "server"


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``… when that is in ``taken`` (still at most 40 characters)."""
    number = 1
    found = name
    while found in taken:
        number += 1
        found = f"{name[:39 - len(str(number))]}-{number}"
    return found


def server_from_entry(name: str, entry: Any, notes: list[str] | None = None, *, placeholders: bool = True,
                      plain_inputs: frozenset[str] = frozenset(),
                      saved_as: str = "") -> tuple[McpServerSettings, dict[str, str]]:
    """One ``mcpServers`` entry as settings plus the secrets it carried. ``${env:NAME}`` / ``${userHome}`` are
    filled in (a variable not set is said in ``notes``); a value from a secret-named variable or holding an
    ``${input:…}`` is a secret (the latter still with its placeholder: see :func:`fill_inputs`) — unless every
    input it holds is one of ``plain_inputs`` (VS Code's ``"password": false``), which stays in the plain value
    until filled in; not with ``placeholders=False`` (values typed in Settings are taken as they are). It is
    saved as ``saved_as`` (default: :func:`server_name` of ``name``). Raises ``McpConfigError``."""
    if not isinstance(entry, dict):
        raise McpConfigError(f"{name}: an entry must be an object")
    clean_name = saved_as or server_name(name)
    secrets: dict[str, str] = {}
    forced: set[str] = set()  # values that are secrets by where they came from

    def secret_input(text: str) -> re.Match[str] | None:  # the first ``${input:…}`` that is a password
        return next((m for m in INPUT.finditer(text) if m.group(1) not in plain_inputs), None)

    def filled(value: Any, where: str) -> str:
        if not placeholders:
            return "" if value is None else str(value)
        text, secret, unset = expand("" if value is None else str(value), lambda n: bool(SECRET_NAME.search(n)))
        for variable in unset:
            if notes is not None:
                notes.append(f"the environment variable {variable} that {name}'s {where} names is not set here: "
                             "it was left empty")
        if secret or secret_input(text):
            forced.add(text)
        return text

    def split(values: Any, kind: str) -> tuple[dict[str, str], list[str]]:
        if values is None:
            return {}, []
        if not isinstance(values, dict):
            raise McpConfigError(f"{name}: '{kind}' must be an object of names and values")
        plain, hidden = {}, []
        for key, value in values.items():
            text = filled(value, f"{kind} {key}")
            if text and (SECRET_NAME.search(str(key)) or looks_secret(text) or text in forced):
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
    args = [filled(a, "arguments") for a in args]
    hidden_args = []
    found_args = dict(secret_args(args))
    for index, arg in enumerate(args):  # an argument with a placeholder or from a secret variable
        placeholder = secret_input(arg) if placeholders else None
        if placeholder and (index not in found_args or found_args[index] > placeholder.start()):
            found_args[index] = placeholder.start()
        elif arg in forced and index not in found_args:
            found_args[index] = 0
    for index, start in sorted(found_args.items()):
        secrets[secret_name(clean_name, "arg", str(index))] = args[index][start:]
        args[index] = args[index][:start]
        hidden_args.append(index)
    url = filled(entry.get("url") or entry.get("serverUrl") or "", "url")
    shown = redacted_url(url) if url else None
    if url and shown is None and url in forced:
        shown = INPUT.sub(lambda m: m.group(0) if m.group(1) in plain_inputs else "", url)
    if shown is not None:
        secrets[secret_name(clean_name, "url", "url")] = url
    command = filled(entry.get("command") or "", "command")
    if placeholders and INPUT.search(command):
        raise McpConfigError(f"{name}: its command asks for an input, which cannot be kept as a secret")
    try:
        server = McpServerSettings(
            name=clean_name, enabled=not bool(entry.get("disabled", False)),
            command=command, args=args, env=env,
            cwd=filled(entry.get("cwd") or "", "cwd"), url=shown if shown is not None else url,
            headers=headers, secret_env=secret_env, secret_headers=secret_headers,
            secret_args=hidden_args, secret_url=shown is not None,
        )
    except ValidationError as exc:
        raise McpConfigError(f"{name}: " + "; ".join(e["msg"].removeprefix("Value error, ")
                                                      for e in exc.errors())) from None
    return server, secrets


def parse(text: str) -> Imported:
    """Read an MCP servers file of Claude Desktop, Cursor, VS Code or Zed (see :mod:`.formats`; JSON with
    comments), or a bare ``{NAME: {...}}`` object. Raises ``McpConfigError`` when it is none of them or has no
    servers; an entry that cannot be mapped is skipped and said (why), the rest read. The secrets holding an
    ``${input:…}`` are in ``pending`` until :func:`fill_inputs`."""
    if len(text) > MAX_FILE_BYTES:
        raise UnreadableFile(f"it is {len(text) / 1e6:.1f} MB; an MCP servers file is at most "
                             f"{MAX_FILE_BYTES // (1024 * 1024)} MB")
    try:
        data = read_jsonc(text)
    except RecursionError:
        raise UnreadableFile("its JSON is nested too deeply to be an MCP servers file") from None
    except ValueError as exc:
        raise McpConfigError(f"not JSON ({exc})") from None
    try:
        found = locate(data)
    except FormatError as exc:
        raise McpConfigError(str(exc)) from None
    out = Imported(app=found.app, skipped=list(found.skipped), prompts=list(found.prompts.values()))
    plain = frozenset(p.id for p in found.prompts.values() if not p.password)
    taken: dict[str, str] = {}  # saved name → the file's
    for name, entry in found.entries.items():
        saved_as = unique_name(server_name(str(name)), set(taken))
        try:
            server, secrets = server_from_entry(str(name), entry, out.notes, plain_inputs=plain, saved_as=saved_as)
        except McpConfigError as exc:
            out.skipped.append(str(exc))
            continue
        if saved_as != server_name(str(name)):  # two names alike once cleaned: the second is not lost
            out.notes.append(f"{name!r} is saved as {saved_as!r}: {taken[server_name(str(name))]!r} has the name "
                             f"{server_name(str(name))!r}")
        elif saved_as != name:
            out.notes.append(f"{name!r} is saved as {saved_as!r}: a server's name is letters, digits, '.', '_' and "
                             "'-'")
        taken[saved_as] = str(name)
        out.servers.append(server)
        for key, value in secrets.items():
            (out.pending if INPUT.search(value) else out.secrets)[key] = value
    if not out.servers and not out.skipped:
        raise McpConfigError("it lists no servers")
    return out


def fill_inputs(found: Imported, answers: dict[str, str | None]) -> list[str]:
    """Put the user's ``answers`` (input id → value; None or "" = not answered) into the secrets still holding
    ``${input:…}`` placeholders: a value with every placeholder answered becomes a secret, one without stays
    unset — never kept or passed on with its placeholder. Lines for the user about those left unset."""
    labels = {key: f"the {label} of {server.name}" for server in found.servers for key, label in secret_keys(server)}
    notes = []
    for key, template in list(found.pending.items()):
        missing = [m.group(1) for m in INPUT.finditer(template) if not answers.get(m.group(1))]
        if missing:
            prompt = next((p for p in found.prompts if p.id == missing[0]), None)
            what = f"{missing[0]!r}" + (f" ({prompt.description})" if prompt and prompt.description else "")
            notes.append(f"{labels.get(key, key)} is not set: {what} was not given; set it in Settings → MCP")
        else:
            found.secrets[key] = INPUT.sub(lambda m: str(answers[m.group(1)]), template)
        del found.pending[key]
    found.servers = [_filled(server, answers, found.prompts, notes) for server in found.servers]
    return notes


def _filled(server: McpServerSettings, answers: dict[str, str | None], prompts: list[Prompt],
            notes: list[str]) -> McpServerSettings:
    """``server`` with the ``${input:…}`` left in its plain values (inputs that are not passwords) filled in with
    ``answers``; one not answered is left empty and said in ``notes``."""
    missing: list[str] = []

    def fill(text: str) -> str:
        def one(found: re.Match[str]) -> str:
            if answers.get(found.group(1)):
                return str(answers[found.group(1)])
            missing.append(found.group(1))
            return ""
        return INPUT.sub(one, text)

    update = {"env": {k: fill(v) for k, v in server.env.items()},
              "headers": {k: fill(v) for k, v in server.headers.items()},
              "args": [fill(a) for a in server.args], "url": fill(server.url), "cwd": fill(server.cwd)}
    for input_id in dict.fromkeys(missing):
        prompt = next((p for p in prompts if p.id == input_id), None)
        what = f"{input_id!r}" + (f" ({prompt.description})" if prompt and prompt.description else "")
        notes.append(f"{what} was not given, so it is left empty in {server.name}; set it in Settings → MCP")
    return server.model_copy(update=update)


def secret_keys(server: McpServerSettings) -> list[tuple[str, str]]:
    """``(keyring name, what it is for the user)`` of each secret of ``server``."""
    out = [(secret_name(server.name, "env", n), f"environment variable {n}") for n in server.secret_env]
    out += [(secret_name(server.name, "header", n), f"header {n}") for n in server.secret_headers]
    out += [(secret_name(server.name, "arg", str(i)), _arg_label(server.args, i)) for i in server.secret_args]
    if server.secret_url:
        out.append((secret_name(server.name, "url", "url"), "URL's credentials"))
    return out


def _arg_label(args: list[str], index: int) -> str:
    before = args[index] if index < len(args) and args[index] else (args[index - 1] if 0 < index <= len(args)
                                                                      else "")
    return f"argument {index + 1}" + (f" ({before}…)" if before.startswith("-") else "")


def with_secrets(server: McpServerSettings, values: dict[str, str]) -> McpServerSettings:
    """``server`` with the secrets of ``values`` (keyring name → value) written back into it: what the server is
    started with (and what ``--secrets-in-file`` saves)."""
    env, headers, args, url = dict(server.env), dict(server.headers), list(server.args), server.url
    for n in server.secret_env:
        if secret_name(server.name, "env", n) in values:  # one not set is left out, not sent empty
            env[n] = values[secret_name(server.name, "env", n)]
    for n in server.secret_headers:
        if secret_name(server.name, "header", n) in values:
            headers[n] = values[secret_name(server.name, "header", n)]
    for i in server.secret_args:
        if i < len(args):
            args[i] += values.get(secret_name(server.name, "arg", str(i)), "")
    if server.secret_url:
        url = values.get(secret_name(server.name, "url", "url")) or url
    return server.model_copy(update={"env": env, "headers": headers, "args": args, "url": url, "secret_env": [],
                                     "secret_headers": [], "secret_args": [], "secret_url": False})


def hide_secrets(server: McpServerSettings) -> tuple[McpServerSettings, dict[str, str]]:
    """``server`` as typed (in Settings) with every secret in its plain values moved out by the import's rules — an
    environment variable or header named or looking like one, a secret argument, a URL's credentials — and those
    secrets (keyring name → value): a token typed into a plain field never reaches the settings file."""
    entry = {"command": server.command, "args": list(server.args), "env": dict(server.env), "cwd": server.cwd,
             "url": server.url, "headers": dict(server.headers)}
    found, secrets = server_from_entry(server.name, entry, placeholders=False)
    url = server.url if server.secret_url else found.url
    return server.model_copy(update={
        "args": found.args, "env": found.env, "headers": found.headers, "url": url,
        "secret_env": list(dict.fromkeys([*server.secret_env, *found.secret_env])),
        "secret_headers": list(dict.fromkeys([*server.secret_headers, *found.secret_headers])),
        "secret_args": sorted({*server.secret_args, *found.secret_args}),
        "secret_url": server.secret_url or found.secret_url,
    }), secrets


def _where(server: McpServerSettings) -> str:
    return server.url or " ".join([server.command, *server.args])


def merged(settings: Settings, servers: list[McpServerSettings]) -> tuple[Settings, list[str]]:
    """``settings`` with ``servers`` added — a server of the same name is replaced — and what changed, one line
    each (a replaced server's line says what it was)."""
    current = {s.name: s for s in settings.mcp.servers}
    notes = []
    for server in servers:
        old = current.get(server.name)
        if old is None:
            notes.append(f"added {server.name}")
        else:
            notes.append(f"replaced the existing server {server.name} (it was: {_where(old)})")
        current[server.name] = server
    new = settings.updated({"mcp.servers": [s.model_dump() for s in current.values()]})
    return new, notes


def read_servers(path: str | Path) -> Imported:
    """The servers of the file at ``path`` (:func:`parse`). Raises ``McpConfigError`` (:class:`UnreadableFile`
    for a file over :data:`MAX_FILE_BYTES`, or nested too deeply), ``OSError``, ``UnicodeDecodeError``."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise UnreadableFile(f"it is {size / 1e6:.1f} MB; an MCP servers file is at most "
                             f"{MAX_FILE_BYTES // (1024 * 1024)} MB")
    return parse(path.read_text(encoding="utf-8-sig"))


def import_file(path: str | Path, settings: Settings, secrets: SecretStore | None, *,
                no_keyring: NoKeyringChoice = "session",
                ask: Callable[[Prompt], str | None] | None = None) -> tuple[Settings, list[str]]:
    """The settings with the servers of the file at ``path`` merged in, and lines for the user: what was added or
    replaced, which secrets went where, what was skipped. ``ask`` is asked for each ``${input:…}`` (none: they are
    left unset). The secrets are stored now (``no_keyring``: what to do when there is no keyring, see the module
    docstring). Raises like :func:`read_servers`."""
    found = read_servers(path)
    notes = fill_inputs(found, {p.id: ask(p) for p in found.prompts} if ask is not None else {})
    new, told = store_found(found, settings, secrets, no_keyring)
    return new, told + notes


def import_entries(entries: dict[str, Any], settings: Settings, secrets: SecretStore | None, *,
                   no_keyring: NoKeyringChoice = "session") -> tuple[Settings, list[str]]:
    """Like :func:`import_file` for ``{NAME: entry}`` given directly (``desktop-agent mcp add``); a bad entry
    raises ``McpConfigError``."""
    found = Imported()
    for name, entry in entries.items():
        server, hidden = server_from_entry(name, entry)
        found.servers.append(server)
        found.secrets.update(hidden)
    return store_found(found, settings, secrets, no_keyring)


def store_found(found: Imported, settings: Settings, secrets: SecretStore | None,
                no_keyring: NoKeyringChoice = "session") -> tuple[Settings, list[str]]:
    """Merge ``found`` into ``settings`` and store its secrets (see :func:`import_file`)."""
    from desktop_agent.core.secrets import SYSTEM_KEYRING

    places = {key: (secrets.set_secret(key, value) if secrets is not None else "this session only")
              for key, value in found.secrets.items()}
    labels = {key: f"the {label} of {server.name}" for server in found.servers for key, label in secret_keys(server)}
    lost = [key for key, where in places.items() if where != SYSTEM_KEYRING]
    servers = found.servers
    left_out: list[str] = []
    if lost and no_keyring == "refuse":  # the servers that need no secret are saved; the others are said
        keep = [s for s in servers if not any(key in lost for key, _label in secret_keys(s))]
        if keep:
            why = (getattr(secrets, "problem", None) or "no system keyring is available").rstrip(".")
            for server in servers:
                if server not in keep:
                    what = ", ".join(label for key, label in secret_keys(server) if key in lost)
                    left_out.append(f"{server.name}: its secrets ({what}) need a keyring to be kept, and here "
                                    f"{why[0].lower() + why[1:]}; add it later when a keyring is set up (import the "
                                    "file again), or import it with --secrets-in-file to write its secrets in the "
                                    "settings file in plain text")
            for key in lost:
                if secrets is not None:
                    secrets.set_secret(key, None)
            servers, lost = keep, []
            places = {key: where for key, where in places.items() if where == SYSTEM_KEYRING}
    if lost and no_keyring != "session":
        for key in places:
            if secrets is not None:
                secrets.set_secret(key, None)  # all in the file, or none saved anywhere
        if no_keyring == "refuse":
            why = getattr(secrets, "problem", None) or "no system keyring is available"
            raise NoKeyring(f"{why.rstrip('.')}, so {', '.join(labels.get(k, k) for k in lost)} would be lost when "
                            "this command ends. Nothing was saved. Set up a keyring (see the README), or give "
                            "--secrets-in-file to keep the secrets in the settings file, readable by anyone who can "
                            "read that file")
        servers = [with_secrets(s, found.secrets) for s in servers]
        places = {}
        lost = []
    old = {s.name: s for s in settings.mcp.servers}
    new, notes = merged(settings, servers)
    if no_keyring == "file" and found.secrets:
        notes.append("the secrets (" + ", ".join(labels.get(k, k) for k in found.secrets) + ") are written in the "
                     "settings file in plain text (--secrets-in-file): there is no keyring to keep them")
    for key, where in places.items():
        place = "in the system keyring" if where == SYSTEM_KEYRING else "for this session only (no keyring)"
        notes.append(f"{labels.get(key, key)} is kept {place}, not in the settings file")
    if secrets is not None:  # a replaced server's secrets the new one does not have
        kept = {key for server in servers for key, _label in secret_keys(server)}
        for server in servers:
            if server.name in old:
                for key, _label in secret_keys(old[server.name]):
                    if key not in kept:
                        secrets.set_secret(key, None)
    notes.extend(found.notes)
    notes.extend(f"skipped {line}" for line in [*left_out, *found.skipped])
    return new, notes
