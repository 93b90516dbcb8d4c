"""An MCP bundle's sensitive ``user_config`` value in a REAL Secret Service (gnome-keyring on a private D-Bus
session): ``desktop-agent mcp install`` as a process puts it in the keyring and in no file of the app's folders,
``mcp list`` starts the bundle's server with it (its tool is listed), and ``mcp remove`` deletes it and the files.

Run with ``PYTHONPATH=$PWD scripts/with-keyring.sh /work/main/.venv/bin/python -m pytest -m keyring
tests/e2e/test_mcp_bundle_keyring_real.py``; elsewhere it skips (fails under with-keyring.sh when the Secret
Service cannot be reached)."""

from __future__ import annotations

import base64
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import bundles

pytestmark = pytest.mark.keyring
ROOT = Path(__file__).resolve().parents[2]
KEY = "gk-real-keyring-value-5150"
ENTRY = "secret:mcp:greeter:env:GREETER_KEY"


@pytest.fixture
def secret_service():
    from tests.e2e.test_keyring_real import _secret_service_problem

    problem = _secret_service_problem()
    if problem:
        if os.environ.get("DESKTOP_AGENT_EXPECT_KEYRING") == "1":
            pytest.fail(f"DESKTOP_AGENT_EXPECT_KEYRING=1 but {problem}")
        pytest.skip(f"no Secret Service reachable ({problem}); run under scripts/with-keyring.sh")
    from keyring.backends import SecretService

    backend = SecretService.Keyring()
    yield backend
    with contextlib.suppress(Exception):
        backend.delete_password("desktop-agent", ENTRY)


def run(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHON_KEYRING_BACKEND", "OLLAMA_HOST")}
    env.update(DESKTOP_AGENT_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT), PATH=bundles.python_on_path(tmp_path))
    return subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=env, cwd=ROOT,
                          stdin=subprocess.DEVNULL if stdin is None else None)


def test_the_sensitive_value_is_in_the_real_keyring_only(tmp_path, secret_service):
    done = run(tmp_path, "install", str(bundles.python_bundle(tmp_path)), stdin=f"{KEY}\n\n")
    assert done.returncode == 0, done.stderr
    assert "kept in the system keyring" in done.stdout
    assert secret_service.get_password("desktop-agent", ENTRY) == KEY
    forms = [KEY.encode(), base64.b64encode(KEY.encode())]
    home = tmp_path / "home"
    assert [p for p in home.rglob("*") if p.is_file() and any(f in p.read_bytes() for f in forms)] == []
    listed = run(tmp_path, "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "environment variable GREETER_KEY: in the keyring" in listed.stdout
    assert "greeter__greet" in listed.stdout
    removed = run(tmp_path, "remove", "greeter")
    assert removed.returncode == 0, removed.stderr
    assert secret_service.get_password("desktop-agent", ENTRY) is None
    assert not (home / "data" / "mcp-bundles" / "greeter").exists()
