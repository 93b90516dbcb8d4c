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


def run(tmp_path: Path, *args: str, stdin: str | None, keyring: str = "tests.helpers.keyrings.FileKeyring"
        ) -> subprocess.CompletedProcess:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": keyring,
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


def test_without_a_keyring_the_servers_needing_no_secret_are_imported_and_the_others_said(tmp_path):
    """No keyring: the server whose ``${input:…}`` is a password is left out (said, with how to add it later), the
    others are saved — a non-password input's answer goes into the settings file — and the entries that cannot be
    mapped are listed too."""
    config = tmp_path / "mcp.json"
    config.write_text("""{
      "inputs": [{"id": "api-key", "description": "Weather API key", "password": true},
                 {"id": "region", "description": "Region", "password": false}],
      "servers": {
        "weather": {"type": "stdio", "command": "uvx", "args": ["weather-mcp"],
                    "env": {"WEATHER_KEY": "${input:api-key}"}},
        "plain": {"type": "stdio", "command": "uvx", "args": ["plain-mcp"]},
        "regional": {"type": "stdio", "command": "uvx", "args": ["geo-mcp", "--region", "${input:region}"],
                     "env": {"GEO_REGION": "${input:region}"}},
        "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
        "here": {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/x.js"]}
      }
    }""", encoding="utf-8")
    done = run(tmp_path, "import", str(config), stdin="key-typed-0123\neu-west-1\n",
               keyring="keyring.backends.fail.Keyring")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Added plain." in done.stdout and "Added regional." in done.stdout
    skipped = [line for line in done.stdout.splitlines() if line.startswith("Skipped weather:")]
    assert skipped and "WEATHER_KEY" in skipped[0] and "keyring" in skipped[0]
    assert "--secrets-in-file" in skipped[0] and "import the file again" in skipped[0]
    assert "Skipped old: it uses the older SSE transport" in done.stdout
    assert "Skipped here: it uses ${workspaceFolder}" in done.stdout
    text = (tmp_path / "home" / "config" / "settings.json").read_text(encoding="utf-8")
    servers = {s["name"]: s for s in json.loads(text)["mcp"]["servers"]}
    assert sorted(servers) == ["plain", "regional"]
    assert servers["regional"]["args"] == ["geo-mcp", "--region", "eu-west-1"]
    assert servers["regional"]["env"] == {"GEO_REGION": "eu-west-1"} and servers["regional"]["secret_env"] == []
    assert "key-typed-0123" not in text and "${input:" not in text
    again = run(tmp_path, "import", str(config), "--secrets-in-file", stdin="key-typed-0123\neu-west-1\n",
                keyring="keyring.backends.fail.Keyring")  # the way the skipped one is added later
    assert again.returncode == 0, again.stdout + again.stderr
    weather = next(s for s in json.loads((tmp_path / "home" / "config" / "settings.json").read_text(
        encoding="utf-8"))["mcp"]["servers"] if s["name"] == "weather")
    assert weather["env"] == {"WEATHER_KEY": "key-typed-0123"}
