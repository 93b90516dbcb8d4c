"""MCP bundles (``.mcpb`` — a zip holding ``manifest.json`` and the server; see
:mod:`desktop_agent.core.mcp.bundle_manifest` for the specification followed) opened, checked, installed and
uninstalled.

- :func:`open_bundle` reads a bundle without unpacking it: the manifest is checked, and so is every entry of the
  zip — an absolute path, a ``..`` (zip-slip), a symbolic link, more than :data:`MAX_FILES` files or more than
  :data:`MAX_UNPACKED_BYTES` once unpacked is refused (the sizes are counted while writing too: a zip's own
  figures can lie).
- :func:`requirements` says what stops it from running here: another platform, its runtime (``node``,
  ``python``, ``uv``) not found — looked for like every server command, with the login shell's ``PATH`` and the
  usual places (:mod:`desktop_agent.core.mcp.launch`) — or older than ``compatibility.runtimes`` asks.
- :func:`install` unpacks it under ``<data>/mcp-bundles/<name>/<version>`` (into a temporary folder first, moved
  into place only when everything worked), adds its server to the settings (a server of that name is replaced:
  a newer version replaces the old one, whose files are then deleted) with the user's ``user_config`` values —
  the ``sensitive`` ones in the OS keyring, never in the settings file. Any failure leaves nothing behind.
- :func:`uninstall_files` deletes a bundle's files (its server and keyring entries go with ``mcp remove``);
  :func:`prune` deletes those of bundles whose server was removed in Settings."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from desktop_agent.core.mcp.bundle_manifest import (
    MAX_MANIFEST_BYTES,
    BundleError,
    Manifest,
    as_text,
    expand,
    expand_default,
    parse_manifest,
    satisfies,
)
from desktop_agent.core.mcp.config import (
    Imported,
    NoKeyringChoice,
    secret_name,
    server_from_entry,
    server_name,
    store_found,
)

if TYPE_CHECKING:
    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.core.settings import McpServerSettings, Settings

#: the largest bundle file opened, the most it may unpack to, and the most files it may hold
MAX_BUNDLE_BYTES = 1024 * 1024 * 1024
MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024
MAX_FILES = 100_000
#: what runs a server of each type, and the name the user knows it by
RUNTIME_NAMES = {"node": "Node.js", "python": "Python", "uv": "uv"}
_PLATFORM_NAMES = {"darwin": "macOS", "win32": "Windows", "linux": "Linux"}
#: the values an installed bundle was given (not the sensitive ones), beside its version folders
VALUES_FILE = "values.json"
_WHOLE_VALUE = re.compile(r"^\$\{user_config\.([^}]+)\}$")

__all__ = ["Bundle", "BundleError", "bundles_dir", "install", "open_bundle", "requirements", "uninstall_files"]


@dataclass(frozen=True)
class Bundle:
    """An opened bundle: its file, its manifest, how many files and bytes it unpacks to."""

    path: Path
    manifest: Manifest
    files: int
    size: int

    @property
    def server_name(self) -> str:
        return server_name(self.manifest.name)


def bundles_dir() -> Path:
    """Where bundles are unpacked: ``<data>/mcp-bundles``."""
    from desktop_agent.core import paths

    return paths.data_dir() / "mcp-bundles"


def _safe_name(name: str) -> PurePosixPath:
    """``name`` of a zip entry as a relative path inside the bundle; :class:`BundleError` for one that would land
    outside it (zip-slip)."""
    text = name.replace("\\", "/")
    path = PurePosixPath(text)
    if text.startswith("/") or re.match(r"^[A-Za-z]:", text) or ".." in path.parts or "\0" in text:
        raise BundleError(f"it holds a file that would be written outside its folder ({name!r}): refused, as an "
                          "attack (zip-slip)")
    return path


def open_bundle(path: str | os.PathLike[str]) -> Bundle:
    """The bundle at ``path``, its manifest and zip checked (see the module docstring); nothing is written.
    Raises :class:`BundleError` (why it cannot be installed) or ``OSError``."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_BUNDLE_BYTES:
        raise BundleError(f"it is {size / 1e6:.0f} MB; a bundle is at most {MAX_BUNDLE_BYTES // 1024 ** 2} MB")
    if not zipfile.is_zipfile(path):
        raise BundleError("it is not an MCP bundle (not a zip file)")
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
            if len(entries) > MAX_FILES:
                raise BundleError(f"it holds {len(entries)} files; a bundle may hold at most {MAX_FILES}")
            total = 0
            for info in entries:
                _safe_name(info.filename)
                if stat.S_ISLNK(info.external_attr >> 16):
                    raise BundleError(f"it holds a symbolic link ({info.filename}): refused, it could point "
                                      "outside its folder")
                total += info.file_size
            if total > MAX_UNPACKED_BYTES:
                raise BundleError(f"it would unpack to {total / 1e6:.0f} MB; at most "
                                  f"{MAX_UNPACKED_BYTES // 1024 ** 2} MB is allowed")
            try:
                info = archive.getinfo("manifest.json")
            except KeyError:
                raise BundleError("it has no manifest.json at its top") from None
            if info.file_size > MAX_MANIFEST_BYTES:
                raise BundleError("its manifest.json is too large to be a manifest")
            try:
                data = json.loads(archive.read(info).decode("utf-8-sig"))
            except (ValueError, RecursionError) as exc:
                raise BundleError(f"its manifest.json is not JSON ({exc})") from None
            manifest = parse_manifest(data)
            names = {_safe_name(i.filename).as_posix() for i in entries}
            entry = PurePosixPath(manifest.entry_point.replace("\\", "/"))
            if manifest.server_type != "uv" and entry.as_posix().lstrip("./") not in names \
                    and entry.as_posix() not in names:
                raise BundleError(f"its server.entry_point {manifest.entry_point} is not in the bundle")
    except zipfile.BadZipFile as exc:
        raise BundleError(f"it is a damaged zip file ({exc})") from None
    return Bundle(path=path, manifest=manifest, files=len(entries), size=total)


