"""The ``manifest.json`` of an MCP bundle (``.mcpb``, formerly ``.dxt``), read and checked.

Specification followed: the MCPB manifest spec, ``MANIFEST.md`` of github.com/modelcontextprotocol/mcpb (manifest
versions 0.1–0.4; current 0.3, ``uv`` servers 0.4). Required: ``manifest_version`` (or the older ``dxt_version``),
``name``, ``version``, ``description``, ``author.name``, ``server`` {``type``: node / python / binary / uv,
``entry_point``, ``mcp_config`` {``command``, ``args``, ``env``, ``platform_overrides``}} (``mcp_config`` may be
left out for ``uv``). Optional and shown: ``display_name``, ``author.url``, ``homepage``, ``license``, ``tools``
[{name, description}], ``tools_generated``, ``compatibility`` {``platforms`` [darwin, win32, linux], ``runtimes``
{python, node}}, ``user_config`` {KEY: {type string / number / boolean / directory / file, title, description,
required, sensitive, default, multiple, min, max}}.

Variables in ``mcp_config`` (see :func:`expand`): ``${__dirname}`` (the unpacked bundle), ``${HOME}``,
``${DESKTOP}``, ``${DOCUMENTS}``, ``${DOWNLOADS}``, ``${pathSeparator}`` / ``${/}`` and ``${user_config.KEY}``
(an argument that is only a ``multiple`` value becomes one argument per value). A ``${user_config.KEY}`` the
manifest does not declare is a bad manifest."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SERVER_TYPES = ("node", "python", "binary", "uv")
FIELD_TYPES = ("string", "number", "boolean", "directory", "file")
PLATFORMS = ("darwin", "win32", "linux")
#: a manifest larger than this is not a manifest
MAX_MANIFEST_BYTES = 1024 * 1024
VARIABLE = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"^[A-Za-z0-9@][A-Za-z0-9 _.@/+-]{0,99}$")
_VERSION = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.+-]{0,39}$")


class BundleError(ValueError):
    """The bundle cannot be installed; the message says why (nothing was installed)."""


@dataclass(frozen=True)
class UserField:
    """One ``user_config`` entry: what the user is asked for."""

    key: str
    type: str
    title: str
    description: str = ""
    required: bool = False
    sensitive: bool = False
    multiple: bool = False
    default: Any = None
    min: float | None = None
    max: float | None = None


@dataclass(frozen=True)
class Manifest:
    """What a bundle says about itself and how its server runs."""

    manifest_version: str
    name: str
    version: str
    description: str
    author: str
    server_type: str
    entry_point: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    display_name: str = ""
    author_url: str = ""
    homepage: str = ""
    license: str = ""
    tools: tuple[tuple[str, str], ...] = ()
    tools_generated: bool = False
    platforms: tuple[str, ...] = ()
    runtimes: tuple[tuple[str, str], ...] = ()
    user_config: tuple[UserField, ...] = field(default_factory=tuple)

    @property
    def title(self) -> str:
        return self.display_name or self.name

    def field(self, key: str) -> UserField | None:
        return next((f for f in self.user_config if f.key == key), None)


def _text(data: dict[str, Any], key: str, where: str = "", *, required: bool = False) -> str:
    value = data.get(key)
    if value is None or value == "":
        if required:
            raise BundleError(f"the manifest has no {where}{key}")
        return ""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise BundleError(f"the manifest's {where}{key} must be text")
    return str(value).strip()


def _strings(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str | int | float) for v in value):
        raise BundleError(f"the manifest's {what} must be a list of strings")
    return [str(v) for v in value]


def _env(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BundleError(f"the manifest's {what} must be an object of names and values")
    return {str(k): "" if v is None else str(v) for k, v in value.items()}


def _user_field(key: str, raw: Any) -> UserField:
    if not isinstance(raw, dict):
        raise BundleError(f"the manifest's user_config.{key} must be an object")
    kind = raw.get("type")
    if kind not in FIELD_TYPES:
        raise BundleError(f"the manifest's user_config.{key} has type {kind!r}; the types are "
                          + ", ".join(FIELD_TYPES))
    bounds = {}
    for side in ("min", "max"):
        value = raw.get(side)
        if value is not None and (not isinstance(value, int | float) or isinstance(value, bool)):
            raise BundleError(f"the manifest's user_config.{key}.{side} must be a number")
        bounds[side] = float(value) if value is not None else None
    return UserField(key=key, type=kind, title=str(raw.get("title") or key), description=str(raw.get("description")
                     or ""), required=bool(raw.get("required", False)), sensitive=bool(raw.get("sensitive", False)),
                     multiple=bool(raw.get("multiple", False)), default=raw.get("default"), **bounds)


def parse_manifest(data: Any) -> Manifest:
    """``data`` (the manifest's JSON) checked and read. Raises :class:`BundleError` saying what is wrong."""
    if not isinstance(data, dict):
        raise BundleError("manifest.json is not a JSON object")
    version = _text(data, "manifest_version") or _text(data, "dxt_version")
    if not version:
        raise BundleError("the manifest has no manifest_version")
    name = _text(data, "name", required=True)
    if not _NAME.match(name):
        raise BundleError(f"the manifest's name {name!r} is not a name (letters, digits, '-', '_', '.', at most 100)")
    bundle_version = _text(data, "version", required=True)
    if not _VERSION.match(bundle_version):
        raise BundleError(f"the manifest's version {bundle_version!r} is not a version number")
    author = data.get("author")
    if not isinstance(author, dict) or not str(author.get("name") or "").strip():
        raise BundleError("the manifest has no author.name")
    server = data.get("server")
    if not isinstance(server, dict):
        raise BundleError("the manifest has no server object")
    kind = server.get("type")
    if kind not in SERVER_TYPES:
        raise BundleError(f"the manifest's server.type is {kind!r}; this app runs " + ", ".join(SERVER_TYPES))
    entry_point = _text(server, "entry_point", "server.", required=True)
    config = server.get("mcp_config")
    if config is None and kind == "uv":
        config = {"command": "uv", "args": ["run", "--directory", "${__dirname}", entry_point]}
    if not isinstance(config, dict):
        raise BundleError("the manifest has no server.mcp_config object")
    overrides = config.get("platform_overrides") or {}
    if not isinstance(overrides, dict):
        raise BundleError("the manifest's server.mcp_config.platform_overrides must be an object")
    mine = overrides.get(sys.platform) or {}
    if not isinstance(mine, dict):
        raise BundleError(f"the manifest's platform_overrides.{sys.platform} must be an object")
    command = _text(mine, "command", "platform_overrides.") or _text(config, "command", "server.mcp_config.",
                                                                      required=True)
    args = _strings(mine.get("args") if "args" in mine else config.get("args"), "server.mcp_config.args")
    env = {**_env(config.get("env"), "server.mcp_config.env"), **_env(mine.get("env"), "platform_overrides env")}
    raw_fields = data.get("user_config") or {}
    if not isinstance(raw_fields, dict):
        raise BundleError("the manifest's user_config must be an object")
    fields = tuple(_user_field(str(k), v) for k, v in raw_fields.items())
    declared = {f.key for f in fields}
    for text in [command, *args, *env.values()]:
        for var in VARIABLE.findall(text):
            if var.startswith("user_config.") and var.removeprefix("user_config.") not in declared:
                raise BundleError(f"the manifest's mcp_config uses ${{{var}}}, which its user_config does not declare")
    tools = []
    for tool in data.get("tools") or []:
        if isinstance(tool, dict) and tool.get("name"):
            tools.append((str(tool["name"]), str(tool.get("description") or "")))
        elif isinstance(tool, str):
            tools.append((tool, ""))
    compat = data.get("compatibility") or {}
    if not isinstance(compat, dict):
        raise BundleError("the manifest's compatibility must be an object")
    platforms = _strings(compat.get("platforms"), "compatibility.platforms")
    runtimes = compat.get("runtimes") or {}
    if not isinstance(runtimes, dict):
        raise BundleError("the manifest's compatibility.runtimes must be an object")
    return Manifest(
        manifest_version=version, name=name, version=bundle_version,
        description=_text(data, "description", required=True), author=str(author["name"]).strip(),
        author_url=str(author.get("url") or ""), server_type=str(kind), entry_point=entry_point,
        command=command, args=tuple(args), env=tuple(env.items()), display_name=_text(data, "display_name"),
        homepage=_text(data, "homepage"), license=_text(data, "license"), tools=tuple(tools),
        tools_generated=bool(data.get("tools_generated", False)), platforms=tuple(platforms),
        runtimes=tuple((str(k), str(v)) for k, v in runtimes.items()), user_config=fields)


def places() -> dict[str, str]:
    """The variables every manifest may use besides ``${__dirname}`` and ``${user_config.…}``."""
    home = str(Path.home())
    return {"HOME": home, "DESKTOP": os.path.join(home, "Desktop"), "DOCUMENTS": os.path.join(home, "Documents"),
            "DOWNLOADS": os.path.join(home, "Downloads"), "pathSeparator": os.sep, "/": os.sep}


def as_text(value: Any, sep: str = ",") -> str:
    """A user_config value as it goes into an argument or variable (true/false, 10 not 10.0, lists joined)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return sep.join(as_text(v) for v in value)
    return "" if value is None else str(value)


def expand(text: str, folder: str, values: dict[str, Any]) -> str:
    """``text`` with the manifest's variables replaced (an unknown one is left as it is)."""
    known = places()

    def one(match: re.Match[str]) -> str:
        var = match.group(1)
        if var == "__dirname":
            return folder
        if var.startswith("user_config."):
            return as_text(values.get(var.removeprefix("user_config.")), os.pathsep)
        return known.get(var, match.group(0))

    return VARIABLE.sub(one, text)


def expand_default(value: Any) -> Any:
    """A ``user_config`` default with ``${HOME}`` and the like replaced."""
    if isinstance(value, str):
        return VARIABLE.sub(lambda m: places().get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [expand_default(v) for v in value]
    return value


def satisfies(version: str, constraint: str) -> bool:
    """``version`` ("20.11.1", "3.11.4") meets ``constraint`` (">=16.0.0", ">=3.8,<4.0", "^1.2"); a part that
    cannot be read does not block."""
    have = _numbers(version)
    for part in re.split(r"[,\s]+", constraint.strip()):
        match = re.match(r"^(>=|<=|==|=|>|<|\^|~=|~)?v?(\d+(?:\.\d+)*)", part)
        if not match:
            continue
        op, want = match.group(1) or "==", _numbers(match.group(2))
        size = max(len(have), len(want))
        a, b = have + (0,) * (size - len(have)), want + (0,) * (size - len(want))
        ok = {">=": a >= b, ">": a > b, "<=": a <= b, "<": a < b, "==": a[:len(want)] == want,
              "=": a[:len(want)] == want, "^": a >= b and a[:1] == want[:1],
              "~": a >= b and a[:2] == want[:2], "~=": a >= b and a[:max(1, len(want) - 1)] == want[:max(1, len(
                  want) - 1)]}[op]
        if not ok:
            return False
    return True


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version)[:4])
