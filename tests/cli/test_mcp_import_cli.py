"""``desktop-agent mcp import`` of VS Code's and Zed's files as a process: an ``${input:…}`` is asked (piped: one
line each) and kept in the keyring (a file-backed test backend), never written with its placeholder; an entry that
cannot be mapped is listed with why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VSCODE = """{
  // a VS Code mcp.json
  "inputs": [{"type": "promptString", "id": "api-key", "description": "Weather API key", "password": true}],
  "servers": {
    "weather": {"type": "stdio", "command": "uvx", "args": ["weather-mcp"], "env": {"WEATHER_KEY": "${input:api-key}"}},
    "here": {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/x.js"]},
  },
}"""


def run(tmp_path: Path, *args: str, stdin: str | None) -> subprocess.CompletedProcess:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "tests.helpers.keyrings.FileKeyring",
           "TEST_KEYRING_FILE": str(tmp_path / "keyring.json")}
    return subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=env, cwd=ROOT,
                          stdin=subprocess.DEVNULL if stdin is None else None)


def test_a_vscode_file_with_an_input_piped_in(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(VSCODE, encoding="utf-8")
    done = run(tmp_path, "import", str(config), stdin="key-typed-0123\n")
    assert done.returncode == 0, done.stderr
    assert f"Read {config} as VS Code's MCP servers file." in done.stdout
    assert "Added weather." in done.stdout
    assert "Skipped here: it uses ${workspaceFolder}, which only the app it was written for knows." in done.stdout
    settings = (tmp_path / "home" / "config" / "settings.json").read_text(encoding="utf-8")
    assert "key-typed-0123" not in settings and "${input:" not in settings
    server = json.loads(settings)["mcp"]["servers"][0]
    assert server["secret_env"] == ["WEATHER_KEY"] and server["env"] == {}
    stored = json.loads((tmp_path / "keyring.json").read_text(encoding="utf-8"))
    assert stored["desktop-agent\0secret:mcp:weather:env:WEATHER_KEY"] == "key-typed-0123"


def test_nothing_to_read_leaves_the_input_unset_and_says_so(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(VSCODE, encoding="utf-8")
    done = run(tmp_path, "import", str(config), stdin=None)
    assert done.returncode == 0, done.stderr
    assert ("The environment variable WEATHER_KEY of weather is not set: 'api-key' (Weather API key) was not given; "
            "set it in Settings → MCP.") in done.stdout
    settings = (tmp_path / "home" / "config" / "settings.json").read_text(encoding="utf-8")
    assert "${input:" not in settings
    assert not (tmp_path / "keyring.json").exists() or "${input" not in (tmp_path / "keyring.json").read_text()
    listed = run(tmp_path, "list", "--no-start", stdin=None)
    assert "environment variable WEATHER_KEY: NOT SET" in listed.stdout


def test_a_zed_settings_file(tmp_path):
    config = tmp_path / "settings.json"
    config.write_text('{"vim_mode": true, /* mine */ "context_servers": {"git": {"command": {"path": "uvx", '
                      '"args": ["mcp-server-git"]}},},}', encoding="utf-8")
    done = run(tmp_path, "import", str(config), stdin=None)
    assert done.returncode == 0, done.stderr
    assert "as Zed's MCP servers file" in done.stdout and "Added git." in done.stdout
