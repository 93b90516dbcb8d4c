"""core/services.py: the one composition root — the environment read there only, settings layered there only
(file, then OLLAMA_HOST, then flags), saves that keep another process's changes, and the cheap "changed
elsewhere" checks of the settings file and the store."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from desktop_agent.core.services import (
    OTHER_READERS,
    AppEnv,
    FlagError,
    Services,
    changed_keys,
    layer,
    load_settings,
    ollama_host_note,
    save_changes,
)
from desktop_agent.core.settings import Settings
from desktop_agent.core.urls import parse_ollama_host

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "desktop_agent"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", **extra}
    env.pop("OLLAMA_HOST", None)
    env.pop("OPENAI_API_KEY", None)
    return env


def _python(home: Path, code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=_env(home), check=True)


# ---- layering (moved from test_assembly: the layering lives here now) ---------------------------------


@pytest.mark.parametrize("value", [":11500", "gpu-box"])
def test_window_and_terminal_use_the_same_host(value, monkeypatch):
    """The window (load_settings with no flags) and the terminal commands (cli.chat.open_services) mean one
    host."""
    from desktop_agent.cli import chat

    monkeypatch.setenv("OLLAMA_HOST", value)
    window = load_settings().effective.ollama.host
    args = argparse.Namespace(backend=None, host=None, base_url=None, model=None, no_api_key=False, timeout=None,
                              system=None, temperature=None, max_steps=None, tool_choice=None)
    terminal = chat.open_services(args, io.StringIO()).effective.ollama.host
    assert window == terminal == parse_ollama_host(value)


def test_layers_file_then_environment_then_flags():
    saved = Settings(ollama_host="http://saved:1", ollama_model="a")
    got = layer(saved, {"OLLAMA_HOST": "env-host"}, {"ollama.model": "b"})
    assert got.effective.ollama.host == "http://env-host:11434" and got.env_host == got.effective.ollama.host
    assert got.effective.ollama.model == "b"
    assert got.saved == saved  # never written back
    flagged = layer(saved, {"OLLAMA_HOST": "env-host"}, {"ollama.host": "http://flag:2"})
    assert flagged.effective.ollama.host == "http://flag:2"


def test_bad_environment_is_a_warning_and_bad_flag_an_error():
    saved = Settings()
    got = layer(saved, {"OLLAMA_HOST": "gpu box:1"}, {})
    assert got.effective.ollama.host == saved.ollama.host
    assert len(got.warnings) == 1 and "OLLAMA_HOST is not usable" in got.warnings[0]
    assert got.env_warnings == got.warnings
    with pytest.raises(FlagError) as info:
        layer(saved, {}, {"generation.temperature": 5})
    assert info.value.key == "generation.temperature"


def test_the_model_flag_is_the_model_of_the_backend_chosen():
    saved = Settings().updated({"backend": "openai"})
    assert layer(saved, {}, {"model": "m"}).effective.openai.model == "m"
    both = layer(saved, {}, {"backend": "ollama", "model": "m"}).effective
    assert both.backend == "ollama" and both.ollama.model == "m" and both.openai.model == saved.openai.model


def test_services_layer_from_their_own_snapshot_of_the_environment(tmp_path):
    services = Services({"loop.max_steps": 3}, tmp_path / "home", {"OLLAMA_HOST": ":9", "DESKTOP_AGENT_THEME": "dark"})
    assert services.effective.ollama.host == "http://127.0.0.1:9" == services.env_host
    assert services.effective.loop.max_steps == 3 and services.saved.loop.max_steps == Settings().loop.max_steps
    assert services.env == AppEnv(ollama_host=":9", theme="dark")
    assert services.ollama_host_note() == ollama_host_note(":9")
    assert services.settings_path == tmp_path / "home" / "config" / "settings.json"
    assert Services(environ={}).env_host is None


def test_the_ollama_host_note_says_where_the_host_comes_from():
    assert ollama_host_note("") == (None, "info")
    text, kind = ollama_host_note(":11500")
    assert kind == "info" and "http://127.0.0.1:11500" in text
    text, kind = ollama_host_note("http://gpu-box:port")
    assert kind == "warn" and "cannot be used" in text


# ---- the environment is read in core/services.py only -----------------------------------------------

ENV_READ = re.compile(r"\bos\.environ\b|\bgetenv\(|from os import [^#\n]*\benviron\b")
OLLAMA_HOST_READ = re.compile(r"""["']OLLAMA_HOST["']""")
LAYERING_CALL = re.compile(r"(?<![\w.])(layer|load_settings)\(|\bSettings\.load\(|\.saved\.save\(")


def _code_lines(path: Path):
    """The lines of ``path`` outside comments."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        code = line.split("#", 1)[0] if not line.lstrip().startswith(("'", '"')) else line
        yield number, code


def _where(pattern: re.Pattern[str]) -> set[str]:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for number, code in _code_lines(path):
            if pattern.search(code):
                found.add(f"{path.relative_to(ROOT).as_posix()}:{number}")
    return found


def test_the_environment_is_read_in_services_only():
    """Every read of the environment is in core/services.py — but those of another process or of Qt, each
    listed with its reason in OTHER_READERS (and every one listed still reads)."""
    allowed = {"desktop_agent/core/services.py", "desktop_agent/core/environment.py", *OTHER_READERS}
    reads = _where(ENV_READ) | _where(OLLAMA_HOST_READ)
    outside = sorted(r for r in reads if r.split(":")[0] not in allowed)
    assert outside == [], "read the variable into AppEnv (core/services.py) and hand it down"
    files = {r.split(":")[0] for r in reads}
    assert set(OTHER_READERS) <= files, "an entry of OTHER_READERS reads nothing any more: drop it"


def test_settings_are_layered_and_loaded_in_services_only():
    calls = _where(LAYERING_CALL)
    outside = sorted(c for c in calls if c.split(":")[0] not in ("desktop_agent/core/services.py",
                                                                "desktop_agent/core/settings.py"))
    assert outside == [], "open Services and use its layered settings / update_settings"


def test_importing_services_imports_nothing_heavy():
    """The window's first frame may import it: no pydantic, no settings schema, no store."""
    code = ("import sys; import desktop_agent.core.services; "
            "print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'desktop_agent.core.settings', "
            "'desktop_agent.core.store', 'desktop_agent.core.assembly'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    assert out.strip() == "[]"


# ---- saves keep other processes' changes ---------------------------------------------------------


def test_changed_keys_are_the_dotted_settings_that_differ():
    before = Settings()
    after = before.updated({"ollama.model": "m", "backend": "openai", "models.tools_anyway": ["x"]})
    assert changed_keys(before, after) == {"ollama.model": "m", "backend": "openai", "models.tools_anyway": ["x"]}
    assert changed_keys(after, after) == {}


def test_a_save_writes_only_what_changed_on_top_of_the_file_as_it_is_now(tmp_path):
    a = Services(data_dir=tmp_path / "home", environ={})
    b = Services(data_dir=tmp_path / "home", environ={})
    start = a.saved
    b.update_settings({"loop.max_steps": 5})
    layered = a.save_settings(start, start.updated({"ollama.model": "mine"}))
    on_file = Settings.load(a.settings_path)[0]
    assert on_file.loop.max_steps == 5 and on_file.ollama.model == "mine"
    assert layered.saved == on_file and a.saved == on_file


def test_a_refused_change_writes_nothing(tmp_path):
    services = Services(data_dir=tmp_path / "home", environ={})
    services.update_settings({"loop.max_steps": 5})
    before = services.settings_path.read_text(encoding="utf-8")
    with pytest.raises(ValueError):
        services.update_settings({"loop.max_steps": 0})
    assert services.settings_path.read_text(encoding="utf-8") == before


WRITER = """
    import sys, time
    from pathlib import Path
    from desktop_agent.core.services import Services

    who, rounds, go = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    services = Services()
    while not go.exists():
        time.sleep(0.005)
    number = "loop.max_steps" if who == "a" else "tools.max_offered"
    names = "models.tools_anyway" if who == "a" else "models.think_anyway"
    for r in range(rounds):
        services.update_settings({number: r + 1})
        services.edit_settings(lambda s: s.updated({names: [*s.get(names), f"{who}{r}"]}))
"""


def test_two_processes_changing_different_settings_at_once_lose_nothing(tmp_path):
    """Each process sets its number and appends to its own list, many rounds at once: a save writing a
    stale copy of the file would drop a number or an entry of the other's list for good."""
    home, go, rounds = tmp_path / "home", tmp_path / "go", 40
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(WRITER), who, str(rounds), str(go)],
                              env=_env(home), stderr=subprocess.PIPE, text=True) for who in "ab"]
    time.sleep(0.5)
    go.touch()
    for proc in procs:
        _out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
    saved = Settings.load(home / "config" / "settings.json")[0]
    assert saved.models.tools_anyway == [f"a{r}" for r in range(rounds)]
    assert saved.models.think_anyway == [f"b{r}" for r in range(rounds)]
    assert saved.loop.max_steps == rounds and saved.tools.max_offered == rounds


