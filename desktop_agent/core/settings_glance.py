"""A glance at the settings file for the window's first frame: the backend, its model and server, theme, language —
read with :mod:`json` alone, without the settings schema (:mod:`desktop_agent.core.settings` imports pydantic,
the largest part of start-up).

The glance only decides what the first frame shows; the window then loads the real settings
(:func:`desktop_agent.core.services.load_settings`: validation, migration, layering) and shows those. So it
answers None whenever what it shows could differ from them: a file it cannot read as the current grouped
schema (missing version, an older or newer schema, not an object, unreadable) or a value of an unexpected type
— then the window loads the settings first, as before. The hosts are the file's: an ``OLLAMA_HOST`` in the
environment is layered over them with the real settings (core/services.py), and the frame shows a host only
in a tooltip, set again then. Its defaults are :class:`~desktop_agent.core.settings.Settings`' (a test keeps
them equal).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from desktop_agent.core import paths

#: the grouped settings schema the glance understands (core.settings.SCHEMA_VERSION; a test keeps them equal)
SCHEMA_VERSION = 2

_G = TypeVar("_G", bound="_Glance")


class _Glance:
    """A few settings of one group, as attributes; keyword arguments set them, missing ones keep the default
    (a plain class: a dataclass costs a millisecond of start-up each)."""

    def __init__(self, **values: str):
        for key, value in values.items():
            if key not in type(self).__annotations__:
                raise TypeError(key)
            setattr(self, key, value)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash(tuple(sorted(vars(self).items())))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in type(self).__annotations__)})"

    @classmethod
    def defaults(cls) -> dict[str, str]:
        return {key: getattr(cls, key) for key in cls.__annotations__}


class OllamaGlance(_Glance):
    host: str = "http://localhost:11434"
    model: str = "llama3.2"


class OpenAIGlance(_Glance):
    base_url: str = "https://api.openai.com/v1"
    model: str = "gpt-4o-mini"


class AppearanceGlance(_Glance):
    theme: str = "system"
    language: str = "system"


class SettingsGlance:
    """The few settings of the first frame, with the attribute paths of
    :class:`~desktop_agent.core.settings.Settings` (``glance.ollama.host``, ``glance.model``)."""

    def __init__(self, backend: str = "ollama", ollama: OllamaGlance | None = None,
                 openai: OpenAIGlance | None = None, appearance: AppearanceGlance | None = None):
        self.backend = backend
        self.ollama = ollama or OllamaGlance()
        self.openai = openai or OpenAIGlance()
        self.appearance = appearance or AppearanceGlance()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SettingsGlance) and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]

    @property
    def model(self) -> str:
        """The model of the chosen backend."""
        return self.ollama.model if self.backend == "ollama" else self.openai.model


def _group(data: dict, name: str, cls: type[_G], choices: dict[str, tuple[str, ...]] | None = None) -> _G:
    raw = data.get(name, {})
    if not isinstance(raw, dict):
        raise ValueError(name)
    fields = {}
    for key, default in cls.defaults().items():
        value = raw.get(key, default)
        if not isinstance(value, str) or not value.strip() or value != value.strip():
            raise ValueError(f"{name}.{key}")  # a value the schema would clean or reject: ask the schema
        if choices and key in choices and value not in choices[key]:
            raise ValueError(f"{name}.{key}")
        fields[key] = value
    return cls(**fields)


def glance(path: Path | None = None) -> SettingsGlance | None:
    """The first frame's settings from the file (default: the settings file), or None when only the real
    settings can tell (see the module doc)."""
    path = path or paths.settings_file()
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return SettingsGlance()
    except (OSError, UnicodeDecodeError):
        return None
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("version") != SCHEMA_VERSION:
            return None
        backend = data.get("backend", "ollama")
        if backend not in ("ollama", "openai"):
            return None
        return SettingsGlance(
            backend=backend,
            ollama=_group(data, "ollama", OllamaGlance),
            openai=_group(data, "openai", OpenAIGlance),
            appearance=_group(data, "appearance", AppearanceGlance, {"theme": ("system", "light", "dark"),
                                                                       "language": ("system", "en", "zh_CN")}),
        )
    except (ValueError, RecursionError):
        return None
