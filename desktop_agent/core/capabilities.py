"""What the app learns, while it runs, about what a server and model can do, and the requests one
model call makes because of it.

Some servers answer HTTP 200 and then nothing: llama-cpp-python's server cannot stream when tools are
offered with automatic tool choice (its stream is empty), a small model may answer nothing at all
when offered tools, and a server may fail a streamed request silently where the same request without
streaming gets its reason (a prompt longer than the context window). So a model call whose answer
comes back empty — no text, no reasoning, no tool call — is asked again, at most twice:

1. the same request without streaming, when it was streamed;
2. then, when it offered tools and that answer is empty too (or fails in a way tools may cause),
   the same request without tools.

Each retry is announced with one notice. What worked is remembered for that server and model — keyed
by (backend name, URL, model) — in :data:`LEARNED`, kept in a small file in the cache folder so that it
holds across runs (each ``desktop-agent chat -p`` is a new process), so that later calls go without
streaming, or without tools, at once. Only a call with automatic tool choice learns to
leave the tools out: a forced choice (a tool's name, ``required``) always offers them.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from desktop_agent.core.errors import (
    AgentError,
    AnswerCutOff,
    BackendError,
    EmptyAnswer,
    MalformedToolCall,
    OutputLimitReached,
    ServerTimedOut,
    ToolsNotSupported,
)

__all__ = [
    "LEARNED",
    "TOOLS_LEFT_OUT",
    "Attempt",
    "Capabilities",
    "Learned",
    "cannot_use",
    "first_attempt",
    "lesson",
    "next_attempt",
    "retry_notice",
    "server_key",
]

#: the notice of a turn whose model calls leave the tools out because of what was learned
TOOLS_LEFT_OUT = "Tools are not offered to this model on this server: it answered nothing when offered them."

ServerKey = tuple[str, str, str]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Learned:
    """What one server and model showed. ``stream_with_tools``: a streamed request that offers tools
    gets an answer. ``auto_tools``: offering tools with automatic choice gets an answer at all. ``tools``:
    the model can use tools at all."""

    stream_with_tools: bool = True
    auto_tools: bool = True
    #: False once the server said the model cannot use tools (a "does not support tools" error)
    tools: bool = True


@dataclass(frozen=True)
class Attempt:
    """One request of a model call: the tools it offers (None: none) and whether it streams."""

    tools: list[dict[str, Any]] | None
    stream: bool = True


def cannot_use(what: str, model: str) -> str:
    """The one-line notice of a turn sent without ``what`` (``tools`` / ``thinking``) because the model cannot
    use it."""
    if what == "tools":
        return (f"The model '{model}' can't use tools, so it answers without them "
                "(to offer them anyway: the model picker).")
    return (f"The model '{model}' can't think step by step, so it answers without thinking "
            "(to ask anyway: the model picker).")


def server_key(backend: Any) -> ServerKey:
    """(backend name, URL, model) of ``backend``; the URL is its ``base_url`` (OpenAI-compatible) or
    ``host`` (Ollama)."""
    url = str(getattr(backend, "base_url", None) or getattr(backend, "host", None) or "").rstrip("/")
    # one server, however its loopback address is written (the README says 127.0.0.1, a preset localhost)
    url = url.replace("://localhost:", "://127.0.0.1:").replace("://[::1]:", "://127.0.0.1:")
    return (str(getattr(backend, "name", "") or ""), url, str(getattr(backend, "model", "") or ""))


class Capabilities:
    """What was learned per server and model. Thread-safe."""

    def __init__(self) -> None:
        self._learned: dict[ServerKey, Learned] = {}
        self._lock = threading.Lock()
        self._file: Path | None = None

    def use_file(self, path: Path) -> None:
        """Keep what is learned in ``path`` (JSON): what it holds is read now (a damaged or unreadable file
        counts as empty) and each lesson is written to it. Calling again with the same path does nothing."""
        with self._lock:
            if self._file == path:
                return
            self._file = path
            try:
                rows = json.loads(path.read_text(encoding="utf-8")).get("learned", [])
                names = {f.name for f in fields(Learned)}
                for row in rows:
                    key = (str(row["backend"]), str(row["url"]), str(row["model"]))
                    facts = {k: bool(v) for k, v in row.items() if k in names}
                    self._learned[key] = replace(self._learned.get(key, Learned()), **facts)
            except FileNotFoundError:
                pass
            except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
                log.warning("what was learned about servers could not be read from %s: %s", path, exc)

    def _save(self) -> None:
        """Write what is learned to the file (atomically; under the lock). A failure is logged, not raised."""
        if self._file is None:
            return
        rows = [{"backend": b, "url": u, "model": m, **asdict(v)} for (b, u, m), v in self._learned.items()]
        try:
            self._file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._file.with_name(self._file.name + ".tmp")
            tmp.write_text(json.dumps({"version": 1, "learned": rows}, indent=1), encoding="utf-8")
            os.replace(tmp, self._file)
        except OSError as exc:
            log.warning("what was learned about servers could not be saved to %s: %s", self._file, exc)

    def learned(self, backend: Any) -> Learned:
        """What is known about ``backend``'s server and model (all capabilities until shown otherwise)."""
        with self._lock:
            return self._learned.get(server_key(backend), Learned())

    def learn(self, backend: Any, **facts: bool) -> None:
        """Remember ``facts`` (fields of :class:`Learned`) for ``backend``'s server and model."""
        key = server_key(backend)
        with self._lock:
            self._learned[key] = replace(self._learned.get(key, Learned()), **facts)
            self._save()

    def clear(self) -> None:
        """Forget everything, in memory only (the file is left alone and no longer used)."""
        with self._lock:
            self._learned.clear()
            self._file = None


