"""The terminal side of MCP, as a user runs it: ``mcp add`` with secrets in a keyring (a file-backed test keyring
the subprocess uses), without one (refused, or ``--secrets-in-file``), ``mcp import`` replacing a server, a huge
or deeply nested file; no library traceback on the terminal from a server that prints garbage; ``desktop-agent
tools`` listing the servers' tools (``--no-mcp`` skips them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIME_SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))
GARBAGE = "import sys, time\nprint('this is not json', flush=True)\nprint('{\"nor\": 1}', flush=True)\ntime.sleep(30)\n"


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "home"


def run(home: Path, *args: str, keyring: Path | None = None) -> subprocess.CompletedProcess:
    backend = "tests.helpers.keyrings.FileKeyring" if keyring else "keyring.backends.fail.Keyring"
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT), "PYTHON_KEYRING_BACKEND": backend}
    if keyring:
        env["TEST_KEYRING_FILE"] = str(keyring)
    env.pop("OLLAMA_HOST", None)
    return subprocess.run([sys.executable, "-m", "desktop_agent", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=ROOT, stdin=subprocess.DEVNULL)


def _settings_text(home: Path) -> str:
    return (home / "config" / "settings.json").read_text(encoding="utf-8")


def test_add_keeps_secrets_of_arguments_env_and_values_in_the_keyring(home, tmp_path):
    keyring = tmp_path / "keyring.json"
    out = run(home, "mcp", "add", "gh", "--env", "GITHUB_TOKEN=ghp_secret123",
              "--env", "UPSTREAM=sk-abcdefghijklmnopqrs", "--", sys.executable, "-c", "pass",
              "--api-key", "abc123", "--token=t0ken", keyring=keyring)
    assert out.returncode == 0, out.stderr
    text = _settings_text(home)
    for secret in ("ghp_secret123", "sk-abcdefghijklmnopqrs", "abc123", "t0ken"):
        assert secret not in text
    kept = json.loads(keyring.read_text(encoding="utf-8"))
    assert sorted(kept.values()) == sorted(["ghp_secret123", "sk-abcdefghijklmnopqrs", "abc123", "t0ken"])
    assert "argument 4 (--api-key…) of gh is kept in the system keyring" in out.stdout
    listed = run(home, "mcp", "list", "--no-start", keyring=keyring)
    assert "    argument 5 (--token=…): in the keyring" in listed.stdout
    assert "    environment variable GITHUB_TOKEN: in the keyring" in listed.stdout
    assert "t0ken" not in listed.stdout
    removed = run(home, "mcp", "remove", "gh", keyring=keyring)
    assert removed.returncode == 0 and json.loads(keyring.read_text(encoding="utf-8")) == {}


def test_without_a_keyring_add_refuses_unless_secrets_in_file_is_given(home):
    url = "https://me:hunter2@mcp.example.com/mcp"
    refused = run(home, "mcp", "add", "web", "--url", url)
    assert refused.returncode == 1
    assert "URL's credentials of web would be lost when this command ends. Nothing was saved" in refused.stderr
    assert not (home / "config" / "settings.json").exists()
    kept = run(home, "mcp", "add", "web", "--url", url, "--secrets-in-file")
    assert kept.returncode == 0, kept.stderr
    assert "plain text" in kept.stdout and "hunter2" in _settings_text(home)


def test_import_says_which_server_it_replaces(home, tmp_path):
    assert run(home, "mcp", "add", "time", "--", "old-time-server").returncode == 0
    path = tmp_path / "claude.json"
    path.write_text(json.dumps({"mcpServers": {"time": {"command": TIME_SERVER}}}), encoding="utf-8")
    out = run(home, "mcp", "import", str(path))
    assert out.returncode == 0, out.stderr
    assert "Replaced the existing server time (it was: old-time-server)." in out.stdout


@pytest.mark.parametrize("content", ["huge", "deep"])
def test_a_huge_or_deeply_nested_file_is_a_clear_usage_error(home, tmp_path, content):
    path = tmp_path / "servers.json"
    if content == "huge":
        path.write_text('{"mcpServers": {}, "pad": "' + "x" * (5 * 1024 * 1024 + 10) + '"}', encoding="utf-8")
    else:
        path.write_text('{"mcpServers": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    out = run(home, "mcp", "import", str(path))
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    [line] = out.stderr.splitlines()
    assert line.startswith(f"desktop-agent: {path} is not an MCP servers file: ")
    assert ("at most 5 MB" if content == "huge" else "nested too deeply") in line


def test_a_server_printing_garbage_puts_no_library_traceback_on_the_terminal(home, tmp_path):
    script = tmp_path / "garbage.py"
    script.write_text(GARBAGE, encoding="utf-8")
    assert run(home, "mcp", "add", "junk", "--", sys.executable, str(script)).returncode == 0
    assert run(home, "mcp", "add", "gone", "--", sys.executable, "-c", "raise SystemExit(3)").returncode == 0
    settings = json.loads(_settings_text(home))
    settings["mcp"]["start_timeout_s"] = 3
    (home / "config" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    listed = run(home, "mcp", "list")
    assert "gone  [failed" in listed.stdout
    assert "Traceback" not in listed.stderr and "JSONRPC" not in listed.stderr, listed.stderr
    tools = run(home, "tools")
    assert "Traceback" not in tools.stderr and "JSONRPC" not in tools.stderr, tools.stderr
    assert all(line.startswith("desktop-agent: ") for line in tools.stderr.splitlines()), tools.stderr


def test_tools_lists_the_mcp_servers_tools_and_no_mcp_skips_them(home):
    assert run(home, "mcp", "add", "time", "--", TIME_SERVER, "--local-timezone", "UTC").returncode == 0
    listed = run(home, "tools")
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if line.startswith("time__get_current_time"))
    assert "[MCP server time]" in line
    assert "calculator" in listed.stdout  # ours too
    skipped = run(home, "tools", "--no-mcp")
    assert "time__" not in skipped.stdout and "calculator" in skipped.stdout