def test_an_mcp_server_added_in_a_terminal_survives_a_save_with_nothing_changed(tmp_path):
    """The issue's repro: the window open (Services A), `desktop-agent mcp add` in a terminal, then Settings →
    Save with nothing changed — the server stays in the file."""
    home = tmp_path / "home"
    a = Services(data_dir=home, environ={})
    opened = a.saved
    added = subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", "add", "clock", "--", sys.executable,
                            "-c", "pass"], capture_output=True, text=True, timeout=120, env=_env(home))
    assert added.returncode == 0, added.stderr
    layered = a.save_settings(opened, opened)
    assert [s.name for s in Settings.load(a.settings_path)[0].mcp.servers] == ["clock"]
    assert [s.name for s in layered.saved.mcp.servers] == ["clock"]


def test_a_settings_change_by_another_process_is_seen(tmp_path):
    home = tmp_path / "home"
    services = Services(data_dir=home, environ={})
    services.update_settings({"loop.max_steps": 4})
    assert services.settings_changed() is None  # its own save is no news
    _python(home, """
        from desktop_agent.core.services import Services
        Services().update_settings({"loop.max_steps": 9})
    """)
    changed = services.settings_changed()
    assert changed is not None and changed.saved.loop.max_steps == 9 == services.effective.loop.max_steps
    assert services.settings_changed() is None


