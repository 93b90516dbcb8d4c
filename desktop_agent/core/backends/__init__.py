"""Backends: :func:`create_backend` builds the one the settings ask for.

The client libraries (``ollama``, ``openai``) are imported here lazily, on first use, so that the
window shows before their ~2 s of imports.
"""

from __future__ import annotations

from desktop_agent.core.backends.base import ChatBackend, Chunk, ModelInfo
from desktop_agent.core.settings import Settings, is_loopback_url

__all__ = ["ChatBackend", "Chunk", "ModelInfo", "create_backend"]


def create_backend(settings: Settings, api_keys: list[str] | None = None) -> ChatBackend:
    """The backend for ``settings.backend``. ``api_keys`` are the OpenAI-compatible keys (from
    :class:`~desktop_agent.core.secrets.SecretStore`); unused for Ollama."""
    if settings.backend == "ollama":
        from desktop_agent.core.backends.ollama import OllamaBackend

        return OllamaBackend(
            settings.ollama_host,
            settings.ollama_model,
            temperature=settings.temperature,
            keep_alive=settings.keep_alive,
            format=settings.format,
            think=settings.think,
            timeout_s=settings.ollama_timeout_s,
        )
    from desktop_agent.core.backends.openai import OpenAIBackend

    return OpenAIBackend(
        settings.openai_base_url,
        settings.openai_model,
        list(api_keys or []),
        temperature=settings.temperature,
        timeout_s=settings.openai_timeout_s,
        retries_per_key=settings.openai_retries_per_key,
        retry_interval_s=settings.openai_retry_interval_s,
        # a local server (LM Studio, llama.cpp, vLLM on loopback) gets a placeholder key when none is set
        needs_key=settings.openai_needs_key and not (not api_keys and is_loopback_url(settings.openai_base_url)),
        null_tool_content=settings.openai_null_tool_content,
    )