# ---- what it needs ----------------------------------------------------------------------------------------


def runtime_command(manifest: Manifest) -> str | None:
    """The program a bundle's server is run with that must be on this machine (None: it is in the bundle)."""
    command = manifest.command
    if "${" in command or "/" in command or "\\" in command:
        return None
    return command


def _version_of(program: str, kind: str) -> str | None:
    code = ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"] if kind == "python" else ["--version"]
    try:
        done = subprocess.run([program, *code], capture_output=True, text=True, timeout=15, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return (done.stdout or done.stderr).strip().lstrip("v") or None


def requirements(manifest: Manifest) -> tuple[str, list[str]]:
    """The command its server will be started with (a runtime found where the app finds commands: ``python3``
    when only that exists for ``python``) and what stops it from running here (empty: nothing)."""
    from desktop_agent.core.mcp.launch import CommandNotFound, resolve

    problems = []
    command = manifest.command
    if manifest.platforms and sys.platform not in manifest.platforms:
        wanted = ", ".join(_PLATFORM_NAMES.get(p, p) for p in manifest.platforms)
        problems.append(f"it runs on {wanted} only, not on {_PLATFORM_NAMES.get(sys.platform, sys.platform)}")
    program = runtime_command(manifest)
    if program is not None:
        candidates = [program]
        if manifest.server_type in ("python", "uv") and program in ("python", "python3"):
            candidates.append("python3" if program == "python" else "python")
        found = None
        for candidate in candidates:
            try:
                found = resolve(candidate)
            except CommandNotFound:
                continue
            command = candidate
            break
        if found is None:
            try:
                resolve(program)
            except CommandNotFound as exc:
                problems.append(str(exc))
        else:
            runtimes = dict(manifest.runtimes)
            kind = "node" if program in ("node", "nodejs") else "python" if program.startswith("python") else ""
            constraint = runtimes.get(kind) if kind else None
            if constraint:
                have = _version_of(found, kind)
                if have is None:
                    problems.append(f"{found} did not say its version; the bundle needs "
                                    f"{RUNTIME_NAMES[kind]} {constraint}")
                elif not satisfies(have, constraint):
                    problems.append(f"it needs {RUNTIME_NAMES[kind]} {constraint}; {found} is {have}: install a "
                                    f"{RUNTIME_NAMES[kind]} that is")
    return command, problems


def checked_values(manifest: Manifest, given: dict[str, Any]) -> dict[str, Any]:
    """The ``user_config`` values to install with: ``given`` (text from a form or a terminal is read as its
    field's type), else the field's default. Raises :class:`BundleError` naming a required field left empty or a
    value that is not of its type or outside its bounds."""
    out: dict[str, Any] = {}
    missing = []
    for f in manifest.user_config:
        value = given.get(f.key)
        if value is None or value == "" or value == []:
            value = expand_default(f.default)
        if value is None or value == "" or value == []:
            if f.required:
                missing.append(f.title)
            continue
        if f.multiple and not isinstance(value, list):
            value = [v for v in re.split(r"[\n" + re.escape(os.pathsep) + "]", str(value)) if v.strip()] \
                if isinstance(value, str) else [value]
        if f.type == "number":
            try:
                number = None if isinstance(value, bool | list) else float(value)
            except (TypeError, ValueError):
                number = None
            if number is None:
                raise BundleError(f"{f.title} must be a number, not {value!r}")
            if (f.min is not None and number < f.min) or (f.max is not None and number > f.max):
                raise BundleError(f"{f.title} must be between {as_text(f.min)} and {as_text(f.max)}")
            value = number
        elif f.type == "boolean" and not isinstance(value, bool):
            text = str(value).strip().lower()
            if text not in ("true", "false", "yes", "no", "1", "0", "y", "n", "on", "off"):
                raise BundleError(f"{f.title} must be yes or no, not {value!r}")
            value = text in ("true", "yes", "1", "y", "on")
        elif f.type in ("directory", "file"):
            items = value if isinstance(value, list) else [value]
            items = [os.path.expanduser(str(v).strip()) for v in items]
            value = items if f.multiple else items[0]
        out[f.key] = value
    if missing:
        raise BundleError("fill in " + ", ".join(missing))
    return out


# ---- the server it becomes -----------------------------------------------------------------------------


def server_for(manifest: Manifest, folder: str, values: dict[str, Any],
               command: str | None = None) -> tuple[McpServerSettings, dict[str, str]]:
    """The server settings of a bundle unpacked in ``folder`` with ``values`` (see :func:`checked_values`), and the
    secrets to keep in the keyring (keyring name → value): every variable and argument holding a ``sensitive``
    value, besides those the import's rules find (:func:`~desktop_agent.core.mcp.config.server_from_entry`)."""
    args: list[str] = []
    for arg in manifest.args:
        whole = _WHOLE_VALUE.match(arg)
        value = values.get(whole.group(1)) if whole else None
        if whole and isinstance(value, list):
            args.extend(as_text(v) for v in value)  # a multiple value: one argument each
            continue
        text = expand(arg, folder, values)
        if whole and text == "":
            continue  # an optional value not given
        args.append(text)
    env = {}
    for key, raw in manifest.env:
        text = expand(raw, folder, values)
        if text or "${user_config." not in raw:
            env[key] = text
    name = server_name(manifest.name)
    entry = {"command": expand(command or manifest.command, folder, values), "args": args, "env": env,
             "cwd": folder}
    server, secrets = server_from_entry(name, entry)
    hidden = [as_text(values[f.key], os.pathsep) for f in manifest.user_config
              if f.sensitive and values.get(f.key) not in (None, "")]
    hidden = [h for h in hidden if h]
    if any(h in server.command for h in hidden):
        raise BundleError("the manifest puts a sensitive value into the command itself: refused")
    plain_env, secret_env = dict(server.env), list(server.secret_env)
    for key, value in list(plain_env.items()):
        if any(h in value for h in hidden):
            secrets[secret_name(name, "env", key)] = plain_env.pop(key)
            secret_env.append(key)
    plain_args, secret_args = list(server.args), set(server.secret_args)
    for i, arg in enumerate(plain_args):
        starts = [arg.find(h) for h in hidden if h in arg]
        if starts:
            key = secret_name(name, "arg", str(i))
            secrets[key] = arg[min(starts):] + secrets.get(key, "")
            plain_args[i] = arg[:min(starts)]
            secret_args.add(i)
    return server.model_copy(update={"env": plain_env, "secret_env": secret_env, "args": plain_args,
                                     "secret_args": sorted(secret_args)}), secrets


# ---- unpacking -------------------------------------------------------------------------------------------


def _unpack(bundle: Bundle, into: Path) -> None:
    """Write the bundle's files under ``into`` (its modes' executable bits kept), counting what is written."""
    written = 0
    with zipfile.ZipFile(bundle.path) as archive:
        for info in archive.infolist():
            relative = _safe_name(info.filename)
            target = into.joinpath(*relative.parts)
            if not target.resolve().is_relative_to(into.resolve()):
                raise BundleError(f"it holds a file that would be written outside its folder ({info.filename!r})")
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as src, open(target, "wb") as dst:
                while chunk := src.read(1024 * 1024):
                    written += len(chunk)
                    if written > MAX_UNPACKED_BYTES:
                        raise BundleError(f"it unpacks to more than {MAX_UNPACKED_BYTES // 1024 ** 2} MB")
                    dst.write(chunk)
            mode = (info.external_attr >> 16) & 0o777
            target.chmod((mode or 0o644) & 0o755 | 0o600)
    if bundle.manifest.server_type == "binary":
        for name in (bundle.manifest.entry_point, bundle.manifest.command):
            program = into / name.replace("${__dirname}/", "")
            if program.is_file() and program.resolve().is_relative_to(into.resolve()):
                program.chmod(program.stat().st_mode | 0o755)


def install(bundle: Bundle, given: dict[str, Any], save: Callable[[Callable[[Settings], Settings]], Any],
            secrets: SecretStore | None, *, no_keyring: NoKeyringChoice = "session") -> list[str]:
    """Install ``bundle`` with the user's ``given`` values: unpack it, then ``save(change)`` — ``change`` adds its
    server to the settings as they are then (a server of the same name replaced), its secrets stored as
    :func:`~desktop_agent.core.mcp.config.import_file` does (``no_keyring``). Lines for the user; raises
    :class:`BundleError` (and ``save``'s errors) having installed nothing."""
    manifest = bundle.manifest
    command, problems = requirements(manifest)
    if problems:
        raise BundleError("; ".join(problems))
    values = checked_values(manifest, given)
    home = bundles_dir() / bundle.server_name
    final = home / manifest.version
    staging = home / f".installing-{uuid.uuid4().hex[:8]}"
    backup = home / f".replaced-{uuid.uuid4().hex[:8]}"
    fresh_home = not home.exists()
    notes: list[str] = []
    try:
        staging.mkdir(parents=True, mode=0o700)
        _unpack(bundle, staging)
        server, hidden = server_for(manifest, str(final), values, command)

        replaced: list[bool] = []

        def change(current: Settings) -> Settings:
            replaced[:] = [any(s.name == server.name for s in current.mcp.servers)]
            new, told = store_found(Imported(servers=[server], secrets=hidden), current, secrets, no_keyring)
            notes[:] = told
            return new

        if final.exists():
            final.rename(backup)
        staging.rename(final)
        try:
            save(change)
        except BaseException:
            shutil.rmtree(final, ignore_errors=True)
            if backup.exists():
                backup.rename(final)
            if replaced == [False] and secrets is not None:  # stored, then the settings file was not written
                for key in hidden:
                    secrets.set_secret(key, None)
            raise
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if fresh_home:
            shutil.rmtree(home, ignore_errors=True)
        raise
    for old in home.iterdir():  # the version it replaced
        if old != final and old.name != VALUES_FILE:
            shutil.rmtree(old, ignore_errors=True)
    plain = {f.key: values[f.key] for f in manifest.user_config if f.key in values and not f.sensitive}
    with contextlib.suppress(OSError):  # offered again when a newer version is installed (never a sensitive value)
        (home / VALUES_FILE).write_text(json.dumps(plain, ensure_ascii=False), encoding="utf-8")
    notes.append(f"its files are in {final}")
    return notes


def previous_values(bundle: Bundle) -> dict[str, Any]:
    """The values (not the sensitive ones) the installed version of ``bundle`` was given, to offer again."""
    try:
        data = json.loads((bundles_dir() / bundle.server_name / VALUES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    fields = {f.key: f for f in bundle.manifest.user_config}
    return {k: v for k, v in data.items() if k in fields and not fields[k].sensitive} if isinstance(data, dict) \
        else {}


def uninstall_files(name: str) -> bool:
    """Delete the files of the bundle installed as server ``name``; False when there were none."""
    home = bundles_dir() / server_name(name)
    if not home.is_dir() or home.parent != bundles_dir():
        return False
    shutil.rmtree(home, ignore_errors=True)
    return True


def prune(settings: Settings) -> list[str]:
    """Delete the files of the bundles whose server is no longer in ``settings`` (removed in Settings); their
    names."""
    folder = bundles_dir()
    if not folder.is_dir():
        return []
    kept = {s.name for s in settings.mcp.servers}
    used = [str(Path(s.cwd).expanduser()) for s in settings.mcp.servers if s.cwd]  # a renamed server keeps its own
    gone = [home.name for home in folder.iterdir() if home.is_dir() and home.name not in kept
            and not any(u == str(home) or u.startswith(str(home) + os.sep) for u in used)]
    for name in gone:
        shutil.rmtree(folder / name, ignore_errors=True)
    return gone


def summary(bundle: Bundle) -> list[str]:
    """What the bundle is, for the terminal: one line each."""
    m = bundle.manifest
    lines = [f"{m.title} {m.version} by {m.author}" + (f" ({m.author_url})" if m.author_url else ""), m.description]
    runtime = RUNTIME_NAMES.get(m.server_type, "nothing else (a program of its own)")
    wanted = dict(m.runtimes).get("node" if m.server_type == "node" else "python", "")
    lines.append(f"Runs with: {runtime}{' ' + wanted if wanted and m.server_type != 'binary' else ''}"
                 + (f" · platforms: {', '.join(m.platforms)}" if m.platforms else ""))
    if m.tools:
        lines.append("Tools: " + ", ".join(t for t, _d in m.tools) + (" (and more it makes)" if m.tools_generated
                                                                       else ""))
    for f in m.user_config:
        marks = [w for w, on in (("required", f.required), ("secret", f.sensitive), ("several", f.multiple)) if on]
        lines.append(f"Asks for: {f.title} ({f.type}{', ' + ', '.join(marks) if marks else ''})")
    return lines
