"""``chat --no-tools`` (and ``--no-mcp``) starts no MCP server: a configured server whose start leaves a mark
leaves none; the same chat with tools on does start it (so the mark is a real witness)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.servers.ollama import OllamaServer

ROOT = Path(__file__).resolve().parents[2]


def _chat(home: Path, url: str, *flags: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    env.pop("OLLAMA_HOST", None)
    return subprocess.run([sys.executable, "-m", "desktop_agent", "chat", "--host", url, *flags, "-p", "hi"],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT, stdin=subprocess.DEVNULL)


def test_no_tools_and_no_mcp_start_no_server(tmp_path):
    home, mark = tmp_path / "home", tmp_path / "started"
    (home / "config").mkdir(parents=True)
    starts = f"open({str(mark)!r}, 'a').write('x')"
    (home / "config" / "settings.json").write_text(json.dumps({"mcp": {"servers": [
        {"name": "witness", "command": sys.executable, "args": ["-c", starts]}]}}))
    with OllamaServer() as ollama:
        for flag in ("--no-tools", "--no-mcp"):
            done = _chat(home, ollama.url, flag)
            assert done.returncode == 0, done.stderr
            assert not mark.exists(), f"{flag} started the MCP server"
            assert "witness" not in done.stderr
        done = _chat(home, ollama.url)
    assert done.returncode == 0, done.stderr
    assert mark.exists()  # with tools on, the server was started (and its failure said)
    assert "MCP server witness: failed" in done.stderr
