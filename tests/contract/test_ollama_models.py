"""Contract tests: model management through OllamaBackend against the local Ollama protocol server —
``/api/tags``, ``/api/pull`` (streamed progress, cancel), ``/api/delete``, ``/api/version``
(Ollama API doc, docs/api.md in ollama/ollama)."""

from __future__ import annotations

import threading

import pytest

from desktop_agent.core import errors
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.backends.ollama_models import PullProgress


@pytest.fixture
def backend(ollama_server):
    b = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10)
    yield b
    b.close()


def test_list_models(backend, ollama_server):
    models = backend.list_models()
    assert [m.name for m in models] == ["llama3.2:latest", "qwen3:8b"]
    m = models[0]
    assert m.size == 2_019_393_189
    assert m.modified_at == "2025-01-01T12:00:00.000000000Z"
    assert m.details["parameter_size"] == "3.2B"
    assert m.details["quantization_level"] == "Q4_K_M"
    assert ollama_server.requests[-1] == ("/api/tags", None)


def test_list_models_older_servers_send_only_name(backend, ollama_server):
    """The API doc's /api/tags example has ``name`` but no ``model`` (ollama-python reads only
    ``model``): names still come through."""
    for m in ollama_server.models:
        del m["model"]
    assert [m.name for m in backend.list_models()] == ["llama3.2:latest", "qwen3:8b"]


def test_list_models_empty(backend, ollama_server):
    ollama_server.models.clear()
    assert backend.list_models() == []


def test_server_version(backend):
    assert backend.server_version() == "0.12.6"


def test_pull_streams_progress_and_installs(backend, ollama_server):
    progress = list(backend.pull_model("tinyllama"))
    assert progress[0] == PullProgress(status="pulling manifest")
    assert progress[0].fraction is None
    downloading = [p for p in progress if p.total]
    assert len(downloading) == 6
    fractions = [p.fraction for p in downloading]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert fractions == sorted(fractions)
    assert all(p.digest and p.digest.startswith("sha256:") for p in downloading)
    assert [p.status for p in progress[-3:]] == ["verifying sha256 digest", "writing manifest", "success"]
    assert progress[-1].done
    assert ollama_server.requests[-1] == ("/api/pull", {"model": "tinyllama", "stream": True})
    assert "tinyllama:latest" in [m.name for m in backend.list_models()]


def test_pull_cancel_closes_the_stream(backend, ollama_server):
    ollama_server.pull_delay_s = 0.1
    ollama_server.pull_steps = 50
    cancel = threading.Event()
    seen = []
    for p in backend.pull_model("tinyllama", cancel=cancel):
        seen.append(p)
        if len(seen) == 3:
            cancel.set()
    assert len(seen) == 3
    assert not any(p.done for p in seen)
    assert "tinyllama:latest" not in [m.name for m in backend.list_models()]


def test_pull_cancel_before_start_sends_nothing(backend, ollama_server):
    cancel = threading.Event()
    cancel.set()
    assert list(backend.pull_model("tinyllama", cancel=cancel)) == []
    assert ("/api/pull", {"model": "tinyllama", "stream": True}) not in ollama_server.requests


def test_pull_error_line_is_backend_error(backend, ollama_server):
    ollama_server.pull_error = "pull model manifest: file does not exist"
    seen = []
    with pytest.raises(errors.BackendError) as info:
        for p in backend.pull_model("no-such-model"):
            seen.append(p)
    assert [p.status for p in seen] == ["pulling manifest"]
    assert "pulling 'no-such-model' failed: pull model manifest: file does not exist" in str(info.value)


def test_pull_stream_ending_early_is_answer_cut_off(backend, ollama_server):
    """A pull stream that stops without ``success`` (the server went away) is not a finished pull."""
    ollama_server.pull_delay_s = 0.05
    ollama_server.pull_steps = 100
    seen = []
    with pytest.raises(errors.AnswerCutOff):
        for p in backend.pull_model("tinyllama"):
            seen.append(p)
            if len(seen) == 2:
                ollama_server.stop()  # streams end at their next line, connection dropped


def test_delete_model(backend, ollama_server):
    backend.delete_model("qwen3:8b")
    assert [m.name for m in backend.list_models()] == ["llama3.2:latest"]
    assert ("/api/delete", {"model": "qwen3:8b"}) in ollama_server.requests


def test_delete_missing_model_is_model_not_found(backend):
    with pytest.raises(errors.ModelNotFound) as info:
        backend.delete_model("nope:1b")
    assert info.value.model == "nope:1b"
    assert info.value.available == ["llama3.2:latest", "qwen3:8b"]


def test_version_from_a_server_that_is_not_ollama(ollama_server):
    """Something else answering on the port: a clear error, not a KeyError."""
    ollama_server.version = ""
    b = OllamaBackend(ollama_server.url, "llama3.2")
    with pytest.raises(errors.BackendError) as info:
        b.server_version()
    b.close()
    assert "did not report a version" in str(info.value)
