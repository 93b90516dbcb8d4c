"""Settings (core/settings.py): defaults of issue 2 §7, round-trip, bad files, and no secret in the file."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ValidationError

from desktop_agent.core import paths
from desktop_agent.core.settings import DEFAULT_SYSTEM_PROMPT, OPENAI_PRESETS, Settings


def test_defaults_match_issue_2():
    s = Settings()
    assert s.backend == "ollama"
    assert s.ollama.host == "http://localhost:11434"
    assert s.ollama.model == "llama3.2"
    assert s.model == "llama3.2"
    assert s.generation.temperature == 0.0
    assert s.ollama.keep_alive == -1  # seed 000: keep the model loaded
    assert s.loop.max_history_messages == 0  # issue 13: the token budget decides, no count limit
    assert (s.models.max_window, s.models.default_window, s.models.auto_compact) == (8192, 8192, True)
    assert s.loop.max_steps == 8
    assert s.loop.system_prompt == DEFAULT_SYSTEM_PROMPT


def test_missing_file_gives_defaults_without_warning():
    settings, warnings = Settings.load()
    assert settings == Settings()
    assert warnings == []
    assert not paths.settings_file().exists()  # loading never creates the file


def test_round_trip_in_the_user_config_dir(_user_dirs):
    s = Settings(
        backend="openai",
        ollama_host="http://10.0.0.5:11434/",
        openai_base_url=OPENAI_PRESETS["DeepSeek"],
        openai_model="deepseek-chat",
        keep_alive="5m",
        temperature=0.7,
        max_history_messages=20,
        max_steps=4,
        system_prompt="Réponds en français. 中文也可以。",
        tools_dirs=["/opt/tools"],
    )
    path = s.save()
    assert path == paths.settings_file()
    assert path.is_relative_to(_user_dirs / "config")
    loaded, warnings = Settings.load()
    assert warnings == []
    assert loaded == s
    assert loaded.ollama.host == "http://10.0.0.5:11434"  # trailing slash normalised
    assert loaded.model == "deepseek-chat"
    assert "中文" in path.read_text(encoding="utf-8")  # readable UTF-8, not \\u escapes


def test_save_is_atomic_and_leaves_no_temporary_files():
    Settings().save()
    Settings(max_steps=3).save()
    files = sorted(p.name for p in paths.config_dir().iterdir())
    assert files == ["settings.json"]
    assert Settings.load()[0].loop.max_steps == 3


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("", "not valid JSON"),  # empty file
        ('{"backend": "ollama", "ollama_ho', "not valid JSON"),  # truncated write
        ("[1, 2, 3]", "JSON object"),
        (b"\xff\xfe\x00garbage", "could not be read"),
    ],
)
def test_bad_file_gives_defaults_warning_and_is_moved_aside(content, reason):
    path = paths.settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = content if isinstance(content, bytes) else content.encode()
    path.write_bytes(raw)

    settings, warnings = Settings.load()

    assert settings == Settings()
    assert len(warnings) == 1
    assert reason in warnings[0]
    assert "defaults are used" in warnings[0]
    assert not path.exists()  # not left to be overwritten by the next save
    aside = [p for p in path.parent.iterdir() if p.name.startswith("settings.json.bad-")]
    assert len(aside) == 1
    assert str(aside[0]) in warnings[0]
    assert aside[0].read_bytes() == raw  # kept byte for byte


def test_two_bad_files_in_the_same_second_are_both_kept():
    path = paths.settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    for text in ("{broken 1", "{broken 2"):
        path.write_text(text, encoding="utf-8")
        assert Settings.load()[1]
    kept = sorted(p.read_text() for p in path.parent.glob("settings.json.bad-*"))
    assert kept == ["{broken 1", "{broken 2"]


def test_no_secret_field():
    """Keys live in core/secrets.py only: no text field of Settings is named like a secret
    (``openai_needs_key`` / ``openai_retries_per_key`` are a bool and a count)."""
    groups = [Settings, *(f.annotation for f in Settings.model_fields.values() if isinstance(f.annotation, type)
                          and issubclass(f.annotation, BaseModel))]
    assert len(groups) > 5
    for group in groups:
        for name, field in group.model_fields.items():
            if any(word in name.lower() for word in ("key", "secret", "token", "password", "auth")):
                assert field.annotation in (bool, int), f"{group.__name__}.{name} looks like a secret field"


def test_a_key_in_an_old_file_is_dropped_on_save():
    """A hand-edited or foreign settings file holding a key: it is not carried into our file."""
    path = paths.settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = "sk-leaked-0123456789abcdef"
    path.write_text(json.dumps({"backend": "openai", "openai_api_key": key}), encoding="utf-8")
    settings, warnings = Settings.load()
    assert warnings == [] and settings.backend == "openai"
    settings.save()
    assert key not in path.read_text(encoding="utf-8")


def test_invalid_values_are_rejected():
    """What the settings dialog shows inline: a URL without scheme, a negative timeout, a bad keep_alive."""
    for kwargs in (
        {"ollama_host": "ftp://localhost:11434"},  # "localhost:11434" is an Ollama host form (issue 13): accepted
        {"openai_base_url": "api.openai.com/v1"},
        {"openai_timeout_s": -1},
        {"openai_retry_interval_s": -0.5},
        {"temperature": 3},
        {"max_steps": 0},
        {"keep_alive": "five minutes"},
    ):
        with pytest.raises(ValidationError):
            Settings(**kwargs)


@pytest.mark.parametrize(("value", "expected"), [(-1, -1), (0, 0), ("300", 300), ("5m", "5m"), ("1h30m", "1h30m")])
def test_keep_alive_accepts_seconds_and_durations(value, expected):
    assert Settings(keep_alive=value).ollama.keep_alive == expected


def test_presets_are_valid_base_urls():
    for name, url in OPENAI_PRESETS.items():
        assert Settings(openai_base_url=url).openai.base_url == url, name


def test_app_folders_are_created_private(tmp_path, monkeypatch):
    """Chats and settings are private: the folders the app creates are readable by the user only."""
    import stat

    from desktop_agent.core import paths

    paths.set_home(tmp_path / "fresh")
    try:
        for folder in (paths.config_dir(), paths.data_dir(), paths.cache_dir(), paths.log_dir()):
            assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0, folder
    finally:
        paths.set_home(None)


@pytest.mark.parametrize(
    ("content", "name", "kept"),
    [
        ({"openai_timeout_s": -5, "max_steps": 3}, "openai.timeout_s", ("loop.max_steps", 3)),
        ({"ollama_host": "gpu box:11434", "ollama_model": "qwen3"}, "ollama.host", ("ollama.model", "qwen3")),
        ({"backend": "gemini", "temperature": 0.5}, "backend", ("generation.temperature", 0.5)),
        ({"version": 2, "ollama": {"keep_alive": "five minutes", "model": "m"}, "loop": {"max_steps": 4}},
         "ollama.keep_alive", ("ollama.model", "m")),
    ],
)
def test_one_bad_value_costs_only_that_value(content, name, kept):
    """One invalid value is reset to its default and named in a warning; the other values are kept and the
    file is not thrown away (a copy of it as it was is kept beside it)."""
    path = paths.settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(content)
    path.write_text(raw, encoding="utf-8")

    settings, warnings = Settings.load()

    assert len(warnings) == 1 and name in warnings[0] and "reset" in warnings[0]
    assert settings.get(name) == Settings().get(name)
    assert settings.get(kept[0]) == kept[1]
    assert path.read_text(encoding="utf-8") == raw  # left as it was until the user saves
    copies = list(path.parent.glob("settings.json.bad-*"))
    assert len(copies) == 1 and copies[0].read_text(encoding="utf-8") == raw and str(copies[0]) in warnings[0]


def test_old_flat_file_is_migrated_to_groups_with_nothing_lost():
    flat = {
        "backend": "openai", "ollama_host": "http://10.0.0.5:11434", "ollama_model": "qwen3:8b", "keep_alive": "5m",
        "format": "json", "think": True, "ollama_timeout_s": 120, "openai_base_url": "http://localhost:8080/v1",
        "openai_model": "smollm2", "openai_needs_key": False, "openai_timeout_s": 30, "openai_retries_per_key": 4,
        "openai_retry_interval_s": 2.5, "openai_null_tool_content": True, "temperature": 0.7,
        "system_prompt": "Be brief.", "max_history_messages": 20, "max_steps": 5, "tool_choice": "required",
        "tool_timeout_s": 10, "tool_output_cap": 4000, "tools_enabled": False, "tools_dirs": ["/opt/tools"],
    }
    path = paths.settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(flat), encoding="utf-8")

    settings, warnings = Settings.load()

    assert warnings == []
    from desktop_agent.core.settings import FLAT_FIELDS, SCHEMA_VERSION

    assert set(FLAT_FIELDS) == set(flat) - {"backend"}  # the test covers every field of the old schema
    for old, (group, name) in FLAT_FIELDS.items():
        assert settings.get(f"{group}.{name}") == flat[old], old
    assert settings.backend == "openai"
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["version"] == SCHEMA_VERSION and written["ollama"]["host"] == "http://10.0.0.5:11434"
    assert json.loads(path.with_name("settings.json.v1-backup").read_text(encoding="utf-8")) == flat
    assert Settings.load() == (settings, [])


def test_a_newer_schema_is_not_overwritten():
    path = paths.settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps({"version": 99, "ollama": {"model": "future"}})
    path.write_text(raw, encoding="utf-8")
    settings, warnings = Settings.load()
    assert settings == Settings() and "newer version" in warnings[0]
    assert path.read_text(encoding="utf-8") == raw


def test_updated_takes_dotted_names_and_validates():
    s = Settings().updated({"ollama.model": "qwen3", "backend": "openai", "generation.temperature": 1.5})
    assert (s.ollama.model, s.backend, s.generation.temperature, s.model) == ("qwen3", "openai", 1.5, "gpt-4o-mini")
    with pytest.raises(ValidationError):
        Settings().updated({"ollama.keep_alive": "soon"})


# ---- a damaged settings file costs only what is damaged -------------------------------------------------------------


@pytest.mark.parametrize("group", ["oops", [1, 2], None], ids=["string", "list", "null"])
def test_a_group_of_the_wrong_type_costs_only_that_group(tmp_path, group):
    p = tmp_path / "settings.json"
    p.write_text(json.dumps({"version": 2, "ollama": group, "loop": {"max_steps": 3}}))
    s, warnings = Settings.load(p)  # FAULT: TypeError: Object of type OllamaSettings is not JSON serializable
    assert s.loop.max_steps == 3 and any("ollama" in w for w in warnings)


def test_an_object_for_keep_alive_costs_only_keep_alive(tmp_path):
    p = tmp_path / "settings.json"
    p.write_text(json.dumps({"version": 2, "ollama": {"keep_alive": {}, "model": "qwen3"}, "loop": {"max_steps": 3}}))
    s, warnings = Settings.load(p)
    # FAULT: every value is reset ("The settings file could not be read; defaults are used.")
    assert s.ollama.model == "qwen3" and s.loop.max_steps == 3, warnings


def test_one_bad_tools_dir_keeps_the_others(tmp_path):
    p = tmp_path / "settings.json"
    p.write_text(json.dumps({"version": 2, "tools": {"dirs": ["/a", 5, "/b"]}}))
    s, warnings = Settings.load(p)
    assert s.tools.dirs == ["/a", "/b"], (s.tools.dirs, warnings)  # FAULT: [] (all dirs dropped)


def test_a_settings_file_with_a_utf8_bom_is_read(tmp_path):
    p = tmp_path / "settings.json"
    p.write_text("\ufeff" + json.dumps({"version": 2, "ollama": {"model": "qwen3"}}), encoding="utf-8")
    s, warnings = Settings.load(p)
    assert s.ollama.model == "qwen3" and p.exists(), warnings  # FAULT: moved aside, defaults used


def test_a_deeply_nested_settings_file_does_not_raise(tmp_path):
    p = tmp_path / "settings.json"
    p.write_text('{"version": 2, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    Settings.load(p)  # FAULT: RecursionError ("Never raises for a bad file")


def test_an_unreadable_settings_file_is_left_where_it_is(tmp_path, monkeypatch):
    from pathlib import Path

    p = tmp_path / "settings.json"
    p.write_text(json.dumps({"version": 2, "ollama": {"model": "qwen3"}}))
    real = Path.read_text

    def denied(self, *a, **k):
        if self == p:
            raise PermissionError(13, "Permission denied", str(self))  # e.g. root-owned after `sudo desktop-agent`
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "read_text", denied)
    _s, warnings = Settings.load(p)
    # FAULT: a file that is fine but unreadable right now is renamed to settings.json.bad-<time>
    assert p.exists(), warnings


def test_a_save_through_a_symlinked_settings_file_writes_the_file_it_points_to(tmp_path):
    """settings.json a symlink into a dotfiles folder (stow, chezmoi, home-manager): the atomic save replaced the
    link with a plain file — the dotfiles copy stopped changing and the link was gone."""
    from desktop_agent.core.services import save_changes

    dotfiles, config = tmp_path / "dotfiles", tmp_path / "config"
    dotfiles.mkdir()
    config.mkdir()
    real = dotfiles / "settings.json"
    Settings().save(real)
    link = config / "settings.json"
    link.symlink_to(real)
    save_changes({"loop.max_steps": 5}, link)
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert Settings.load(real)[0].loop.max_steps == 5
