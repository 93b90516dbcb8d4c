"""Server addresses as people paste them (issue 13): what is unambiguous is fixed, the rest is refused with a
reason (and a 404 without /v1 suggests it, see tests/contract/test_readable_errors.py)."""

from __future__ import annotations

import pytest

from desktop_agent.core.settings import Settings
from desktop_agent.core.urls import clean_base_url, clean_ollama_host, suggest_v1


@pytest.mark.parametrize(
    "pasted, used",
    [
        ("http://localhost:8080/v1", "http://localhost:8080/v1"),
        ("http://localhost:8080/v1/", "http://localhost:8080/v1"),
        ("  http://localhost:8080/v1 \n", "http://localhost:8080/v1"),
        ('"http://localhost:8080/v1"', "http://localhost:8080/v1"),
        ("<https://api.openai.com/v1>", "https://api.openai.com/v1"),
        ("http://localhost:8080/v1/chat/completions", "http://localhost:8080/v1"),
        ("https://api.openai.com/v1/chat/completions/", "https://api.openai.com/v1"),
        ("http://127.0.0.1:1234/v1/models", "http://127.0.0.1:1234/v1"),
        ("http://127.0.0.1:1234/v1/completions", "http://127.0.0.1:1234/v1"),
        ("http://gpu-box:8000/v1/chat/completions?api-version=1", "http://gpu-box:8000/v1"),
        ("http://localhost:8080/chat/completions", "http://localhost:8080"),  # llama.cpp serves it there too
        ("https://openrouter.ai/api/v1/chat/completions", "https://openrouter.ai/api/v1"),
        ("localhost:1234/v1", "http://localhost:1234/v1"),  # a local address: http is the only sensible reading
        ("127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),
        ("http://localhost:8080", "http://localhost:8080"),  # a missing /v1 is not added (some have none)
        ("https://api.deepseek.com", "https://api.deepseek.com"),
    ],
)
def test_openai_base_urls_as_pasted(pasted, used):
    assert clean_base_url(pasted) == used
    assert Settings(openai_base_url=pasted).openai.base_url == used  # the settings file, the dialog, the CLI


@pytest.mark.parametrize("pasted", ["api.openai.com/v1", "ftp://x/v1", "http://", "http://bad host/v1", ""])
def test_what_cannot_be_fixed_is_refused_with_a_reason(pasted):
    with pytest.raises(ValueError, match=r"not a URL|invalid port"):
        clean_base_url(pasted)


@pytest.mark.parametrize(
    "pasted, used",
    [
        ("http://localhost:11434", "http://localhost:11434"),
        ("http://localhost:11434/", "http://localhost:11434"),
        ("localhost:11434", "http://localhost:11434"),
        ("gpu-box", "http://gpu-box:11434"),  # as OLLAMA_HOST is read
        (":11500", "http://127.0.0.1:11500"),
        ("http://localhost:11434/api/chat", "http://localhost:11434"),
        ("http://localhost:11434/api", "http://localhost:11434"),
        ("http://localhost:11434/v1", "http://localhost:11434"),  # Ollama's OpenAI endpoint: not this backend's
        ("https://proxy.example/ollama/api/tags", "https://proxy.example/ollama"),
        ("https://proxy.example/ollama", "https://proxy.example/ollama"),
    ],
)
def test_ollama_hosts_as_pasted(pasted, used):
    assert clean_ollama_host(pasted) == used
    assert Settings(ollama_host=pasted).ollama.host == used


def test_suggest_v1():
    assert suggest_v1("http://localhost:1234/") == "http://localhost:1234/v1"
