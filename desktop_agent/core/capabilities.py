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

Each retry is announced with one notice. What worked is evidence about that server and model — keyed
by (backend name, URL, model) — kept in :data:`desktop_agent.core.state.LEARNED` and in a small file in the
cache folder so that it holds across runs (each ``desktop-agent chat -p`` is a new process). A fact turns off only after
:data:`EVIDENCE_NEEDED` observations in a row (two empty answers, not one: a small model may answer nothing
once by chance, and a wrong lesson silently costs the user the tools); then later calls go without streaming,
or without tools, at once. An answer to a request that offered tools is evidence the other way and starts
the count again. The server saying in words that the model cannot use tools counts at once. Only a call with
automatic tool choice learns to leave the tools out: a forced choice (a tool's name, ``required``) always
offers them.

What was learned is shown (Settings → Tools → Learned, ``desktop-agent tools --learned``, the chat's Tools
button) and can be forgotten (:meth:`Capabilities.forget`), which writes the file at once.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
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
from desktop_agent.core.i18n import QT_TRANSLATE_NOOP

__all__ = [
    "EVIDENCE_NEEDED",
    "TOOLS_LEFT_OUT",
    "Attempt",
    "Capabilities",
    "Entry",
    "Learned",
    "cannot_use",
    "first_attempt",
    "lesson",
    "next_attempt",
    "retry_notice",
    "server_key",
    "tools_off_reason",
]

#: the notice of a turn whose model calls leave the tools out because of what was learned
TOOLS_LEFT_OUT = ("Tools are not offered to this model on this server: it answered nothing when offered them, twice "
                  "in a row (to offer them again: Forget in Settings → Tools → Learned, or "
                  "desktop-agent tools --forget-learned).")

ServerKey = tuple[str, str, str]

#: observations in a row that turn a fact off. Two for an empty answer: one can be a fluke of a small model
#: (and each observation costs the user only the retries of one model call), three would make a server that
#: really cannot stream with tools pay those slow retries on three runs. One for ``tools``: that is the
#: server's own word (a "does not support tools" error)
EVIDENCE_NEEDED: dict[str, int] = {"stream_with_tools": 2, "auto_tools": 2, "tools": 1}
#: the version of the file :meth:`Capabilities.use_file` keeps (1: one boolean per fact, learned at once)
FILE_VERSION = 2
#: the highest count kept (a count only says "this many times in a row")
_MOST = 99

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
                "(to offer them anyway: the Tools menu above the message box).")
    return (f"The model '{model}' can't think step by step, so it answers without thinking "
            "(to ask anyway: the model picker).")


def server_key(backend: Any) -> ServerKey:
    """(backend name, URL, model) of ``backend``; the URL is its ``base_url`` (OpenAI-compatible) or
    ``host`` (Ollama)."""
    url = str(getattr(backend, "base_url", None) or getattr(backend, "host", None) or "").rstrip("/")
    # one server, however its loopback address is written (the README says 127.0.0.1, a preset localhost)
    url = url.replace("://localhost:", "://127.0.0.1:").replace("://[::1]:", "://127.0.0.1:")
    return (str(getattr(backend, "name", "") or ""), url, str(getattr(backend, "model", "") or ""))


