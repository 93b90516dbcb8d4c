"""The glance at the settings file for the window's first frame: the same values as the real settings, or None
when only the schema can tell."""

from __future__ import annotations

import json

import pytest

from desktop_agent.core import settings as settings_module
from desktop_agent.core import settings_glance
from desktop_agent.core.settings import Settings
from desktop_agent.core.settings_glance import SettingsGlance, glance


def _as_glanced(s: Settings) -> tuple:
    return (s.backend, s.model, s.ollama.host, s.ollama.model, s.openai.base_url, s.openai.model,
            s.appearance.theme)


def _glanced(g: SettingsGlance) -> tuple:
    return (g.backend, g.model, g.ollama.host, g.ollama.model, g.openai.base_url, g.openai.model, g.appearance.theme)


def test_its_defaults_and_schema_are_the_settings_ones(tmp_path):
    assert settings_glance.SCHEMA_VERSION == settings_module.SCHEMA_VERSION
    assert _glanced(SettingsGlance()) == _as_glanced(Settings())
    seen = glance(tmp_path / "missing.json")
    assert seen is not None and _glanced(seen) == _as_glanced(Settings())


@pytest.mark.parametrize("fields", [
    {},
    {"backend": "openai", "openai_base_url": "http://127.0.0.1:8080/v1", "openai_model": "local-model"},
    {"backend": "ollama", "ollama_host": "http://10.0.0.5:11434", "ollama_model": "qwen3:0.6b", "theme": "dark"},
])
def test_a_saved_file_is_glanced_as_the_settings_read_it(tmp_path, fields):
    path = tmp_path / "settings.json"
    Settings(**fields).save(path)
    loaded, warnings = Settings.load(path)
    seen = glance(path)
    assert not warnings and seen is not None
    assert _glanced(seen) == _as_glanced(loaded)


@pytest.mark.parametrize("text", [
    '{"ollama_host": "http://localhost:11434"}',  # the first, flat schema: migrated by the settings
    '{"version": 3, "backend": "ollama"}',  # a newer schema
    '{"version": 2, "backend": "lmstudio"}',  # not a backend
    '{"version": 2, "ollama": {"model": 7}}',  # a value of another type
    '{"version": 2, "ollama": {"host": " http://h:1 "}}',  # a value the schema cleans
    '{"version": 2, "appearance": {"theme": "blue"}}',
    '{"version": 2, "ollama": []}',
    '[1, 2]',
    "{not json",
])
def test_a_file_only_the_schema_can_read_gets_no_glance(tmp_path, text):
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    assert glance(path) is None
    assert path.read_text(encoding="utf-8") == text  # the glance changes nothing


def test_a_file_with_a_byte_order_mark_is_glanced(tmp_path):
    path = tmp_path / "settings.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"version": 2, "backend": "openai"}).encode())
    seen = glance(path)
    assert seen is not None and seen.backend == "openai" and seen.model == Settings().openai.model