def test_a_history_import_by_another_process_is_seen(tmp_path):
    home = tmp_path / "home"
    services = Services(data_dir=home, environ={})
    assert services.store.list() == []
    assert services.store_changed() is False
    chat = tmp_path / "chat_llama3_20240501093015.json"
    chat.write_text(json.dumps([{"human": "What day is it?", "ai": "Wednesday."}]), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "desktop_agent", "history", "import", str(chat)],
                          capture_output=True, text=True, timeout=120, env=_env(home))
    assert done.returncode == 0, done.stderr
    assert services.store_changed() is True
    assert services.store_changed() is False
    assert len(services.store.list()) == 1
    services.close()


def test_save_changes_keeps_the_atomic_write(tmp_path):
    path = tmp_path / "settings.json"
    save_changes({"loop.max_steps": 3}, path)
    assert json.loads(path.read_text(encoding="utf-8"))["loop"]["max_steps"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json", "settings.json.lock"]


# ---- what Services holds ------------------------------------------------------------------------------


def test_services_hand_out_sessions_over_one_store_and_one_permission_engine(tmp_path):
    services = Services({"tools.enabled": False, "mcp.enabled": False}, tmp_path / "home", {})
    try:
        session = services.new_session()
        assert session.store is services.store
        assert services.assembly.permissions is services.permissions
        assert session.conversation.model == services.effective.model
        assert session.key_source is None  # Ollama: no key
    finally:
        services.close()
    assert not services.store_open


def test_the_secret_store_reads_the_key_of_the_snapshot(tmp_path, monkeypatch):
    services = Services(data_dir=tmp_path / "home", environ={"OPENAI_API_KEY": "sk-snap"})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-later")  # the process's environment is not read again
    assert services.secrets.environment_key() == "sk-snap"
    assert Services(data_dir=tmp_path / "home", environ={}).secrets.environment_key() is None


def test_a_save_never_replaces_a_file_it_could_not_read(tmp_path, monkeypatch):
    """A settings file unreadable right now (permissions, an I/O error) is "left as it is" by a load; a save on
    top of it must not write the defaults plus one change over the user's settings."""
    services = Services(data_dir=tmp_path / "home", environ={})
    services.update_settings({"ollama.model": "mine", "loop.max_steps": 7})
    path = services.settings_path
    before = path.read_text(encoding="utf-8")
    real_open = Path.open

    def refusing_open(self, *args, **kwargs):
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refusing_open)
    with pytest.raises(OSError):
        services.update_settings({"backend": "openai"})
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == before


@pytest.mark.parametrize("code", ["ENOLCK", "EOPNOTSUPP", "ENOSYS"])
def test_settings_save_on_a_file_system_without_locks(tmp_path, monkeypatch, code):
    """A config folder on a file system without flock (some NFS, SMB and FUSE mounts) still saves settings."""
    import errno
    import fcntl

    def no_locks(_fd, _op):
        raise OSError(getattr(errno, code), os.strerror(getattr(errno, code)))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    services = Services(data_dir=tmp_path / "home", environ={})
    services.update_settings({"loop.max_steps": 6})
    assert Settings.load(services.settings_path)[0].loop.max_steps == 6


