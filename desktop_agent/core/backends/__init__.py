"""Backends: the protocol (:mod:`.base`), Ollama (:mod:`.ollama`), OpenAI-compatible servers (:mod:`.openai`)
and the key pool (:mod:`.keypool`). They are built only by :mod:`desktop_agent.core.assembly`.

The client libraries (``ollama``, ``openai``) are imported lazily, when a backend is built, so that the
window shows before their ~2 s of imports.
"""

from __future__ import annotations

from desktop_agent.core.backends.base import ChatBackend, Chunk, ModelInfo

__all__ = ["ChatBackend", "Chunk", "ModelInfo"]