@dataclass(frozen=True)
class Entry:
    """What was seen of one server and model: ``failures`` — per fact of :class:`Learned`, how many times in a
    row it failed (a fact is off from :data:`EVIDENCE_NEEDED` on)."""

    backend: str
    url: str
    model: str
    failures: Mapping[str, int] = field(default_factory=dict)

    @property
    def key(self) -> ServerKey:
        return (self.backend, self.url, self.model)

    @property
    def learned(self) -> Learned:
        return _learned(self.failures)

    def lines(self) -> list[str]:
        """What the user reads about it, one line per fact with evidence (the first ones are in force)."""
        off, pending = [], []
        told = self.failures.get("tools", 0) >= EVIDENCE_NEEDED["tools"]
        for name, count in self.failures.items():
            if told and name == "auto_tools":
                continue  # the server's word says more
            needed = EVIDENCE_NEEDED[name]
            times = "once" if count == 1 else f"{count} times in a row"
            if name == "tools" and count >= needed:
                off.append("Tools off: the server said the model cannot use tools")
            elif name == "auto_tools" and count >= needed:
                off.append(f"Tools off: it answered nothing when offered them ({times})")
            elif name == "stream_with_tools" and count >= needed:
                off.append(f"Not streamed when offered tools: its streamed answers came back empty ({times})")
            elif name == "auto_tools":
                pending.append(f"It answered nothing when offered tools {times} "
                               f"(tools go off after {needed} in a row)")
            elif name == "stream_with_tools":
                pending.append(f"Its streamed answer came back empty when offered tools {times} "
                               f"(streaming with tools goes off after {needed} in a row)")
        return off + pending


def _learned(failures: Mapping[str, int]) -> Learned:
    return Learned(**{name: failures.get(name, 0) < needed for name, needed in EVIDENCE_NEEDED.items()})


def tools_off_reason(learned: Learned) -> str | None:
    """Why a chat's turns go without tools because of what was learned (``it answered nothing when offered
    them``); None: they are offered."""
    if not learned.tools:
        return QT_TRANSLATE_NOOP("ToolsOffered", "the server said it cannot use tools")
    if not learned.auto_tools:
        return QT_TRANSLATE_NOOP("ToolsOffered", "it answered nothing when offered them")
    return None


