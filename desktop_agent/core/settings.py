"""Settings: a pydantic model saved as one JSON file in the user config dir.

No secret is ever a field here: API keys live in :mod:`desktop_agent.core.secrets`.
A bad or unreadable file gives defaults plus a warning, and the bad file is moved aside
(``settings.json.bad-<timestamp>``), never overwritten silently.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

from pydantic import BaseModel, Field, ValidationError, field_validator

from desktop_agent.core import paths

#: Seed 000's system prompt.
DEFAULT_SYSTEM_PROMPT = (
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


def _check_url(value: str) -> str:
    value = value.strip().rstrip("/")
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"'{value}' is not a URL: it needs http:// or https:// and a host")
    host = parsed.hostname or ""
    try:
        parsed.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise ValueError(f"'{value}' has an invalid port") from None
    if not host or any(c.isspace() for c in value) or not re.fullmatch(r"[\w.\-:\[\]%]+", host):
        raise ValueError(f"'{value}' is not a URL: '{host}' is not a host name")
    return value


#: a Go duration as Ollama parses ``keep_alive`` strings (time.ParseDuration): "5m", "1h30m", "-1m", "0"
_GO_DURATION = re.compile(r"^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$")


def _check_keep_alive(value: int | str) -> int | str:
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


def _reason(exc: Exception) -> str:
    """One line on why a settings file was rejected (field and message for a validation error)."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors()[:3]:
            field = ".".join(str(p) for p in err.get("loc", ())) or "value"
            parts.append(f"{field}: {err.get('msg', 'invalid')}")
        return "; ".join(parts) or "invalid values"
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON: {exc.msg} at line {exc.lineno}"
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class Settings(BaseModel):
    backend: Literal["ollama", "openai"] = "ollama"

    # Ollama
    ollama_host: str = "http://localhost:11434"
    ollama_model: str = "llama3.2"
    #: seconds (int, -1 = keep loaded forever, as in seed 000) or an Ollama duration string ("5m")
    keep_alive: int | str = -1
    #: None or "json" (Ollama's `format`)
    format: Literal["json"] | None = None
    #: Ollama's `think` (None = model default)
    think: bool | None = None
    #: seconds to wait for Ollama's next data (the first chunk includes loading the model); then the
    #: turn fails with "did not answer within N s" instead of waiting forever on a stuck server
    ollama_timeout_s: float = Field(300.0, gt=0)

    # OpenAI-compatible
    openai_base_url: str = "https://api.openai.com/v1"
    openai_model: str = "gpt-4o-mini"
    #: whether the provider needs an API key (local servers don't: a placeholder key is sent, case 21)
    openai_needs_key: bool = True
    openai_timeout_s: float = Field(60.0, gt=0)
    openai_retries_per_key: int = Field(2, ge=0, le=10)
    openai_retry_interval_s: float = Field(1.0, ge=0)
    #: send content null (instead of "") on assistant tool-call messages (case 18)
    openai_null_tool_content: bool = False

    # Generation and the loop
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    max_history_messages: int = Field(50, ge=2)
    max_steps: int = Field(8, ge=1, le=100)
    tool_choice: str = "auto"
    tool_timeout_s: float = Field(30.0, gt=0)
    tool_output_cap: int = Field(16_000, ge=256)
    tools_enabled: bool = True
    tools_dirs: list[str] = Field(default_factory=list)

    @field_validator("ollama_host", "openai_base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        return _check_url(value)

    @field_validator("keep_alive")
    @classmethod
    def _keep_alive(cls, value: int | str) -> int | str:
        return _check_keep_alive(value)

    @property
    def model(self) -> str:
        return self.ollama_model if self.backend == "ollama" else self.openai_model

    # ---- file I/O -------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path | None = None) -> tuple[Settings, list[str]]:
        """Read settings; returns ``(settings, warnings)``. Never raises for a bad file."""
        path = path or paths.settings_file()
        if not path.exists():
            return cls(), []
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("the file does not hold a JSON object")
            return cls.model_validate(data), []
        except (OSError, ValueError, ValidationError) as exc:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            aside = path.with_name(f"{path.name}.bad-{stamp}")
            n = 1
            while aside.exists():  # never overwrite an earlier bad copy
                n += 1
                aside = path.with_name(f"{path.name}.bad-{stamp}-{n}")
            try:
                os.replace(path, aside)
                where = f"it was moved to {aside}"
            except OSError:
                where = f"it was left at {path}"
            return cls(), [f"The settings file could not be read ({_reason(exc)}); defaults are used and {where}."]

    def save(self, path: Path | None = None) -> Path:
        """Write atomically (temporary file in the same folder, then ``os.replace``)."""
        path = path or paths.settings_file()
        path.parent.mkdir(parents=True, exist_ok=True)
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


def normalize_host(value: str) -> str:
    """``OLLAMA_HOST`` style values (``127.0.0.1:11434``, ``0.0.0.0``, ``http://h:1``, ``:8080``) → a
    URL. As in Ollama: no host means 127.0.0.1, no port means 11434 (http)."""
    value = value.strip()
    if "://" not in value:
        value = "http://" + value
    scheme, _, rest = value.partition("://")
    if rest.startswith(":"):  # ":8080" — Ollama reads a missing host as 127.0.0.1
        value = f"{scheme}://127.0.0.1{rest}"
    parsed = urlparse(value)
    if parsed.port is None and parsed.hostname:
        value = value.rstrip("/") + (":11434" if parsed.scheme == "http" else "")
    return value.rstrip("/")


def apply_environment(settings: Settings, environ: dict[str, str] | None = None) -> Settings:
    """Settings with ``OLLAMA_HOST`` applied (it wins over the file; command-line flags win over it).

    ``OPENAI_API_KEY`` is read by :class:`~desktop_agent.core.secrets.SecretStore`, not here.
    """
    env = os.environ if environ is None else environ
    host = env.get("OLLAMA_HOST", "").strip()
    if host:
        try:
            return settings.model_copy(update={"ollama_host": _check_url(normalize_host(host))})
        except ValueError:
            return settings
    return settings


def is_loopback_url(url: str) -> bool:
    """True for ``localhost`` / ``127.x`` / ``::1`` base URLs (local servers need no API key)."""
    host = (urlparse(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")
