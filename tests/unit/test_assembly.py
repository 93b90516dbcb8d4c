"""core/assembly.py: one OLLAMA_HOST parser read as Ollama reads it, and backends keyed by everything that
built them (the layering of file, environment and flags is tested with core/services.py, test_services.py)."""

from __future__ import annotations

import pytest

from desktop_agent.core.assembly import (
    Assembly,
    KeySet,
    backend_spec,
    parse_ollama_host,
)
from desktop_agent.core.settings import Settings


@pytest.mark.parametrize(
    ("value", "url"),
    [
        (":11500", "http://127.0.0.1:11500"),
        ("gpu-box", "http://gpu-box:11434"),
        ("gpu-box:8080", "http://gpu-box:8080"),
        ("http://gpu-box", "http://gpu-box:80"),
        ("https://gpu-box", "https://gpu-box:443"),
        ("https://gpu-box:8443/ollama/", "https://gpu-box:8443/ollama"),
        ("0.0.0.0", "http://0.0.0.0:11434"),
        ("  '127.0.0.1:11434'  ", "http://127.0.0.1:11434"),
        ("[::1]:5000", "http://[::1]:5000"),
        ("[::1]", "http://[::1]:11434"),
        ("", "http://127.0.0.1:11434"),
    ],
)
def test_ollama_host_is_read_as_ollama_reads_it(value, url):
    assert parse_ollama_host(value) == url


def test_ollama_host_agrees_with_the_ollama_client():
    """The official client's own reading of a host (what `ollama` CLI users' OLLAMA_HOST means)."""
    from ollama._client import _parse_host

    for value in (":11500", "gpu-box", "gpu-box:1", "http://gpu-box", "https://gpu-box", "1.2.3.4/path", "[::1]:9"):
        assert parse_ollama_host(value) == _parse_host(value), value


def test_bad_port_is_a_value_error():
    with pytest.raises(ValueError, match="invalid port"):
        parse_ollama_host("gpu-box:abc")


def test_spec_holds_every_constructor_option_of_the_backend():
    """The cache key is the whole config by construction: every keyword the backend takes from settings."""
    import inspect

    from desktop_agent.core.backends.ollama import OllamaBackend
    from desktop_agent.core.backends.openai import OpenAIBackend

    # not settings: test hooks, and the keys (OpenAI's: fingerprinted in the cache key; a hosted Ollama's: the
    # environment snapshot's, fixed for the services' life)
    test_hooks = {"client", "sleep", "http_client", "clock", "max_retry_after_s", "api_keys", "api_key"}
    for settings, cls in ((Settings(), OllamaBackend), (Settings(backend="openai"), OpenAIBackend)):
        params = set(inspect.signature(cls.__init__).parameters) - {"self"} - test_hooks
        assert {name for name, _ in backend_spec(settings).options} == params, cls.__name__


class _Recorder:
    def __init__(self):
        self.built: list[tuple[Settings, KeySet]] = []

    def __call__(self, settings, keys):
        self.built.append((settings, keys))
        return _Closable()


class _Closable:
    closed = False
    name, model = "fake", "m"

    def close(self):
        self.closed = True


class _Keys:
    def __init__(self, keys):
        self.keys = keys

    def get_api_keys(self, base_url=None):
        return list(self.keys)

    def where(self, base_url=None):
        return "system keyring"


def test_backend_cache_is_keyed_by_whole_spec_and_key_fingerprint():
    secrets = _Keys(["sk-one"])
    factory = _Recorder()
    assembly = Assembly(secrets=secrets, backend_factory=factory)
    s = Settings(backend="openai")
    first = assembly.backend(s)
    assert assembly.backend(s) is first and len(factory.built) == 1
    secrets.keys = ["sk-two"]  # the key was fixed in Settings
    second = assembly.backend(s)
    assert second is not first and first.closed and factory.built[-1][1].keys == ("sk-two",)
    third = assembly.backend(s.updated({"openai.retry_interval_s": 3.0}))
    assert third is not second and second.closed
    assert KeySet(("sk-two",)).fingerprint != KeySet(("sk-one",)).fingerprint
    assert "sk-two" not in KeySet(("sk-two",)).fingerprint


def test_one_off_backend_uses_the_keys_given_instead_of_the_stored_ones():
    """Settings' Test connection tries keys not saved yet; without ``keys`` the stored ones are used."""
    factory = _Recorder()
    assembly = Assembly(secrets=_Keys(["sk-stored"]), backend_factory=factory)
    s = Settings(backend="openai")
    assembly.one_off_backend(s, keys=["sk-edited"])
    assert factory.built[-1][1] == KeySet(("sk-edited",), "not saved yet")
    assembly.one_off_backend(s, keys=[])
    assert factory.built[-1][1] == KeySet()
    assembly.one_off_backend(s)
    assert factory.built[-1][1].keys == ("sk-stored",)
    assert assembly._backend is None  # one-off backends are never cached


def test_default_prompt_speaks_of_tools_only_when_they_are_offered():
    from desktop_agent.core.assembly import system_prompt
    from desktop_agent.core.settings import DEFAULT_SYSTEM_PROMPT, TOOLS_PROMPT

    s = Settings()
    assert system_prompt(s, True) == f"{DEFAULT_SYSTEM_PROMPT}\n{TOOLS_PROMPT}"
    assert system_prompt(s, False) == DEFAULT_SYSTEM_PROMPT and "tool" not in DEFAULT_SYSTEM_PROMPT.lower()
    own = s.updated({"loop.system_prompt": "Answer in French."})
    assert system_prompt(own, True) == system_prompt(own, False) == "Answer in French."


def test_the_first_default_prompt_in_an_old_file_becomes_the_current_default():
    old = ("You are a helpful AI assistant. When using tools, always provide a natural, complete response "
           "using the information gathered.\nFormat your response as a short, coherent sentence.")
    from desktop_agent.core.settings import DEFAULT_SYSTEM_PROMPT

    assert Settings.model_validate({"system_prompt": old}).loop.system_prompt == DEFAULT_SYSTEM_PROMPT
    assert Settings.model_validate({"system_prompt": "Mine."}).loop.system_prompt == "Mine."