def test_an_editor_changing_a_list_keeps_entries_another_process_added_or_removed(tmp_path):
    """Settings open in the window, `desktop-agent mcp add b` and `mcp remove c` in a terminal, then the user
    disables server a in the dialog and saves: b stays, c stays gone, a is disabled. The same for lists of
    names (allowed folders)."""
    a, b, c = ({"name": n, "command": "echo"} for n in "abc")
    services = Services(data_dir=tmp_path / "home", environ={})
    services.update_settings({"mcp.servers": [a, c], "tools.allowed_folders": ["/one", "/three"]})
    opened = services.saved
    save_changes({"mcp.servers": [a, c, b], "tools.allowed_folders": ["/one", "/three", "/two"]},
                 services.settings_path)
    save_changes({"mcp.servers": [a, b], "tools.allowed_folders": ["/one", "/two"]}, services.settings_path)
    edited = opened.updated({"mcp.servers": [{**a, "enabled": False}, c],
                             "tools.allowed_folders": ["/three", "/four"]})
    saved = services.save_settings(opened, edited).saved
    assert [(s.name, s.enabled) for s in saved.mcp.servers] == [("a", False), ("b", True)]
    assert saved.tools.allowed_folders == ["/two", "/four"]  # the file's order, the editor's new entry after
    assert Settings.load(services.settings_path)[0] == saved


@pytest.mark.parametrize("text", ['{"version": 2, "ollama": {"model": "half-writ', '{"version": 999}'],
                         ids=["damaged", "newer"])
def test_a_file_another_program_left_unusable_is_not_followed(tmp_path, text):
    """A window's focus-in after the settings file was left damaged (an editor saving, half written) or written
    by a newer version: the settings in use stay — not the defaults — and the file is left where it is for
    whoever is writing it; once it is whole again it is followed."""
    services = Services(data_dir=tmp_path / "home", environ={})
    services.update_settings({"ollama.model": "mine", "loop.max_steps": 7})
    path = services.settings_path
    path.write_text(text, encoding="utf-8")
    assert services.settings_changed() is None
    assert services.effective.ollama.model == "mine" and services.effective.loop.max_steps == 7
    assert path.read_text(encoding="utf-8") == text and sorted(p.name for p in path.parent.iterdir()) == [
        "settings.json", "settings.json.lock"]
    save_changes({"ollama.model": "theirs"}, path) if text.startswith('{"version": 2') else path.write_text(
        '{"version": 2, "ollama": {"model": "theirs"}}', encoding="utf-8")
    changed = services.settings_changed()
    assert changed is not None and changed.effective.ollama.model == "theirs"


def test_a_save_gives_up_when_another_program_holds_the_settings_lock_too_long(tmp_path, monkeypatch):
    """`desktop-agent mcp add --env TOKEN=…` holds the settings lock while the keyring asks to be unlocked (a
    prompt the user may leave for minutes); a window's picker saving meanwhile waited for it on the GUI thread —
    the window froze. A save waits a few seconds, then fails with a line to show, writing nothing."""
    import desktop_agent.core.services as services_module

    monkeypatch.setattr(services_module, "LOCK_WAIT_S", 0.5)
    services = Services(data_dir=tmp_path / "home", environ={})
    services.update_settings({"loop.max_steps": 3})
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import fcntl, sys, time
        with open(sys.argv[1], "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            print("held", flush=True)
            time.sleep(60)
    """), str(services.settings_path) + ".lock"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(OSError, match="another program"):
            services.update_settings({"loop.max_steps": 9})
        assert time.monotonic() - started < 5
    finally:
        holder.kill()
        holder.wait()
    assert Settings.load(services.settings_path)[0].loop.max_steps == 3
    assert services.update_settings({"loop.max_steps": 9}).saved.loop.max_steps == 9  # free again: saved
# ---- a changed list or mapping is merged item by item (from the new-user trial of issue 21) ----------------


def test_a_server_removed_in_settings_and_one_added_by_a_terminal_both_take_effect(tmp_path):
    """Settings → MCP → Remove m1, while a terminal's `mcp add m2` lands; Save: m1 is gone and m2 stays (the
    whole list was written over the file's before)."""
    home = tmp_path / "home"
    services = Services(data_dir=home, environ={})
    m1 = {"name": "m1", "command": sys.executable, "args": ["-c", "pass"]}
    before = services.update_settings({"mcp.servers": [m1]}).saved
    after = before.updated({"mcp.servers": []})
    added = subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", "add", "m2", "--", sys.executable,
                            "-c", "pass"], capture_output=True, text=True, timeout=120, env=_env(home))
    assert added.returncode == 0, added.stderr
    services.save_settings(before, after)
    assert [s.name for s in Settings.load(services.settings_path)[0].mcp.servers] == ["m2"]