#: what was learned; every agent shares it (the window builds an agent per turn); the assembly keeps it in the
#: cache folder
LEARNED = Capabilities()


def first_attempt(learned: Learned, tools: list[dict[str, Any]] | None, choice: str) -> Attempt:
    """The first request of a model call that would offer ``tools`` with ``choice``."""
    if not tools:
        return Attempt(None, True)
    if choice == "auto" and not learned.auto_tools:
        return Attempt(None, True)
    return Attempt(tools, learned.stream_with_tools)


def _tools_may_cause(error: AgentError) -> bool:
    """A failure that asking without tools may avoid (not: no connection, a key, a timeout, a prompt
    too long, a cut-off answer at the output limit)."""
    if isinstance(error, (EmptyAnswer, ToolsNotSupported, MalformedToolCall)):
        return True
    if isinstance(error, ServerTimedOut | OutputLimitReached):
        return False
    return type(error) in (BackendError, AnswerCutOff)


def next_attempt(previous: Attempt, error: AgentError | None) -> Attempt | None:
    """The request to make after ``previous`` came back empty (``error`` None or
    :class:`EmptyAnswer`) or failed with ``error``; None: report the outcome as it is."""
    empty = error is None or isinstance(error, EmptyAnswer)
    if isinstance(error, ToolsNotSupported) and previous.tools is not None:
        return Attempt(None, previous.stream)  # the same request without tools, at once
    if empty and previous.stream:
        return Attempt(previous.tools, False)
    if previous.tools is not None and not previous.stream and (
        empty or (error is not None and _tools_may_cause(error))
    ):
        return Attempt(None, False)
    return None


def retry_notice(previous: Attempt, error: AgentError | None) -> str:
    """The one line that says why ``previous`` is asked again, and how."""
    if isinstance(error, ToolsNotSupported) and previous.tools is not None:
        return cannot_use("tools", error.model)
    empty = error is None or isinstance(error, EmptyAnswer)
    if previous.stream:
        if previous.tools is not None:
            return "This server sent an empty streamed answer when offered tools; asked again without streaming."
        return "The server sent an empty streamed answer; asked again without streaming."
    if empty:
        return "The server sent an empty answer when offered tools; asked again without tools."
    what = error.what if error is not None else ""
    return f"The server failed when offered tools ({what.rstrip('.')}); asked again without tools."


def lesson(first: Attempt, answered: Attempt, choice: str) -> dict[str, bool]:
    """What to remember when ``answered`` got an answer where ``first`` came back empty."""
    if first.tools is None or answered == first:
        return {}
    if answered.tools is None:
        return {"auto_tools": False} if choice == "auto" else {}
    if first.stream and not answered.stream:
        return {"stream_with_tools": False}
    return {}
