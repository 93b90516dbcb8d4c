"""What a server says about a model — its context window and what it can do — and the window a chat uses.

Sources: Ollama's ``POST /api/show`` (``model_info["<arch>.context_length"]``, the Modelfile's ``num_ctx``
parameter, and ``capabilities``: ``tools``, ``thinking``, ``vision``…); OpenAI-compatible servers' ``GET /models``
entries where they say it (vLLM ``max_model_len``, OpenRouter-style ``context_length``) and llama.cpp's
``GET /props`` (``default_generation_settings.n_ctx``: the window it serves). llama.cpp's ``meta.n_ctx_train`` is
the window the model was *trained* with, not the one served (``--ctx-size``): it only caps a guess. A server that
says nothing leaves the facts unknown; the window then comes from the per-model setting or the default
(:class:`~desktop_agent.core.settings.ModelSettings`) — an *assumed* window, and the context meter says so —
until a request the server refused as too long says the window in its error (learned, see
:func:`~desktop_agent.core.state.learn_from_error`).

Facts are asked once per server and model and kept for the life of the process (a :class:`FactsCache`: the
process's is :data:`desktop_agent.core.state.FACTS`); a failed question is asked again after
:data:`RETRY_AFTER_S`, never on every request.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["FactsCache", "ModelFacts", "Window", "facts_from_models_entry", "facts_from_props", "facts_from_show",
           "window_for"]

#: seconds before a server that could not say is asked again
RETRY_AFTER_S = 60.0
#: the capabilities shown in the model picker, in order
SHOWN_CAPABILITIES = ("tools", "thinking", "vision")


@dataclass(frozen=True)
class ModelFacts:
    """``context_length``: the window the server reports, in tokens (None: not said). ``capabilities``: what
    the server says the model can do (None: it does not say — assume everything). ``trained``: the window the
    model was trained with, where a server says only that (llama.cpp's ``n_ctx_train``): the most it could
    serve, not what it serves. ``num_ctx``: the window an Ollama model is served with by default (its
    Modelfile's ``num_ctx`` parameter)."""

    context_length: int | None = None
    capabilities: frozenset[str] | None = None
    trained: int | None = None
    num_ctx: int | None = None

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
    return ModelFacts(length, capabilities, num_ctx=_num_ctx_parameter(data.get("parameters")))


_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.M)


def _num_ctx_parameter(parameters: Any) -> int | None:
    """``num_ctx`` of ``/api/show``'s ``parameters`` (the Modelfile's, one ``name value`` a line)."""
    if isinstance(parameters, Mapping):
        return _positive_int(parameters.get("num_ctx"))
    found = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    return _positive_int(found.group(1)) if found else None


def facts_from_models_entry(entry: Mapping[str, Any]) -> ModelFacts:
    """One ``/models`` entry of an OpenAI-compatible server as facts (its window, where it says one; llama.cpp's
    ``meta.n_ctx_train`` only as the trained window)."""
    for key in ("max_model_len", "context_length", "context_window", "max_context_length", "n_ctx"):
        length = _positive_int(entry.get(key))
        if length:
            return ModelFacts(length)
    meta = entry.get("meta")
    if isinstance(meta, Mapping):
        length = _positive_int(meta.get("n_ctx"))
        if length:
            return ModelFacts(length)
        return ModelFacts(trained=_positive_int(meta.get("n_ctx_train")))
    return ModelFacts()


def facts_from_props(data: Any, known: ModelFacts | None = None) -> ModelFacts:
    """llama.cpp's ``GET /props`` answer: the window it serves (``default_generation_settings.n_ctx``, or a
    top-level ``n_ctx``), added to what ``known`` says (None: nothing said)."""
    known = known or ModelFacts()
    if not isinstance(data, Mapping):
        return known
    settings = data.get("default_generation_settings")
    length = _positive_int(settings.get("n_ctx")) if isinstance(settings, Mapping) else None
    length = length or _positive_int(data.get("n_ctx"))
    return replace(known, context_length=length) if length else known


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


def facts_key(backend: Any, model: str | None = None) -> FactsKey:
    url = getattr(backend, "base_url", None) or getattr(backend, "host", None) or ""
    return (str(getattr(backend, "name", "") or ""), str(url).rstrip("/"),
            str(model if model is not None else getattr(backend, "model", "") or ""))


@dataclass(frozen=True)
class Window:
    """A chat's context window: ``tokens``, and where the number comes from (``source``): ``setting`` (the
    per-model setting), ``server`` (the server said it), ``learned`` (a request the server refused said it), or
    ``assumed`` (a guess: the default)."""

    tokens: int
    source: str = "assumed"

    @property
    def assumed(self) -> bool:
        """True when the window is a guess: the context meter says so."""
        return self.source == "assumed"


def window_for(facts: ModelFacts, *, setting: int | None, default: int, cap: int | None,
               learned: int | None = None) -> Window:
    """The context window a chat uses: the per-model ``setting``, else what the server reports (an Ollama
    model's ``num_ctx``, else its window), else ``default`` (assumed; never above the model's trained window);
    never above ``cap`` (when given), nor above a window ``learned`` from the server's own refusal."""
    if setting:
        window = Window(setting, "setting")
    elif facts.num_ctx or facts.context_length:
        window = Window(facts.num_ctx or facts.context_length or default, "server")
        if facts.num_ctx and facts.context_length:
            window = Window(min(facts.num_ctx, facts.context_length), "server")
    else:
        window = Window(min(default, facts.trained) if facts.trained else default)
    if cap and window.tokens > cap:
        window = Window(cap, window.source)
    if learned and learned < window.tokens:
        window = Window(learned, "learned")
    elif learned and window.assumed:
        window = Window(window.tokens, "learned")  # the server took this much: no longer a guess
    return window


def window_info(backend: Any) -> Window | None:
    """``backend``'s window and where it comes from (None: a backend that cannot say, such as a test double
    with only ``context_window``, or one whose window cannot be read). Never raises."""
    info = getattr(backend, "window_info", None)
    try:
        if callable(info):
            value = info()
            return value if isinstance(value, Window) else None
        tokens = getattr(backend, "context_window", None)
        value = tokens() if callable(tokens) else None
    except Exception:  # noqa: BLE001 - the window is a help; a turn never fails for it
        return None
    return Window(value, "server") if isinstance(value, int) and value > 0 else None