def test_a_server_switched_off_in_settings_keeps_one_a_terminal_added(tmp_path):
    services = Services(data_dir=tmp_path / "home", environ={})
    e1 = {"name": "e1", "command": sys.executable, "args": ["-c", "pass"]}
    before = services.update_settings({"mcp.servers": [e1]}).saved
    after = before.updated({"mcp.servers": [{**e1, "enabled": False}]})
    Services(data_dir=tmp_path / "home", environ={}).update_settings(
        {"mcp.servers": [e1, {**e1, "name": "e2"}]})  # another process, meanwhile
    services.save_settings(before, after)
    servers = Settings.load(services.settings_path)[0].mcp.servers
    assert [(s.name, s.enabled) for s in servers] == [("e1", False), ("e2", True)]


@pytest.mark.parametrize(("before", "after", "current", "merged"), [
    (["a"], ["a", "b"], ["a", "c"], ["a", "c", "b"]),  # added here, added there: both
    (["a", "b"], ["b"], ["a", "b", "c"], ["b", "c"]),  # removed here, added there
    (["a", "b"], ["b", "a"], ["a", "b"], ["b", "a"]),  # nothing changed there: the editor's order
    ({"m": 1}, {"m": 2, "n": 3}, {"m": 1, "o": 4}, {"m": 2, "n": 3, "o": 4}),  # a mapping, key by key
    ({"m": 1, "n": 2}, {"n": 2}, {"m": 1, "n": 2, "o": 4}, {"n": 2, "o": 4}),
    (1, 2, 3, 2),  # a plain value: the editor's wins
])
def test_a_change_is_merged_into_the_file_as_it_is_now(before, after, current, merged):
    from desktop_agent.core.services import merge_three

    assert merge_three(before, after, current) == merged


def test_the_pickers_list_settings_keep_a_terminals_change_to_the_same_list(tmp_path):
    """The window's "Offer tools anyway" for one model while a terminal did so for another: both stay."""
    services = Services(data_dir=tmp_path / "home", environ={})
    before = services.update_settings({"models.tools_anyway": ["a"]}).saved
    Services(data_dir=tmp_path / "home", environ={}).update_settings({"models.tools_anyway": ["a", "b"]})
    services.save_settings(before, before.updated({"models.tools_anyway": ["a", "c"]}))
    assert Settings.load(services.settings_path)[0].models.tools_anyway == ["a", "b", "c"]


def test_an_unusable_ollama_host_in_the_environment_does_not_break_the_ollama_backend(tmp_path):
    """`import ollama` builds a default client from OLLAMA_HOST and raised "Invalid IPv6 URL" for
    "http://[::1" — after the app had warned the variable is unusable and chosen the saved host."""
    home = tmp_path / "home"
    done = subprocess.run([sys.executable, "-m", "desktop_agent", "chat", "--host", "http://127.0.0.1:9",
                           "--no-tools", "-p", "hi"], capture_output=True, text=True, timeout=120,
                          env=_env(home, OLLAMA_HOST="http://[::1"))
    assert done.returncode == 1
    assert "OLLAMA_HOST is not usable" in done.stderr or "Can't reach Ollama" in done.stderr
    assert "Can't reach Ollama at http://127.0.0.1:9" in done.stderr, done.stderr
    assert "Invalid IPv6 URL" not in done.stderr.splitlines()[-1]


def test_a_data_folder_chosen_on_the_command_line_wins_over_the_environments(tmp_path):
    """`desktop-agent --data-dir X` with DESKTOP_AGENT_HOME=Y: the window's services opened later kept to X (they
    moved the whole app to Y's store after the first frame, which read X's settings)."""
    from desktop_agent.core import paths

    chosen = tmp_path / "chosen"
    paths.set_home(chosen)
    Services(environ={"DESKTOP_AGENT_HOME": str(tmp_path / "env")})
    assert paths.home_override() == chosen.resolve()
    Services(data_dir=tmp_path / "given", environ={})
    assert paths.home_override() == (tmp_path / "given").resolve()
