"""Settings: a grouped, schema-versioned pydantic model saved as one JSON file in the user config dir.

No secret is ever a field here: API keys live in :mod:`desktop_agent.core.secrets`.

Reading never loses the user's data:

- a file of the first, flat schema (``{"ollama_host": ..., "max_steps": ...}``) is migrated to the grouped
  one (``{"version": 2, "ollama": {"host": ...}, "loop": {"max_steps": ...}}``) — every value kept;
- one invalid value (say a ``keep_alive`` that does not parse) costs only that value: it is reset to its
  default, the others are kept, a warning names the value and why, and a copy of the file as it was is kept
  beside it (``settings.json.bad-<time>``);
- a file that is not a JSON object at all gives the defaults, and is moved aside, never overwritten.

Layering (file, environment, command-line flags) is not done here but in :mod:`desktop_agent.core.services`,
which also owns the file's saves (only what changed, on top of the file as it is now, under a lock).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from desktop_agent.core import paths
from desktop_agent.core.urls import check_url as check_url  # re-exported: the URL rules live in core/urls.py
from desktop_agent.core.urls import clean_base_url, clean_ollama_host

#: the version of the grouped settings schema written by this code
SCHEMA_VERSION = 2

#: The system prompt the assistant starts with (when tools are offered, :data:`TOOLS_PROMPT` follows it).
DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant on the user's desktop. Answer clearly and to the point; use Markdown "
    "(lists, code blocks) when it helps."
)
#: What the default system prompt adds when the model is offered tools.
TOOLS_PROMPT = (
    "You can call tools. Use one when it gives a better answer (today's date, the weather, exact "
    "arithmetic…), then answer in your own words using what it returned."
)
#: the first default, which asked for "a short, coherent sentence" even for lists and code: a file that
#: still holds it word for word gets the current default
_FIRST_DEFAULT_PROMPT = (
    "You are a helpful AI assistant. When using tools, always provide a natural, complete response "
    "using the information gathered.\nFormat your response as a short, coherent sentence."
)

OPENAI_PRESETS: dict[str, str] = {
    "OpenAI": "https://api.openai.com/v1",
    "DeepSeek": "https://api.deepseek.com/v1",
    "LM Studio": "http://localhost:1234/v1",
    "llama.cpp server": "http://localhost:8080/v1",
    "vLLM": "http://localhost:8000/v1",
}


#: a Go duration as Ollama parses ``keep_alive`` strings (time.ParseDuration): "5m", "1h30m", "-1m", "0"
_GO_DURATION = re.compile(r"^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$")


def check_keep_alive(value: int | str) -> int | str:
    """Seconds (int) or an Ollama duration string; ValueError saying what is accepted."""
    if isinstance(value, bool):
        raise ValueError("keep_alive must be a number of seconds or a duration like 5m")
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    if _GO_DURATION.fullmatch(text):
        return text
    raise ValueError(
        f"'{text}' is not a keep_alive value: use seconds (-1 = keep loaded, 0 = unload at once) "
        "or a duration like 5m, 1h30m"
    )


class _Group(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class OllamaSettings(_Group):
    host: str = "http://localhost:11434"
    model: str = "llama3.2"
    #: seconds (int, -1 = keep loaded forever) or an Ollama duration string ("5m")
    keep_alive: int | str = -1
    #: seconds to wait for the first data of an answer (it includes loading the model); then the turn
    #: fails with "did not answer within N s" instead of waiting forever on a stuck server
    timeout_s: float = Field(300.0, gt=0)
    #: seconds to wait for the next data once the answer streams (keep-alives do not count); then the
    #: turn ends with the partial answer kept and "the server stopped responding"
    next_data_timeout_s: float = Field(60.0, gt=0)

    @field_validator("host")
    @classmethod
    def _host(cls, value: str) -> str:
        return clean_ollama_host(value)

    @field_validator("keep_alive")
    @classmethod
    def _keep_alive(cls, value: int | str) -> int | str:
        return check_keep_alive(value)


class OpenAISettings(_Group):
    base_url: str = "https://api.openai.com/v1"
    model: str = "gpt-4o-mini"
    #: whether the provider needs an API key (local servers don't: a placeholder key is sent)
    needs_key: bool = True
    #: seconds to wait for the first data of an answer (connecting included): long, as Ollama's — a local server
    #: may be loading the model or reading a long prompt, and an answer that is not streamed comes all at once
    timeout_s: float = Field(300.0, gt=0)
    #: seconds to wait for the next data once the answer streams (keep-alive comments do not count)
    next_data_timeout_s: float = Field(60.0, gt=0)
    retries_per_key: int = Field(2, ge=0, le=10)
    retry_interval_s: float = Field(1.0, ge=0)
    #: send content null (instead of "") on assistant tool-call messages (some servers insist on it)
    null_tool_content: bool = False

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str) -> str:
        return clean_base_url(value)


class GenerationSettings(_Group):
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    #: None or "json" (Ollama's `format`)
    format: Literal["json"] | None = None
    #: Ollama's `think` (None = the model's default)
    think: bool | None = None


class LoopSettings(_Group):
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    #: at most this many history messages per request (0: no count limit — the token budget decides)
    max_history_messages: int = Field(0, ge=0)
    max_steps: int = Field(8, ge=1, le=100)
    tool_choice: str = "auto"


class ToolSettings(_Group):
    enabled: bool = True
    #: names of tools not offered to the model (the others still are)
    disabled: list[str] = Field(default_factory=list)
    dirs: list[str] = Field(default_factory=list)
    timeout_s: float = Field(30.0, gt=0)
    output_cap: int = Field(16_000, ge=256)
    #: folders the file and shell tools may work in (none by default: they refuse until the user adds one)
    allowed_folders: list[str] = Field(default_factory=list)
    #: run Python tools in a separate tool-host process (a crashing or hanging tool cannot take the app down)
    isolated: bool = True
    #: with more tools than this, a turn offers the most relevant ones and find_tools for the rest (small models
    #: stop calling tools when offered dozens); 0 = always offer all
    max_offered: int = Field(12, ge=0, le=1000)
    #: each message is offered only the few tools that fit it, or none ("What is the capital of France?" is
    #: answered without tools); off: every tool is offered on every message
    only_relevant: bool = True
    #: offer tools even to a model that cannot use them as its server says, or as the app learned (a chat's
    #: Tools menu: Offer tools anyway)
    offer_anyway: bool = False


class ModelSettings(_Group):
    """Context windows and what models may be offered (see :mod:`desktop_agent.core.model_info`)."""

    #: Ollama: the largest context window asked for (``options.num_ctx``); a larger one costs memory
    max_window: int = Field(8192, ge=256)
    #: the window of a model whose server does not say (OpenAI-compatible servers mostly)
    default_window: int = Field(8192, ge=256)
    #: per-model windows (model name → tokens), used before what a server reports
    windows: dict[str, int] = Field(default_factory=dict)
    #: summarise earlier messages automatically when a chat outgrows its window
    auto_compact: bool = True
    #: models offered tools / thinking although their server says they cannot use them (the user's choice)
    tools_anyway: list[str] = Field(default_factory=list)
    think_anyway: list[str] = Field(default_factory=list)

    @field_validator("windows")
    @classmethod
    def _windows(cls, value: dict[str, int]) -> dict[str, int]:
        bad = [name for name, tokens in value.items() if tokens < 256]
        if bad:
            raise ValueError(f"the window of {', '.join(bad)} is below 256 tokens")
        return value

    def window_setting(self, model: str) -> int | None:
        """The window set for ``model`` (also found without an Ollama ``:latest`` tag)."""
        return self.windows.get(model) or self.windows.get(model.removesuffix(":latest"))


class AppearanceSettings(_Group):
    theme: Literal["system", "light", "dark"] = "system"
    #: the window's language: the system's (its locale), English or Simplified Chinese; applies at the next start
    language: Literal["system", "en", "zh_CN"] = "system"


class DesktopSettings(_Group):
    """How the app lives on the desktop: ``tray``: an icon in the system tray, and closing the window keeps the app
    running there (off by default; only where the desktop has a tray); ``notifications``: a desktop notification
    when a long answer ends while the window is not active."""

    tray: bool = False
    notifications: bool = True


class Preset(_Group):
    """An assistant to start a chat with (see :mod:`desktop_agent.core.presets`): a system prompt, and optionally a
    backend and model, a temperature and the tools it offers (None / empty: what Settings say). ``id`` names it
    for good (a shipped preset keeps its id when edited, so Reset finds its shipped version)."""

    id: str = Field(min_length=1, max_length=40, pattern=r"^[a-z0-9][a-z0-9_-]*$")
    name: str = Field(min_length=1, max_length=60)
    system_prompt: str = ""
    backend: Literal["ollama", "openai"] | None = None
    model: str = ""
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    #: tools on (True) or off (False) in its chats; None: as Settings say
    tools: bool | None = None
    #: names of tools its chats do not offer
    disabled_tools: list[str] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("a preset needs a name")
        return value


def _no_second(items: list[Any], key: Callable[[Any], str], message: str) -> None:
    """Raise for the first entry whose ``key`` an earlier entry has: the error names that entry (its ``index``),
    so loading drops only it and keeps the others (:func:`_validate_keeping_good_values`)."""
    seen: set[str] = set()
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            raise PydanticCustomError("duplicate", message, {"name": k, "index": i})
        seen.add(k)


class PresetSettings(_Group):
    """The user's presets and their edits of the shipped ones (``items``: a preset with a shipped preset's id
    replaces it), and the shipped ones they deleted (``removed``)."""

    items: list[Preset] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)

    @field_validator("items")
    @classmethod
    def _unique(cls, items: list[Preset]) -> list[Preset]:
        _no_second(items, lambda p: p.id, "two presets have the same id ({name})")
        _no_second(items, lambda p: p.name.casefold(), "two presets have the same name ({name})")
        return items


class McpServerSettings(_Group):
    """One MCP server: a stdio ``command`` with ``args``, ``env`` and ``cwd`` — or a Streamable HTTP ``url`` with
    ``headers``. The values of the names in ``secret_env`` / ``secret_headers`` are in the OS keyring, not here;
    so is the end of each argument whose index is in ``secret_args`` (the server gets ``args[i]`` + the secret:
    ``--token=`` + the token), and with ``secret_url`` the whole URL (``url`` is then shown without its
    credentials). See :mod:`desktop_agent.core.mcp.config`."""

    name: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$")
    enabled: bool = True
    command: str = ""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    secret_env: list[str] = Field(default_factory=list)
    secret_headers: list[str] = Field(default_factory=list)
    secret_args: list[int] = Field(default_factory=list)
    secret_url: bool = False
    #: the OAuth client id the user registered with this server's authorization server (pasted in Settings → MCP);
    #: empty: the app registers itself (see :mod:`desktop_agent.core.mcp.oauth`)
    oauth_client_id: str = ""

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if bool(self.command.strip()) == bool(self.url.strip()):
            raise ValueError("an MCP server needs either a command (stdio) or a URL (Streamable HTTP)")
        if self.url:
            check_url(self.url)
        return self


class McpSettings(_Group):
    enabled: bool = True
    servers: list[McpServerSettings] = Field(default_factory=list)
    #: seconds a server may take to start and list its tools
    start_timeout_s: float = Field(30.0, gt=0)

    @field_validator("servers")
    @classmethod
    def _unique_names(cls, servers: list[McpServerSettings]) -> list[McpServerSettings]:
        _no_second(servers, lambda s: s.name, "two MCP servers have the same name ({name})")
        return servers


#: the first, flat schema's field → (group, field) of the grouped one
FLAT_FIELDS: dict[str, tuple[str, str]] = {
    "ollama_host": ("ollama", "host"),
    "ollama_model": ("ollama", "model"),
    "keep_alive": ("ollama", "keep_alive"),
    "ollama_timeout_s": ("ollama", "timeout_s"),
    "openai_base_url": ("openai", "base_url"),
    "openai_model": ("openai", "model"),
    "openai_needs_key": ("openai", "needs_key"),
    "openai_timeout_s": ("openai", "timeout_s"),
    "openai_retries_per_key": ("openai", "retries_per_key"),
    "openai_retry_interval_s": ("openai", "retry_interval_s"),
    "openai_null_tool_content": ("openai", "null_tool_content"),
    "temperature": ("generation", "temperature"),
    "format": ("generation", "format"),
    "think": ("generation", "think"),
    "system_prompt": ("loop", "system_prompt"),
    "max_history_messages": ("loop", "max_history_messages"),
    "max_steps": ("loop", "max_steps"),
    "tool_choice": ("loop", "tool_choice"),
    "tools_enabled": ("tools", "enabled"),
    "tools_dirs": ("tools", "dirs"),
    "tool_timeout_s": ("tools", "timeout_s"),
    "tool_output_cap": ("tools", "output_cap"),
}


def migrate(data: Mapping[str, Any]) -> dict[str, Any]:
    """A settings mapping of any known schema → the grouped schema (values untouched, version set). A
    flat key wins over the same value inside its group (it was written later, by the first schema's code)."""
    out: dict[str, Any] = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in data.items()
                           if k not in FLAT_FIELDS}
    for key, value in data.items():
        if key in FLAT_FIELDS:
            group, name = FLAT_FIELDS[key]
            if not isinstance(out.get(group), dict):
                out[group] = {}
            out[group][name] = value
    loop = out.get("loop")
    if isinstance(loop, dict) and loop.get("system_prompt") == _FIRST_DEFAULT_PROMPT:
        del loop["system_prompt"]
    out["version"] = SCHEMA_VERSION
    return out


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    version: int = SCHEMA_VERSION
    backend: Literal["ollama", "openai"] = "ollama"
    ollama: OllamaSettings = Field(default_factory=OllamaSettings)
    openai: OpenAISettings = Field(default_factory=OpenAISettings)
    generation: GenerationSettings = Field(default_factory=GenerationSettings)
    loop: LoopSettings = Field(default_factory=LoopSettings)
    tools: ToolSettings = Field(default_factory=ToolSettings)
    models: ModelSettings = Field(default_factory=ModelSettings)
    appearance: AppearanceSettings = Field(default_factory=AppearanceSettings)
    desktop: DesktopSettings = Field(default_factory=DesktopSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    presets: PresetSettings = Field(default_factory=PresetSettings)

    @model_validator(mode="before")
    @classmethod
    def _migrate(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and any(key in FLAT_FIELDS for key in data):
            return migrate(data)
        return data

    @property
    def model(self) -> str:
        """The model of the chosen backend."""
        return self.ollama.model if self.backend == "ollama" else self.openai.model

    @property
    def model_field(self) -> str:
        """The dotted name of the chosen backend's model setting (``ollama.model`` / ``openai.model``)."""
        return f"{self.backend}.model"

    def updated(self, changes: Mapping[str, Any]) -> Settings:
        """A validated copy with ``changes`` applied; keys are dotted paths (``"ollama.host"``) or
        top-level fields (``"backend"``). Raises pydantic ``ValidationError`` for a bad value."""
        data = self.model_dump()
        for key, value in changes.items():
            group, _, name = key.partition(".")
            if name:
                if group not in data or not isinstance(data[group], dict):
                    raise KeyError(f"no settings group {group!r}")
                data[group][name] = value
            else:
                data[key] = value
        return Settings.model_validate(data)

    def get(self, key: str) -> Any:
        """The value at a dotted path (``"ollama.host"``)."""
        obj: Any = self
        for part in key.split("."):
            obj = getattr(obj, part)
        return obj

    # ---- file I/O -------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path | None = None) -> tuple[Settings, list[str]]:
        """Read settings; returns ``(settings, warnings)``. Never raises for a bad file."""
        path = path or paths.settings_file()
        if not path.exists():
            return cls(), []
        try:
            text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Windows editors) is not damage
        except UnicodeDecodeError as exc:  # not text: damaged
            where = _move_aside(path)
            return cls(), [f"The settings file could not be read ({_reason(exc)}); defaults are used and {where}."]
        except OSError as exc:  # unreadable right now (permissions): the file itself may be fine — leave it
            return cls(), [f"The settings file {path} could not be read ({_reason(exc)}); defaults are used for "
                           "this session and the file is left as it is."]
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("the file does not hold a JSON object")
        except (ValueError, RecursionError) as exc:
            where = _move_aside(path)
            return cls(), [f"The settings file could not be read ({_reason(exc)}); defaults are used and {where}."]
        if isinstance(data.get("version"), int) and data["version"] > SCHEMA_VERSION:
            return cls(), [
                f"The settings file was written by a newer version of desktop-agent (schema {data['version']}); "
                f"defaults are used for this session and the file is left as it is ({path})."
            ]
        flat = "version" not in data
        settings, warnings = _validate_keeping_good_values(migrate(data))
        if warnings:
            copy = _copy_aside(path)
            warnings = [f"{w} (the file as it was is kept at {copy})" if copy else w for w in warnings]
        elif flat and data:
            try:  # write the grouped form now, keeping the old file beside it
                shutil.copy2(path, path.with_name(f"{path.name}.v1-backup"))
                settings.save(path)
            except OSError:
                pass  # read-only config folder: migrate in memory again next time
        return settings, warnings

    def save(self, path: Path | None = None) -> Path:
        """Write atomically (temporary file in the same folder, then ``os.replace``). A file written by a newer
        version is never replaced: :class:`NewerSettingsFile` (an OSError) says so."""
        path = path or paths.settings_file()
        if path.is_symlink():  # a dotfiles manager's link: write the file it points to, keep the link
            path = path.resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        newer = _file_version(path)
        if newer is not None and newer > SCHEMA_VERSION:
            raise NewerSettingsFile(path, newer)
        text = json.dumps(self.model_dump(mode="json"), indent=2, ensure_ascii=False)
        fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path


def read_saved(path: Path | None = None) -> Settings:
    """The saved settings as they are now, for a reader that must change nothing (a tool asking for its
    allowed folders, possibly in another process): a bad value costs only itself, a damaged or missing file
    gives the defaults, and — unlike :meth:`Settings.load` — no file is ever moved, copied or rewritten."""
    path = path or paths.settings_file()
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return Settings()
    if not isinstance(data, dict) or (isinstance(data.get("version"), int) and data["version"] > SCHEMA_VERSION):
        return Settings()
    settings, _warnings = _validate_keeping_good_values(migrate(data))
    return settings


class NewerSettingsFile(OSError):
    """The settings file was written by a newer version of the app: this one does not overwrite it."""

    def __init__(self, path: Path, version: int):
        super().__init__(f"{path} was written by a newer version of desktop-agent (settings schema {version}); "
                         "it is not overwritten — changes apply to this session only")
        self.path, self.version = path, version


def _file_version(path: Path) -> int | None:
    """The schema version of the settings file at ``path``, or None when there is none to read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, int) else None


def _validate_keeping_good_values(data: dict[str, Any]) -> tuple[Settings, list[str]]:
    """Validate ``data``; each invalid value is dropped (its default is used) with a warning naming it."""
    warnings: list[str] = []
    for _ in range(64):  # each round drops at least one bad value
        try:
            return Settings.model_validate(data), warnings
        except ValidationError as exc:
            dropped = False
            found_warnings: list[str] = []
            # the last entries of a list first: dropping one does not move the others an error points at
            for err in sorted(exc.errors(), key=_loc_key, reverse=True):
                loc = [str(p) for p in err.get("loc", ())]
                entry = (err.get("ctx") or {}).get("index")
                if isinstance(entry, int):  # a list's error that names its bad entry: only that entry goes
                    loc.append(str(entry))
                found = _drop(data, loc) if loc else None
                if found is None:
                    continue
                dropped = True
                name, item = found
                why = _clean(str(err.get("msg", "invalid value")))
                if item is not None:
                    found_warnings.append(f"Entry {item + 1} of the setting {name} was dropped: {why}.")
                    continue
                shown = ""
                if _has_default(name):
                    default = Settings().get(name)
                    shown = " to its defaults" if isinstance(default, BaseModel) else \
                        f" to its default ({json.dumps(default, ensure_ascii=False)})"
                found_warnings.append(f"The setting {name} was reset{shown}: {why}.")
            warnings.extend(reversed(found_warnings))
            if not dropped:
                break
    return Settings(), [*warnings, "The settings file could not be read; defaults are used."]


def _loc_key(err: Any) -> list[tuple[int, Any]]:
    """A validation error's location as a sortable key (list indexes as numbers)."""
    return [(0, p) if isinstance(p, int) else (1, str(p)) for p in err.get("loc", ())]


def _has_default(name: str) -> bool:
    try:
        Settings().get(name)
    except AttributeError:
        return False
    return True


def _drop(data: dict[str, Any], loc: list[str]) -> tuple[str, int | None] | None:
    """Remove the value a validation error's location points at, following the schema's shape: a top-level
    field, a group (when it is not an object), or a field inside a group — or one entry of a list field.
    Returns (the setting's dotted name, the list index when one entry was removed), or None when the value
    is gone already (another error about the same value)."""
    head, rest = loc[0], loc[1:]
    if head not in data:
        return None
    group = data[head]
    if not rest or not isinstance(group, dict):
        del data[head]
        return head, None
    name = rest[0]
    if name not in group:
        return None
    value = group[name]
    if isinstance(value, list) and len(rest) > 1 and rest[1].isdigit() and int(rest[1]) < len(value):
        del value[int(rest[1])]
        return f"{head}.{name}", int(rest[1])
    del group[name]
    return f"{head}.{name}", None


def _clean(text: str) -> str:
    return " ".join(text.replace("Value error, ", "").split())


def _stamped(path: Path, kind: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.{kind}-{stamp}")
    n = 1
    while aside.exists():  # never overwrite an earlier copy
        n += 1
        aside = path.with_name(f"{path.name}.{kind}-{stamp}-{n}")
    return aside


def _move_aside(path: Path) -> str:
    aside = _stamped(path, "bad")
    try:
        os.replace(path, aside)
        return f"it was moved to {aside}"
    except OSError:
        return f"it was left at {path}"


def _copy_aside(path: Path) -> Path | None:
    aside = _stamped(path, "bad")
    try:
        shutil.copy2(path, aside)
        return aside
    except OSError:
        return None


def _reason(exc: BaseException) -> str:
    """One line on why a settings file was rejected."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON: {exc.msg} at line {exc.lineno}"
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


#: The settings one chat may override (the window's quick options for that chat, its model picked while it is on
#: screen, its system prompt, a preset's choices); everything else comes from Settings for every chat.
CHAT_OPTION_KEYS: tuple[str, ...] = (
    "tools.enabled", "tools.disabled", "tools.offer_anyway", "generation.temperature", "generation.think",
    "generation.format", "backend", "ollama.model", "openai.model", "loop.system_prompt",
)


def chat_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``options`` (a chat's setting overrides, dotted keys) limited to :data:`CHAT_OPTION_KEYS` and to values
    the settings accept, normalised (``1`` → ``1.0``; tool names without repeats). Anything else is dropped: a
    chat file may choose among the configured backends and name a model, never change where requests go (hosts,
    URLs, keys)."""
    out: dict[str, Any] = {}
    if not isinstance(options, Mapping):
        return out
    base = Settings()
    for key in CHAT_OPTION_KEYS:
        if key not in options:
            continue
        try:
            value = base.updated({key: options[key]}).get(key)
        except (ValidationError, TypeError, ValueError):
            continue
        out[key] = list(dict.fromkeys(value)) if isinstance(value, list) else value
    return out


def is_loopback_url(url: str) -> bool:
    """True for ``localhost`` / ``127.x`` / ``::1`` base URLs (local servers need no API key)."""
    host = (urlparse(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")
