"""What a failed MCP server printed is shown masked everywhere the terminal shows it (``mcp list``, the chat's
warning): the log's masking and, above all, every secret value the app itself handed the server — here a token of
no known shape, from the keyring (a file-backed test backend), that the server echoes on stderr before it exits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.servers.ollama import OllamaServer

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "plain-looking-but-secret-4711"
ECHOES = ("import os, sys; print('connecting with', os.environ['SERVICE_TOKEN'], 'and ghp_' + 'x' * 30, "
          "file=sys.stderr); sys.exit(1)")


def test_the_token_handed_to_a_server_never_shows(tmp_path):
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    server = {"name": "leaky", "command": sys.executable, "args": ["-c", ECHOES], "secret_env": ["SERVICE_TOKEN"]}
    (tmp_path / "keyring.json").write_text(json.dumps({"desktop-agent\0secret:mcp:leaky:env:SERVICE_TOKEN": TOKEN}))
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "tests.helpers.keyrings.FileKeyring",
           "TEST_KEYRING_FILE": str(tmp_path / "keyring.json")}
    env.pop("OLLAMA_HOST", None)
    with OllamaServer() as ollama:
        (home / "config" / "settings.json").write_text(json.dumps({"ollama": {"host": ollama.url},
                                                                   "mcp": {"servers": [server]}}))
        listed = subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", "list"], capture_output=True,
                                text=True, timeout=120, env=env, cwd=ROOT, stdin=subprocess.DEVNULL)
        chat = subprocess.run([sys.executable, "-m", "desktop_agent", "chat", "-p", "hi"], capture_output=True,
                              text=True, timeout=120, env=env, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert "    | connecting with *** and ***" in listed.stdout
    assert "MCP server leaky: failed" in chat.stderr and "connecting with *** and ***" in chat.stderr
    for out in (listed.stdout, listed.stderr, chat.stdout, chat.stderr):
        assert TOKEN not in out and "ghp_x" not in out


def test_a_secret_kept_in_the_settings_file_is_masked_too(tmp_path):
    """No keyring: ``mcp add --secrets-in-file`` writes the token into the settings file; what the server echoes
    of it is masked in ``mcp list`` and ``doctor`` all the same (the variable's name says it is a secret)."""
    home = tmp_path / "home"
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    env.pop("OLLAMA_HOST", None)
    echoes = "import os, sys; print('connecting with', os.environ['API_TOKEN'], file=sys.stderr); sys.exit(1)"

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "desktop_agent", *args], capture_output=True, text=True,
                              timeout=120, env=env, cwd=ROOT, stdin=subprocess.DEVNULL)

    added = cli("mcp", "add", "leaky", "--secrets-in-file", "--env", "API_TOKEN=supersecret123", "--",
                sys.executable, "-c", echoes)
    assert added.returncode == 0, added.stdout + added.stderr
    assert "supersecret123" in (home / "config" / "settings.json").read_text()  # where the user chose to keep it
    with OllamaServer() as ollama:
        listed = cli("mcp", "list")
        doctor = cli("doctor", "--host", ollama.url)
    assert "    | connecting with ***" in listed.stdout
    assert "    | connecting with ***" in doctor.stdout
    for out in (listed.stdout, listed.stderr, doctor.stdout, doctor.stderr):
        assert "supersecret123" not in out
