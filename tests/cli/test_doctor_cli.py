"""``desktop-agent doctor`` run as a process against real parts: an Ollama-speaking HTTP server on 127.0.0.1 (or a
port nothing listens on), a keyring backend in a file (or a locked one), real MCP servers (``mcp-server-time`` from
PyPI; a Python process that exits printing its token), a data folder that cannot be one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.core.doctor import missing_libraries
from tests.mcp_servers.everything import free_port
from tests.servers.ollama import OllamaServer

ROOT = Path(__file__).resolve().parents[2]
TIME_SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))
TOKEN = "tok-9f8e7d6c5b4a-very-private"
QUITS = ("import os, sys; print('starting with token', os.environ['API_TOKEN'], file=sys.stderr); "
         "print('auth failed: bad credentials', file=sys.stderr); sys.exit(2)")


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "home"


def run(home: Path, *args: str, keyring: str = "file", stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    backends = {"file": "tests.helpers.keyrings.FileKeyring", "locked": "tests.helpers.keyrings.LockedKeyring",
                "none": "keyring.backends.fail.Keyring"}
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": backends[keyring], "TEST_KEYRING_FILE": str(home.parent / "keyring.json")}
    for name in ("OLLAMA_HOST", "OPENAI_API_KEY", "QT_QPA_PLATFORM"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "desktop_agent", "doctor", *args], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=180, env=env, cwd=ROOT, stdin=subprocess.DEVNULL)


def _settings(home: Path, host: str, servers: list[dict]) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "settings.json").write_text(json.dumps({"ollama": {"host": host, "model": "llama3.2"},
                                                               "mcp": {"servers": servers}}), encoding="utf-8")


def _line(out: str, area: str) -> str:
    found = [line for line in out.splitlines() if line[2:].startswith(area + ":")]
    assert found, f"no line for {area} in:\n{out}"
    return found[0]


def _fix_after(out: str, area: str) -> str:
    lines = out.splitlines()
    at = lines.index(_line(out, area))
    return next(line.strip() for line in lines[at + 1:] if line.strip().startswith("fix:"))


def test_a_good_setup_is_all_ticks_and_exit_0(home):
    with OllamaServer(models=["llama3.2:latest", "qwen3:8b"]) as ollama:
        _settings(home, ollama.url, [{"name": "time", "command": TIME_SERVER, "args": ["--local-timezone", "UTC"]}])
        done = run(home)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert _line(out, "model server").startswith("✓") and f"Ollama at {ollama.url} answers (2 models)" in out
    assert _line(out, "model") == "✓ model: llama3.2 is there"
    assert _line(out, "keyring").startswith("✓")
    assert _line(out, "MCP server time") == "✓ MCP server time: ready (2 tools)"
    assert _line(out, "data folder") == f"✓ data folder: {home / 'data'} is writable"
    assert _line(out, "tools folder").startswith("✓")
    assert "✗" not in out
    assert out.rstrip().endswith("Everything the app needs works.")
    assert done.stderr == ""


def test_a_broken_setup_says_each_problem_with_its_fix_and_exits_1(home):
    port = free_port()  # nothing listens there
    server = {"name": "quits", "command": sys.executable, "args": ["-c", QUITS], "secret_env": ["API_TOKEN"]}
    _settings(home, f"http://127.0.0.1:{port}", [server, {"name": "time", "command": TIME_SERVER}])
    (home.parent / "keyring.json").write_text(json.dumps({"desktop-agent\0secret:mcp:quits:env:API_TOKEN": TOKEN}))
    done = run(home)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert _line(out, "model server").startswith(f"✗ model server: Can't reach Ollama at http://127.0.0.1:{port}")
    assert "ollama serve" in out
    assert _fix_after(out, "model server") == "fix: Another address: --host URL or OLLAMA_HOST."
    quits = _line(out, "MCP server quits")
    assert quits.startswith("✗") and "exited before it was ready" in quits
    assert "    | auth failed: bad credentials" in out
    assert "    | starting with token ***" in out
    assert TOKEN not in out and TOKEN not in done.stderr  # the secret the app handed it, masked
    assert _fix_after(out, "MCP server quits").startswith("fix: read its output above")
    assert _line(out, "MCP server time").startswith("✓")  # the other server still starts
    assert out.rstrip().endswith("2 problems found.")
    assert "Traceback" not in done.stderr


def test_a_missing_model_names_the_pull_and_the_installed_ones(home):
    with OllamaServer(models=["qwen3:8b"]) as ollama:
        _settings(home, ollama.url, [])
        done = run(home, "--no-mcp")
    assert done.returncode == 1
    assert _line(done.stdout, "model server").startswith("✓")
    assert _line(done.stdout, "model") == "✗ model: The model 'llama3.2' is not installed in Ollama."
    assert _fix_after(done.stdout, "model") == ("fix: Pull it with `ollama pull llama3.2`, or choose another with "
                                                "--model: qwen3:8b.")
    with OllamaServer(models=["qwen3:8b"]) as ollama:
        done = run(home, "--no-mcp", "--host", ollama.url, "--model", "qwen3:8b")
    assert done.returncode == 0, done.stdout
    assert _line(done.stdout, "model") == "✓ model: qwen3:8b is there"


def test_a_locked_keyring_with_secrets_to_read_is_broken(home):
    with OllamaServer() as ollama:
        _settings(home, ollama.url, [{"name": "gh", "command": TIME_SERVER, "secret_env": ["GITHUB_TOKEN"]}])
        done = run(home, "--no-mcp", keyring="locked")
    assert done.returncode == 1
    line = _line(done.stdout, "keyring")
    assert line.startswith("✗ keyring: The system keyring is locked")
    assert "the secrets of MCP server gh cannot be read" in line
    assert _fix_after(done.stdout, "keyring").startswith("fix: unlock the keyring")


def test_no_keyring_while_nothing_needs_one_is_a_warning_not_a_failure(home):
    with OllamaServer() as ollama:
        _settings(home, ollama.url, [])
        done = run(home, keyring="none")
    assert done.returncode == 0, done.stdout
    assert _line(done.stdout, "keyring").startswith("! keyring: No secure keyring")


def test_no_keyring_with_a_local_openai_server_that_needs_no_key_is_a_warning(home):
    """A loopback OpenAI-compatible server is used without a key (the chat works), so a missing keyring is only a
    warning there; a remote provider that needs a key it cannot read is broken."""
    from tests.servers.openai import OpenAIServer

    with OpenAIServer(models=["smollm2"]) as server:
        done = run(home, "--no-mcp", "--backend", "openai", "--base-url", server.url, "--model", "smollm2",
                   keyring="none")
    assert done.returncode == 0, done.stdout
    assert _line(done.stdout, "keyring").startswith("! keyring: No secure keyring")
    assert "API key" not in _line(done.stdout, "keyring")
    remote = run(home, "--no-mcp", "--backend", "openai", "--base-url", "http://192.0.2.1:9/v1", keyring="none")
    assert remote.returncode == 1
    assert _line(remote.stdout, "keyring").startswith("✗ keyring:") and "the API key cannot be read" in remote.stdout


def test_a_data_folder_that_cannot_be_written_is_broken(home):
    with OllamaServer() as ollama:
        _settings(home, ollama.url, [])
        (home / "data").write_text("not a folder")
        done = run(home, "--no-mcp")
    assert done.returncode == 1, done.stdout
    line = _line(done.stdout, "data folder")
    assert line.startswith("✗ data folder:") and "cannot be created" in line
    assert "--data-dir" in _fix_after(done.stdout, "data folder")
    history = _line(done.stdout, "chat history")  # the chats cannot be kept: said, not left out
    assert history.startswith("✗ chat history: chats can be neither opened nor saved")
    assert "--data-dir" in _fix_after(done.stdout, "chat history")
    assert "Traceback" not in done.stderr


def test_a_data_folder_with_no_config_folder_that_cannot_be_created_is_reported_not_a_traceback(home):
    """The folder the settings would be in cannot be created (here a file is where it should be; a read-only disk
    is the same): the settings are the defaults, and every folder is said broken with the fix."""
    home.mkdir(parents=True)
    (home / "config").write_text("not a folder")  # works as root too, where a read-only folder is still written
    (home / "data").write_text("not a folder")
    with OllamaServer() as ollama:
        done = run(home, "--no-mcp", "--host", ollama.url, "--model", "llama3.2")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stdout + done.stderr
    assert _line(done.stdout, "settings").endswith("(not saved yet: the defaults)")
    assert _line(done.stdout, "model server").startswith("✓")
    for area in ("data folder", "config folder"):
        assert _line(done.stdout, area).startswith(f"✗ {area}: {home / area.split()[0]} cannot be created")
        assert "--data-dir" in _fix_after(done.stdout, area)
    assert _line(done.stdout, "chat history").startswith("✗ chat history: chats can be neither opened nor saved")


def test_piped_into_head_and_into_an_ascii_terminal(home):
    with OllamaServer() as ollama:
        _settings(home, ollama.url, [])
        env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT),
               "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
        piped = subprocess.run(f"'{sys.executable}' -m desktop_agent doctor --no-mcp | head -1", shell=True,
                               capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
        ascii_run = subprocess.run([sys.executable, "-m", "desktop_agent", "doctor", "--no-mcp"], capture_output=True,
                                   text=True, timeout=120, env={**env, "PYTHONIOENCODING": "ascii"}, cwd=ROOT)
    assert piped.stdout.startswith("✓ settings:") and piped.stdout.count("\n") == 1
    assert "Traceback" not in piped.stderr and "BrokenPipe" not in piped.stderr
    assert ascii_run.stdout.startswith("ok settings:")
    assert "\nok model server:" in ascii_run.stdout


def test_the_missing_x_libraries_are_read_from_ldd():
    ldd = shutil.which("ldd")
    assert ldd is not None
    real = subprocess.run([ldd, sys.executable], capture_output=True, text=True, check=True).stdout
    assert missing_libraries(real) == []
    assert missing_libraries(real + "\tlibxcb-cursor.so.0 => not found\n\tlibxkbcommon-x11.so.0 => not found\n") == [
        "libxcb-cursor.so.0", "libxkbcommon-x11.so.0"]
