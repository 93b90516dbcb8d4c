"""What this process remembers while it runs, in one place, with one :func:`reset` back to a fresh process.

The caches (read them as ``state.NAME`` at the time of use, never ``from … state import NAME``: :func:`reset`
puts fresh objects in their place):

- :data:`LEARNED` — what a server and model turned out to be able to do (streaming with tools, tools at
  all); the assembly keeps it in a file of the cache folder too (:mod:`.capabilities`);
- :data:`CALIBRATION` — per server and model, reported against estimated prompt tokens, and the window a
  refusal named (:mod:`.tokens`);
- :data:`FACTS` — what a server says about a model: its window, its capabilities (:mod:`.model_info`);
- :data:`NO_LONE_CLOSE` — per backend, the models seen answering without a lone ``</think>`` (:mod:`.agent`);
- :data:`PERMISSIONS` — the permission engine of a tool call dispatched with none (no rules: the defaults);
- :data:`SESSION_KEYS`, :data:`SESSION_SECRETS` (under :data:`SESSION_LOCK`) — API keys and other secrets
  the keyring could not take, kept for this session only, in memory only (:mod:`.secrets`).

:func:`reset` also puts the data folder back to the platform's (:func:`.paths.set_home`; ``paths`` keeps
that override itself: it is a setting of the run, given by ``--data-dir``, not something learned).

What stays where it is, because it is machinery, not memory — a fresh one would change no answer:

- ``streams._WATCHDOG`` and ``streams._WORKERS``: the one watchdog thread and the worker pool of blocking
  reads; replacing them would orphan running threads;
- ``tools.host._HOSTS``: a weak set of the live tool-host processes, only so that they are killed at exit;
- ``tokens._CALLS_CACHE`` / ``_TOOLS_CACHE`` and ``thinktags``' ``lru_cache``: memos of pure functions
  (the same estimate or split with or without them);
- thread-locals (``streams._local``, ``backends.deadline._local``): per thread and per call, not per process.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from desktop_agent.core import paths
from desktop_agent.core.capabilities import Capabilities, server_key
from desktop_agent.core.model_info import FactsCache, ModelFacts, facts_key
from desktop_agent.core.tokens import Calibration
from desktop_agent.core.tools.permissions import PermissionEngine

__all__ = ["CALIBRATION", "FACTS", "LEARNED", "NO_LONE_CLOSE", "PERMISSIONS", "SESSION_KEYS", "SESSION_LOCK",
           "SESSION_SECRETS", "facts_for", "learn_from_error", "learned_window", "reset"]

#: what was learned about servers and models; every agent shares it (the window builds an agent per turn)
LEARNED = Capabilities()
#: token counts as servers report them, against our estimates; windows refusals named
CALIBRATION = Calibration()
#: what servers said about their models
FACTS = FactsCache()
#: backend instance → models seen answering without a lone ``</think>``. Keyed by the backend, not the
#: Agent: the window builds an Agent per turn.
NO_LONE_CLOSE: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
#: the engine of a dispatch given none: no rules, the defaults (an "ask" tool with no one to ask is denied)
PERMISSIONS = PermissionEngine()
#: keys kept for this session only: normalised base URL → keys. Memory only, never written.
SESSION_KEYS: dict[str, list[str]] = {}
#: other secrets the keyring could not take, for this session only
SESSION_SECRETS: dict[str, str] = {}
#: guards SESSION_KEYS and SESSION_SECRETS
SESSION_LOCK = threading.Lock()


def reset() -> None:
    """Forget everything this process learned or was told for the session: as if it had just started."""
    global LEARNED, CALIBRATION, FACTS, NO_LONE_CLOSE, PERMISSIONS, SESSION_KEYS, SESSION_SECRETS
    with SESSION_LOCK:  # a secret being read now finishes with the old dict; the next read sees the new one
        SESSION_KEYS, SESSION_SECRETS = {}, {}
    LEARNED.clear()  # the old one may be held by an agent still running: it forgets its file too
    LEARNED, CALIBRATION, FACTS = Capabilities(), Calibration(), FactsCache()
    NO_LONE_CLOSE = weakref.WeakKeyDictionary()
    PERMISSIONS = PermissionEngine()
    paths.set_home(None)


# ---- what a backend asks of the caches ---------------------------------------------------------------


def facts_for(backend: Any, model: str | None = None, cache: FactsCache | None = None) -> ModelFacts:
    """What ``backend``'s server says about ``model`` (default: the backend's), asked at most once per process
    (:data:`FACTS`, or ``cache``). A backend without ``fetch_model_facts`` (a test double) has unknown facts.
    Never raises."""
    fetch = getattr(backend, "fetch_model_facts", None)
    if fetch is None:
        return ModelFacts()
    name = model if model is not None else str(getattr(backend, "model", "") or "")
    return (cache or FACTS).get(facts_key(backend, name), lambda: fetch(name))


def learn_from_error(backend: Any, error: Any) -> None:
    """Keep the window a context-overflow ``error`` of ``backend``'s server says (its ``window``; see
    :class:`~desktop_agent.core.errors.ContextTooLong`) for that server and model, for the rest of the process:
    later requests are planned against it; and the server's count of the refused request (``requested``), which
    calibrates our estimates (:meth:`~desktop_agent.core.tokens.Calibration.refused`)."""
    window, counted = getattr(error, "window", None), getattr(error, "requested", None)
    CALIBRATION.learn_window(server_key(backend), window if isinstance(window, int) else None,
                             counted if isinstance(counted, int) else None)


def learned_window(backend: Any) -> int | None:
    """The window ``backend``'s server said in a refusal, if it did (see :func:`learn_from_error`)."""
    return CALIBRATION.window(server_key(backend))
