"""What a server says about a model — its context window and what it can do — and the window a chat uses.

Sources: Ollama's ``POST /api/show`` (``model_info["<arch>.context_length"]`` and ``capabilities``: ``tools``,
``thinking``, ``vision``…); OpenAI-compatible servers' ``GET /models`` entries where they say it (vLLM
``max_model_len``, OpenRouter-style ``context_length``, llama.cpp's ``meta.n_ctx_train``). A server that says
nothing leaves the facts unknown; the window then comes from the per-model setting or the default
(:class:`~desktop_agent.core.settings.ModelSettings`).

Facts are asked once per server and model and kept for the life of the process (:data:`FACTS`); a failed
question is asked again after :data:`RETRY_AFTER_S`, never on every request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["FACTS", "FactsCache", "ModelFacts", "facts_for", "facts_from_models_entry", "facts_from_show"]

#: seconds before a server that could not say is asked again
RETRY_AFTER_S = 60.0
#: the capabilities shown in the model picker, in order
SHOWN_CAPABILITIES = ("tools", "thinking", "vision")


@dataclass(frozen=True)
class ModelFacts:
    """``context_length``: the window the server reports, in tokens (None: not said). ``capabilities``: what
    the server says the model can do (None: it does not say — assume everything)."""

    context_length: int | None = None
    capabilities: frozenset[str] | None = None

    def can(self, what: str) -> bool:
        """False only when the server said which capabilities the model has and ``what`` is not one."""
        return self.capabilities is None or what in self.capabilities

    def shown(self) -> list[str]:
        """The known capabilities worth showing (``tools``, ``thinking``, ``vision``), in that order."""
        return [c for c in SHOWN_CAPABILITIES if self.capabilities is not None and c in self.capabilities]


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and value > 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip()) or None
    return None


def facts_from_show(data: Mapping[str, Any]) -> ModelFacts:
    """An ``/api/show`` answer (a dict) as facts."""
    info = data.get("model_info") or data.get("modelinfo") or {}
    length = None
    if isinstance(info, Mapping):
        arch = info.get("general.architecture")
        length = _positive_int(info.get(f"{arch}.context_length")) if arch else None
        if length is None:
            length = next((_positive_int(v) for k, v in info.items()
                           if str(k).endswith(".context_length") and _positive_int(v)), None)
    caps = data.get("capabilities")
    capabilities = frozenset(str(c) for c in caps) if isinstance(caps, (list, tuple)) else None
    return ModelFacts(length, capabilities)


def facts_from_models_entry(entry: Mapping[str, Any]) -> ModelFacts:
    """One ``/models`` entry of an OpenAI-compatible server as facts (its window, where it says one)."""
    for key in ("max_model_len", "context_length", "context_window", "max_context_length", "n_ctx"):
        length = _positive_int(entry.get(key))
        if length:
            return ModelFacts(length)
    meta = entry.get("meta")
    if isinstance(meta, Mapping):
        length = _positive_int(meta.get("n_ctx")) or _positive_int(meta.get("n_ctx_train"))
        if length:
            return ModelFacts(length)
    return ModelFacts()


FactsKey = tuple[str, str, str]


class FactsCache:
    """Facts per (backend, URL, model); thread-safe. ``clock`` is injectable for tests."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._facts: dict[FactsKey, tuple[ModelFacts, float | None]] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def get(self, key: FactsKey, ask: Callable[[], ModelFacts]) -> ModelFacts:
        """The facts for ``key``; ``ask()`` fetches them (it may raise: the facts are then unknown, and asked
        again after :data:`RETRY_AFTER_S`)."""
        now = self._clock()
        with self._lock:
            known = self._facts.get(key)
        if known is not None and (known[1] is None or known[1] > now):
            return known[0]
        try:
            facts, expires = ask(), None
        except Exception:  # noqa: BLE001 - facts are a help, never a reason for a turn to fail
            facts, expires = ModelFacts(), now + RETRY_AFTER_S
        with self._lock:
            self._facts[key] = (facts, expires)
        return facts

    def put(self, key: FactsKey, facts: ModelFacts) -> None:
        """Keep ``facts`` learned on the way (a model listing that carries them)."""
        with self._lock:
            self._facts[key] = (facts, None)

    def peek(self, key: FactsKey) -> ModelFacts | None:
        with self._lock:
            known = self._facts.get(key)
        return known[0] if known is not None else None

    def clear(self) -> None:
        with self._lock:
            self._facts.clear()


#: what this process knows about models
FACTS = FactsCache()


def facts_key(backend: Any, model: str | None = None) -> FactsKey:
    url = getattr(backend, "base_url", None) or getattr(backend, "host", None) or ""
    return (str(getattr(backend, "name", "") or ""), str(url).rstrip("/"),
            str(model if model is not None else getattr(backend, "model", "") or ""))


def facts_for(backend: Any, model: str | None = None, cache: FactsCache | None = None) -> ModelFacts:
    """What ``backend``'s server says about ``model`` (default: the backend's), asked at most once. A backend
    without ``fetch_model_facts`` (a test double) has unknown facts. Never raises."""
    fetch = getattr(backend, "fetch_model_facts", None)
    if fetch is None:
        return ModelFacts()
    name = model if model is not None else str(getattr(backend, "model", "") or "")
    return (cache or FACTS).get(facts_key(backend, name), lambda: fetch(name))


def window_for(facts: ModelFacts, *, setting: int | None, default: int, cap: int | None) -> int:
    """The context window a chat uses: the per-model ``setting``, else what the server reports, else
    ``default``; never above ``cap`` (when given)."""
    window = setting or facts.context_length or default
    return min(window, cap) if cap else window
