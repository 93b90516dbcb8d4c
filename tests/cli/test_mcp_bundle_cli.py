"""``desktop-agent mcp install FILE.mcpb`` as a process, with bundles built in the test from the manifest spec: the
bundle is shown, its values read from the input (one line each), the secret kept in the keyring (a file-backed
test backend) and not in the settings file, and ``mcp list`` starts the server and lists its tool; ``mcp remove``
deletes its files and secret; a zip-slip bundle, a bad manifest or a missing runtime install nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import bundles

ROOT = Path(__file__).resolve().parents[2]
KEY = "gk-typed-on-the-terminal-77"


def run(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "tests.helpers.keyrings.FileKeyring",
           "TEST_KEYRING_FILE": str(tmp_path / "keyring.json"), "PATH": bundles.python_on_path(tmp_path)}
    env.pop("OLLAMA_HOST", None)
    return subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=env, cwd=ROOT,
                          stdin=subprocess.DEVNULL if stdin is None else None)


def _installed(tmp_path: Path) -> list[str]:
    folder = tmp_path / "home" / "data" / "mcp-bundles"
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


def _settings(tmp_path: Path) -> str:
    path = tmp_path / "home" / "config" / "settings.json"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_install_a_python_bundle_then_list_its_tool_and_remove_it(tmp_path):
    bundle = bundles.python_bundle(tmp_path)
    done = run(tmp_path, "install", str(bundle), stdin=f"{KEY}\nHowdy\n")
    assert done.returncode == 0, done.stderr
    assert "Greeter 1.0.0 by Test Author (https://example.com)" in done.stdout
    assert "Tools: greet" in done.stdout and "Asks for: API key (string, required, secret)" in done.stdout
    assert "Installed Greeter 1.0.0 as the MCP server greeter." in done.stdout
    assert "kept in the system keyring" in done.stdout
    settings = _settings(tmp_path)
    assert KEY not in settings and json.loads(settings)["mcp"]["servers"][0]["env"] == {"GREETING": "Howdy"}
    stored = json.loads((tmp_path / "keyring.json").read_text(encoding="utf-8"))
    assert stored["desktop-agent\0secret:mcp:greeter:env:GREETER_KEY"] == KEY
    assert "1.0.0/server/main.py" in [p.removeprefix("greeter/") for p in _installed(tmp_path)]

    listed = run(tmp_path, "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "greeter  [ready (1 tool)]" in listed.stdout
    assert "    greeter__greet  Greet someone by name." in listed.stdout

    removed = run(tmp_path, "remove", "greeter")
    assert removed.returncode == 0, removed.stderr
    assert "Deleted its bundle's files" in removed.stdout
    assert _installed(tmp_path) == []
    assert json.loads((tmp_path / "keyring.json").read_text(encoding="utf-8")) == {}


def test_a_chat_in_the_terminal_calls_the_installed_bundles_tool(tmp_path, openai_server):
    assert run(tmp_path, "install", str(bundles.python_bundle(tmp_path)), "--set", f"api_key={KEY}",
               "--set", "greeting=Ahoy").returncode == 0
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "tests.helpers.keyrings.FileKeyring",
           "TEST_KEYRING_FILE": str(tmp_path / "keyring.json"), "PATH": bundles.python_on_path(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "desktop_agent", "chat", "--backend", "openai", "--base-url",
                           openai_server.url, "--model", "m", "--tool-choice", "greeter__greet", "--allow-tool",
                           "greeter__greet", "-p", "say hi"], capture_output=True, text=True, timeout=120, env=env,
                          cwd=ROOT, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert "Ahoy, friend! (key of 27 characters, ends 77)" in done.stdout  # the secret reached the server


def test_values_given_with_set_and_defaults_ask_nothing(tmp_path):
    done = run(tmp_path, "install", str(bundles.node_bundle(tmp_path)), "--defaults", "--set", "suffix=?!")
    assert done.returncode == 0, done.stderr
    server = json.loads(_settings(tmp_path))["mcp"]["servers"][0]
    home = str(Path.home())
    assert server["args"][1:] == [f"{home}/a", f"{home}/b"] and server["env"] == {"SUFFIX": "?!"}


def test_a_zip_slip_bundle_installs_nothing(tmp_path):
    bad = bundles.build(tmp_path / "slip.mcpb", bundles.python_manifest(),
                        {"server/main.py": bundles.PY_SERVER, "../../outside.py": "x"})
    done = run(tmp_path, "install", str(bad), stdin=f"{KEY}\n\n")
    assert done.returncode == 1
    assert "zip-slip" in done.stderr and "Nothing was installed." in done.stderr
    assert _installed(tmp_path) == [] and "greeter" not in _settings(tmp_path)


def test_a_bad_manifest_or_a_missing_runtime_installs_nothing(tmp_path):
    bad = bundles.build(tmp_path / "bad.mcpb", {"name": "x"}, {})
    done = run(tmp_path, "install", str(bad))
    assert done.returncode == 1 and "the manifest has no manifest_version" in done.stderr
    uv = bundles.build(tmp_path / "uv.mcpb", bundles.python_manifest(server={"type": "uv",
                                                                              "entry_point": "server/main.py"}),
                       {"server/main.py": bundles.PY_SERVER})
    done = run(tmp_path, "install", str(uv), stdin=f"{KEY}\n\n")
    if "uv was not found" not in done.stderr:
        assert done.returncode == 0  # uv is installed here: nothing is missing
        return
    assert done.returncode == 1 and "install uv" in done.stderr and "Nothing was installed." in done.stderr
    assert _installed(tmp_path) == [] and "greeter" not in _settings(tmp_path)
    assert not (tmp_path / "keyring.json").exists() or KEY not in (tmp_path / "keyring.json").read_text()


def test_on_a_terminal_the_values_are_asked_and_the_secret_is_not_echoed(tmp_path):
    import pty
    import select
    import time

    env = {**os.environ, "DESKTOP_AGENT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "tests.helpers.keyrings.FileKeyring",
           "TEST_KEYRING_FILE": str(tmp_path / "keyring.json"), "PATH": bundles.python_on_path(tmp_path)}
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "desktop_agent", "mcp", "install",
                             str(bundles.python_bundle(tmp_path))], stdin=slave, stdout=slave, stderr=slave,
                            env=env, cwd=ROOT, start_new_session=True)
    os.close(slave)
    seen = b""

    def until(text: bytes, timeout: float = 60) -> None:
        nonlocal seen
        deadline = time.monotonic() + timeout
        while text not in seen:
            assert time.monotonic() < deadline, seen.decode(errors="replace")
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(master, 4096)
                except OSError:
                    break

    try:
        until(b"API key (required): ")
        os.write(master, f"{KEY}\n".encode())
        until(b"Greeting [Hello]: ")
        os.write(master, b"\n")  # the default
        until(b"Installed Greeter 1.0.0")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert KEY.encode() not in seen  # typed without echo
    assert "Your greeter key" in seen.decode()  # the field's description, before its question
    stored = json.loads((tmp_path / "keyring.json").read_text(encoding="utf-8"))
    assert stored["desktop-agent\0secret:mcp:greeter:env:GREETER_KEY"] == KEY
    assert json.loads(_settings(tmp_path))["mcp"]["servers"][0]["env"] == {"GREETING": "Hello"}
