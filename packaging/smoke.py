"""Smoke-test the PyInstaller build in ``packaging/dist/desktop-agent`` (run by ``build.sh --check``).

Checks, each on a fresh ``DESKTOP_AGENT_HOME`` and from outside the checkout (so nothing can come from
the source tree):

1. ``desktop-agent --version`` prints the version;
2. ``desktop-agent tools`` lists the shipped tools, tagged ``[shipped]``, with nothing on stderr;
3. ``desktop-agent chat --host URL -p "what day is it?"`` answers through the ``today`` tool, against
   the fake Ollama server of the test suite (``python -m tests.servers.ollama --port N``);
4. the window starts offscreen, stays up for a few seconds (killed with SIGTERM after that) with a
   clean stderr and no traceback in its log;
5. the window again, with the build's grab hook (``DESKTOP_AGENT_SMOKE_GRAB``, see packaging/entry.py):
   a PNG of the main window is saved and the app quits with code 0.

Exit code 0 when every check passes; the failures are printed otherwise.
Usage: ``python packaging/smoke.py [--app PATH] [--grab PNG] [--seconds S]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_APP = ROOT / "packaging" / "dist" / "desktop-agent" / "desktop-agent"
SHIPPED = {"today", "day_of_week", "say_hello", "get_current_weather", "calculator"}
# Lines Qt prints on every offscreen start; not a problem of the app.
BENIGN_STDERR = (
    re.compile(r"^This plugin does not support propagateSizeHints\(\)"),
    re.compile(r"^desktop-agent smoke: grab saved to "),
)
REQUIRED_MODULES = (
    "desktop_agent.ui.application", "desktop_agent.ui.main_window", "desktop_agent.ui.markdown",
    "desktop_agent.ui.history.panel", "desktop_agent.ui.settings.dialog", "desktop_agent.core.backends.ollama",
    "desktop_agent.core.backends.openai",
    "desktop_agent.core.secrets", "desktop_agent.core.store", "openai", "ollama", "httpx", "keyring",
    "keyring.backends.SecretService", "keyring.backends.chainer", "secretstorage", "jeepney", "jeepney.io.blocking",
    "markdown_it", "pygments.lexers.python", "pygments.styles.default", "pygments.styles.gh_dark",
    "pygments.formatters.html", "zoneinfo", "platformdirs.unix",
)
UNWANTED_MODULES = ("numpy", "mypy", "tkinter", "PySide6.QtQml", "PySide6.QtQuick", "pytest",
                    "tests")
BAD_LOG = re.compile(r"Traceback|ModuleNotFoundError|ImportError|could not import|unavailable|CRITICAL")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def unexpected_stderr(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not any(p.search(line) for p in BENIGN_STDERR)]


class Smoke:
    def __init__(self, app: Path, grab: Path, seconds: float):
        self.app, self.grab, self.seconds = app, grab, seconds
        self.failures: list[str] = []
        self._servers: list[subprocess.Popen] = []
        self.ollama_port: int | None = None
        self.work = Path(tempfile.mkdtemp(prefix="desktop-agent-smoke-"))

    def env(self, name: str, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTHON", "DESKTOP_AGENT_", "OLLAMA_", "OPENAI_", "QT_"))}
        env.update(DESKTOP_AGENT_HOME=str(self.work / name), QT_QPA_PLATFORM="offscreen", **extra)
        return env

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + (f"\n     {detail}" if detail and not ok else ""))
        if not ok:
            self.failures.append(what)
        return ok

    def run(self, *args: str, name: str, timeout: float = 60, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.app), *args], capture_output=True, text=True, timeout=timeout,
                              cwd=self.work, env=self.env(name, **extra))

    # ---- checks ----------------------------------------------------------------------------------

    def contents(self) -> None:
        """What the analysis must have bundled (modules imported lazily or by name) and left out."""
        internal = self.app.parent / "_internal"
        shipped = sorted(p.name for p in (internal / "desktop_agent" / "shipped_tools").glob("*.py"))
        self.check(bool(shipped), f"bundled shipped tools: {' '.join(shipped)}")
        icons = list((internal / "desktop_agent" / "resources" / "icons").glob("*.svg"))
        self.check(len(icons) > 0, f"bundled resources: {len(icons)} icons")
        package = ROOT / "desktop_agent"
        data = sorted(str(p.relative_to(package)) for p in package.rglob("*")
                      if p.is_file() and p.suffix not in (".py", ".pyc", ".pyo") and "__pycache__" not in p.parts)
        missing_data = [name for name in data if not (internal / "desktop_agent" / name).is_file()]
        self.check(bool(data) and not missing_data, f"bundled package data files: {' '.join(data)}",
                   f"missing: {missing_data}")
        try:
            from PyInstaller.archive.readers import CArchiveReader
        except ImportError:
            print("skip bundled-module check (PyInstaller is not importable here)")
            return
        pyz = CArchiveReader(str(self.app)).open_embedded_archive("PYZ.pyz")
        names = set(pyz.toc)
        missing = sorted(m for m in REQUIRED_MODULES if m not in names)
        self.check(not missing, f"bundled lazily imported modules ({len(REQUIRED_MODULES)} checked)",
                   f"missing: {missing}")
        present = sorted(m for m in UNWANTED_MODULES if m in names)
        self.check(not present, "unneeded modules left out (numpy, tkinter, unused Qt modules, tests)",
                   f"present: {present}")
        qt_libs = sorted(p.name for p in (internal / "PySide6" / "Qt" / "lib").glob("*.so*"))
        self.check(not any(n.startswith(("libQt6Qml", "libQt6Quick")) for n in qt_libs),
                   f"Qt libraries: {' '.join(qt_libs)}")


    def version(self) -> None:
        p = self.run("--version", name="version")
        self.check(p.returncode == 0 and re.fullmatch(r"desktop-agent \S+\n", p.stdout) is not None,
                   f"--version → {p.stdout.strip()!r}", p.stderr)

    def tools(self) -> None:
        start = time.perf_counter()
        p = self.run("tools", name="tools")
        took = time.perf_counter() - start
        listed = {line.split()[0]: line for line in p.stdout.splitlines() if line.strip()}
        missing = SHIPPED - set(listed)
        self.check(p.returncode == 0 and not missing, f"tools lists the shipped tools ({took:.2f} s)",
                   f"rc={p.returncode} missing={sorted(missing)}\n{p.stdout}{p.stderr}")
        self.check(all("[shipped]" in listed[n] for n in SHIPPED & set(listed)), "tools are tagged [shipped]",
                   p.stdout)
        self.check(not p.stderr.strip(), "tools: stderr is empty", p.stderr)

    def server(self, module: str, *args: str) -> tuple[subprocess.Popen, int] | None:
        """Start ``python -m tests.servers.<module> --port N ARGS`` from the checkout; None if it failed."""
        port = free_port()
        errors = self.work / f"{module}-server-{port}.err"
        with errors.open("w") as err:  # a file, not a pipe: a chatty server can never block on it
            proc = subprocess.Popen([sys.executable, "-m", f"tests.servers.{module}", "--port", str(port), *args],
                                    cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True)
        line = proc.stdout.readline()  # both servers print their URL once they listen
        if f"127.0.0.1:{port}" not in line:
            proc.kill()
            proc.wait()
            self.check(False, f"fake {module} server on port {port}", line + errors.read_text())
            return None
        self._servers.append(proc)
        return proc, port

    def stop_servers(self) -> None:
        for proc in self._servers:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._servers.clear()

    def chat(self) -> None:
        started = self.server("ollama", "--chunk-delay", "0")
        if started is None:
            return
        _, port = started
        start = time.perf_counter()
        p = self.run("chat", "--host", f"http://127.0.0.1:{port}", "-p", "what day is it?", "--events", name="chat")
        took = time.perf_counter() - start
        events = []
        for ln in p.stdout.splitlines():
            with contextlib.suppress(ValueError):
                events.append(json.loads(ln))
        tools_called = [e.get("name") for e in events if e.get("type") == "ToolCallStarted"]
        finished = [e for e in events if e.get("type") == "AnswerFinished"]
        self.check(p.returncode == 0 and bool(finished), f"chat -p 'what day is it?' answers ({took:.2f} s)",
                   f"rc={p.returncode}\n{p.stdout}{p.stderr}")
        self.check("today" in tools_called, f"chat: the model called the shipped 'today' tool {tools_called}",
                   p.stdout)
        plain = self.run("chat", "--host", f"http://127.0.0.1:{port}", "-p", "what day is it?", name="chat")
        print(f"     answer: {plain.stdout.strip()[:160]!r}")
        self.check(plain.returncode == 0 and plain.stdout.strip() != "" and not unexpected_stderr(plain.stderr),
                   "chat (plain text): an answer on stdout, stderr clean", plain.stdout + plain.stderr)
        self.ollama_port = port

    def keyring(self) -> None:
        """The SecretService backend works in the frozen app: a key stored in the session's keyring (by the
        checkout's SecretStore) is the only key the fake OpenAI server accepts. Needs a D-Bus session with an
        unlocked Secret Service (scripts/with-keyring.sh); skipped without one."""
        if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
            print("skip keyring check (no D-Bus session: run under scripts/with-keyring.sh)")
            return
        key = "sk-smoke-" + os.urandom(6).hex()
        started = self.server("openai", "--key", key, "--model", "smoke-model")
        if started is None:
            return
        _, port = started
        base_url = f"http://127.0.0.1:{port}/v1"
        # The provider is chosen in the settings file, as the Settings dialog saves it (the keys are looked
        # up for the saved base URL).
        config = self.work / "keyring" / "config"
        config.mkdir(parents=True, exist_ok=True)
        (config / "settings.json").write_text(json.dumps(
            {"backend": "openai", "openai_base_url": base_url, "openai_model": "smoke-model"}))
        store = subprocess.run(
            [sys.executable, "-c", "import sys; from desktop_agent.core.secrets import SecretStore; "
             "s = SecretStore(); print(s.set_api_keys([sys.argv[1]], sys.argv[2]), s.problem or '')",
             key, base_url],
            cwd=ROOT, capture_output=True, text=True, timeout=60, env=self.env("keyring"))
        if not self.check(store.returncode == 0 and "system keyring" in store.stdout,
                          "keyring: a test key stored in the session's Secret Service", store.stdout + store.stderr):
            return
        p = self.run("chat", "-p", "hello", name="keyring")
        self.check(p.returncode == 0 and p.stdout.strip() != "",
                   "keyring: the frozen app read the key through SecretService (server accepted it)",
                   f"rc={p.returncode}\n{p.stdout}{p.stderr}")

    def window_stays_up(self) -> None:
        port = free_port()  # nothing listens: the window reports an unreachable server, it must not crash
        env = self.env("window", OLLAMA_HOST=f"http://127.0.0.1:{port}")
        proc = subprocess.Popen([str(self.app)], cwd=self.work, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(self.seconds)
        alive = proc.poll() is None
        if alive:
            proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        self.check(alive, f"window runs offscreen for {self.seconds:.0f} s", f"rc={proc.returncode}\n{out}{err}")
        bad = unexpected_stderr(err)
        self.check(not bad, "window: stderr clean", "\n".join(bad[:20]))
        self.check_log("window")

    def window_grab(self) -> None:
        self.grab.parent.mkdir(parents=True, exist_ok=True)
        self.grab.unlink(missing_ok=True)
        port = self.ollama_port or free_port()  # the fake server: the window lists its models
        p = subprocess.run([str(self.app)], cwd=self.work, capture_output=True, text=True, timeout=60,
                           env=self.env("grab", OLLAMA_HOST=f"http://127.0.0.1:{port}",
                                        DESKTOP_AGENT_SMOKE_GRAB=str(self.grab),
                                        DESKTOP_AGENT_SMOKE_MS=str(int(self.seconds * 1000))))
        self.check(p.returncode == 0 and self.grab.is_file() and self.grab.stat().st_size > 1000,
                   f"window grab saved to {self.grab}", f"rc={p.returncode}\n{p.stdout}{p.stderr}")
        bad = unexpected_stderr(p.stderr)
        self.check(not bad, "window grab: stderr clean", "\n".join(bad[:20]))
        self.check_log("grab")

    def check_log(self, name: str) -> None:
        logs = list((self.work / name / "log").glob("*.log*"))
        text = "\n".join(path.read_text(errors="replace") for path in logs)
        bad = [ln for ln in text.splitlines() if BAD_LOG.search(ln)]
        self.check(bool(logs) and not bad, f"{name}: log written, no import error or traceback",
                   "\n".join(bad[:20]) or "no log file")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app", type=Path, default=DEFAULT_APP)
    parser.add_argument("--grab", type=Path, default=ROOT / "packaging" / "dist" / "smoke-window.png")
    parser.add_argument("--seconds", type=float, default=4.0, help="how long the window runs")
    args = parser.parse_args(argv)
    if not args.app.is_file():
        print(f"no build at {args.app}: run packaging/build.sh first", file=sys.stderr)
        return 2
    smoke = Smoke(args.app.resolve(), args.grab.resolve(), args.seconds)
    try:
        smoke.contents()
        smoke.version()
        smoke.tools()
        smoke.chat()
        smoke.keyring()
        smoke.window_stays_up()
        smoke.window_grab()
    finally:
        smoke.stop_servers()
    print(f"== smoke: {len(smoke.failures)} failed" + (f": {', '.join(smoke.failures)}" if smoke.failures else ""))
    return 1 if smoke.failures else 0


if __name__ == "__main__":
    sys.exit(main())