def _read(path: Path) -> dict[ServerKey, dict[str, int]]:
    """The counts kept in ``path``. Version 1 kept a boolean per fact, learned from one observation: its
    ``False`` counts as that one observation (the server's own word, ``tools``, as a decided fact). Raises
    OSError / ValueError / TypeError / KeyError / AttributeError for a damaged file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    version = data.get("version", 1)
    out: dict[ServerKey, dict[str, int]] = {}
    for row in data.get("learned", []):
        key = (str(row["backend"]), str(row["url"]), str(row["model"]))
        counts: dict[str, int] = {}
        if isinstance(version, int) and version >= 2:
            for name, count in dict(row.get("failures", {})).items():
                if name in EVIDENCE_NEEDED and int(count) > 0:
                    counts[name] = min(int(count), _MOST)
        else:
            for name in EVIDENCE_NEEDED:
                if name in row and not bool(row[name]):
                    counts[name] = EVIDENCE_NEEDED[name] if name == "tools" else 1
        if counts:
            out[key] = counts
    return out


class Capabilities:
    """What was learned per server and model: how many times in a row each fact failed. Thread-safe. With a
    file (:meth:`use_file`), a change another process made to it (``desktop-agent tools --forget-learned``
    while the window is open) is read before the next use."""

    def __init__(self) -> None:
        self._failures: dict[ServerKey, dict[str, int]] = {}
        self._lock = threading.Lock()
        self._file: Path | None = None
        #: (mtime_ns, size) of the file as last read or written (None: not read, or missing)
        self._stamp: tuple[int, int] | None = None

    def use_file(self, path: Path) -> None:
        """Keep what is learned in ``path`` (JSON): what it holds is read now (a damaged or unreadable file
        counts as empty) and each lesson is written to it. Calling again with the same path does nothing."""
        with self._lock:
            if self._file == path:
                return
            self._file = path
            self._stamp = None
            self._failures.clear()
            self._reload()

    def _reload(self) -> None:
        """Read the file when it changed since it was last read or written (under the lock). A file that
        went away (deleted by hand) is nothing learned; one that cannot be read leaves memory as it is."""
        if self._file is None:
            return
        try:
            st = self._file.stat()
        except FileNotFoundError:
            if self._stamp is not None:
                self._failures.clear()
                self._stamp = None
            return
        except OSError:
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp:
            return
        self._stamp = stamp
        try:
            self._failures = _read(self._file)
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
            log.warning("what was learned about servers could not be read from %s: %s", self._file, exc)

    def _save(self) -> None:
        """Write what is learned to the file (atomically; under the lock). A failure is logged, not raised."""
        if self._file is None:
            return
        rows = []
        for (b, u, m), counts in self._failures.items():
            facts = asdict(_learned(counts))  # what version 1 reads
            rows.append({"backend": b, "url": u, "model": m, **facts, "failures": dict(counts)})
        try:
            self._file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._file.with_name(self._file.name + ".tmp")
            tmp.write_text(json.dumps({"version": FILE_VERSION, "learned": rows}, indent=1), encoding="utf-8")
            os.replace(tmp, self._file)
            st = self._file.stat()
            self._stamp = (st.st_mtime_ns, st.st_size)
        except OSError as exc:
            log.warning("what was learned about servers could not be saved to %s: %s", self._file, exc)

    def learned(self, backend: Any) -> Learned:
        """What is known about ``backend``'s server and model (all capabilities until shown otherwise)."""
        return self.learned_for(server_key(backend))

    def learned_for(self, key: ServerKey) -> Learned:
        """What is known about the server and model of ``key`` (see :func:`server_key`)."""
        with self._lock:
            self._reload()
            return _learned(self._failures.get(key, {}))

    def learn(self, backend: Any, **facts: bool) -> None:
        """One observation of ``facts`` (fields of :class:`Learned`) for ``backend``'s server and model: False
        adds one to that fact's failures in a row, True starts them again. Written to the file when it
        changed anything."""
        unknown = set(facts) - set(EVIDENCE_NEEDED)
        if unknown:
            raise TypeError(f"not a capability: {', '.join(sorted(unknown))}")
        key = server_key(backend)
        with self._lock:
            self._reload()
            before = self._failures.get(key, {})
            counts = dict(before)
            for name, works in facts.items():
                if works:
                    counts.pop(name, None)
                else:
                    counts[name] = min(counts.get(name, 0) + 1, _MOST)
            if counts == before:
                return
            if counts:
                self._failures[key] = counts
            else:
                self._failures.pop(key, None)
            self._save()

    def entries(self) -> list[Entry]:
        """Every server and model something was seen of, by backend, URL and model."""
        with self._lock:
            self._reload()
            return [Entry(*key, dict(counts)) for key, counts in sorted(self._failures.items())]

    def entry(self, key: ServerKey) -> Entry | None:
        """What was seen of the server and model of ``key`` (None: nothing)."""
        with self._lock:
            self._reload()
            counts = self._failures.get(key)
            return Entry(*key, dict(counts)) if counts else None

    def forget(self, key: ServerKey | None = None, *, model: str | None = None) -> int:
        """Forget what was seen of ``key``'s server and model, or of ``model`` on every server, or (neither
        given) everything; written to the file at once. Returns how many servers and models were forgotten."""
        with self._lock:
            self._reload()
            gone = [k for k in self._failures
                    if (key is None or k == key) and (model is None or k[2] == model)]
            for k in gone:
                del self._failures[k]
            if gone:
                self._save()
            return len(gone)

    def clear(self) -> None:
        """Forget everything, in memory only (the file is left alone and no longer used)."""
        with self._lock:
            self._failures.clear()
            self._file = None
            self._stamp = None



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
    """What one model call showed, to :meth:`Capabilities.learn` as one observation: ``answered`` got an
    answer, ``first`` was the request it started with. A request that offered tools and got an answer shows
    that the tools work (and streaming with them, when it streamed with automatic choice); an answer only once
    the tools were left out, that they do not (automatic choice only); one only without streaming, that
    streaming with tools does not."""
    if first.tools is None:
        return {}
    if answered.tools is None:
        return {"auto_tools": False} if choice == "auto" else {}
    auto = choice == "auto"
    facts = {"tools": True, **({"auto_tools": True} if auto else {})}
    if answered.stream and auto:  # a forced choice may stream where automatic choice cannot (llama-cpp-python)
        facts["stream_with_tools"] = True
    elif first.stream and not answered.stream:
        facts["stream_with_tools"] = False
    return facts
