"""Every command's output can be piped into a reader that goes away (``… | head``) without a traceback or an
"Exception ignored" line: the reading end is closed before the command writes anything, so every write fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers.ollama import OllamaServer

ROOT = Path(__file__).resolve().parents[2]
TIME_SERVER = str(Path(sys.executable).with_name("mcp-server-time"))

COMMANDS = [
    ["--help"], ["--version"], ["chat", "--help"], ["tools"], ["tools", "--help"], ["history", "list"],
    ["history", "search", "hello"], ["mcp", "list", "--no-start"], ["mcp", "list"], ["mcp", "--help"],
    ["doctor", "--no-mcp"], ["doctor"], ["chat", "--no-tools", "-p", "hi"],
    ["chat", "--no-tools", "--events", "-p", "hi"],
]


@pytest.fixture(scope="module")
def ollama():
    with OllamaServer() as server:
        yield server


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_output_into_a_closed_pipe(tmp_path, ollama, command):
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text(json.dumps({
        "ollama": {"host": ollama.url}, "mcp": {"servers": [{"name": "time", "command": TIME_SERVER}]}}))
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    env.pop("OLLAMA_HOST", None)
    proc = subprocess.Popen([sys.executable, "-m", "desktop_agent", *command], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line
    try:
        err = proc.stderr.read().decode(errors="replace")
        code = proc.wait(120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in err, err
    assert "Exception ignored" not in err, err
    assert "BrokenPipe" not in err, err
    assert code in (0, 1, 141), (code, err)
