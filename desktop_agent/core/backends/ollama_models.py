"""Ollama's model administration: the installed models (``GET /api/tags``), what the server says of one
(``POST /api/show``: its window and capabilities), its version (``GET /api/version``), downloading a model
(``POST /api/pull``, streamed) and deleting one (``DELETE /api/delete``) — as :class:`OllamaModels`, a part of
:class:`~desktop_agent.core.backends.ollama.OllamaBackend`; and the readers of those answers the model listing
probe shares (:func:`models_from_tags`, :func:`version_from`, :func:`json_answer`).

Wire format source: the Ollama API doc (``docs/api.md`` in ollama/ollama).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from desktop_agent.core import errors
from desktop_agent.core.backends.base import ModelInfo
from desktop_agent.core.backends.deadline import first_data_within
from desktop_agent.core.backends.reasons import looks_like_html, one_line, reason_text
from desktop_agent.core.environment import import_ollama
from desktop_agent.core.model_info import ModelFacts, facts_from_show

if TYPE_CHECKING:
    from desktop_agent.core.backends.ollama import LineStream

__all__ = [
    "SHOW_TIMEOUT_S",
    "OllamaModels",
    "PullProgress",
    "connect_detail",
    "error_text",
    "json_answer",
    "models_from_tags",
    "short",
    "version_from",
]

_MAX_DETAIL = 300
#: seconds ``/api/show`` (the model's window and capabilities) may take
SHOW_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class PullProgress:
    """One progress line of ``POST /api/pull`` (Ollama API doc, "Pull a Model").

    ``status`` e.g. ``pulling manifest``, ``downloading sha256:…`` / ``pulling <digest>``,
    ``verifying sha256 digest``, ``writing manifest``, ``success``. ``completed`` and ``total`` are
    bytes of the current layer (None when the server did not send them).
    """

    status: str
    completed: int | None = None
    total: int | None = None
    digest: str | None = None

    @property
    def fraction(self) -> float | None:
        """``completed / total`` in 0.0–1.0 for the current layer; None when unknown."""
        if self.total is None or self.total <= 0:
            return None
        return max(0.0, min(1.0, (self.completed or 0) / self.total))

    @property
    def done(self) -> bool:
        return self.status == "success"



class OllamaModels:
    """The model administration of :class:`~desktop_agent.core.backends.ollama.OllamaBackend` (a part of it:
    the attributes and the request helpers below are the backend's)."""

    host: str
    model: str
    #: the official client, for the requests whose answers it reads well (``/api/delete``)
    client: Any
    #: the official client that asks ``/api/show`` (a short wait)
    _show_client: Any

    if TYPE_CHECKING:  # the backend's request helpers (ollama.py)
        def _get_json(self, path: str) -> Any: ...

        def _stream_lines(self, method: str, path: str, body: dict[str, Any], cancel: threading.Event | None, *,
                          model: str | None, whole: bool = False, next_s: float | None = None) -> LineStream: ...

        @staticmethod
        def _parse_line(line: bytes) -> dict[str, Any]: ...

        def _error_for_message(self, message: str, status: int | None, *, model: str | None) -> errors.AgentError: ...

        def _error_for_transport(self, exc: BaseException, *, started: bool) -> errors.AgentError: ...

    def list_models(self) -> list[ModelInfo]:
        """Installed models from ``GET /api/tags``: name, ``size`` in bytes, ``modified_at`` (ISO 8601
        text as sent), ``details`` (format, family, parameter_size, quantization_level…).
        Raises :class:`~desktop_agent.core.errors.AgentError`."""
        return models_from_tags(self._get_json("/api/tags"), self.host + "/api/tags")

    def fetch_model_facts(self, model: str | None = None) -> ModelFacts:
        """What the server says about ``model`` (default: this backend's) — ``POST /api/show`` through the
        official client's ``show()``: the context length and the capabilities. Raises
        :class:`~desktop_agent.core.errors.AgentError`. Cached callers use :func:`model_facts`."""
        ollama = import_ollama()

        name = model or self.model
        try:
            with first_data_within(SHOW_TIMEOUT_S):  # also from a server that trickles its answer
                shown = self._show_client.show(name)
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise errors.ModelNotFound(name) from None
            raise self._error_for_message(short(str(exc.error)), exc.status_code, model=name) from None
        except Exception as exc:  # noqa: BLE001 - any transport failure becomes a typed AgentError
            raise self._error_for_transport(exc, started=False) from None
        return facts_from_show({"model_info": getattr(shown, "modelinfo", None) or {},
                                "capabilities": getattr(shown, "capabilities", None),
                                "parameters": getattr(shown, "parameters", None)})

    def server_version(self) -> str:
        """The server's version from ``GET /api/version`` (``{"version": "0.5.1"}``).
        Raises :class:`~desktop_agent.core.errors.AgentError`."""
        return version_from(self._get_json("/api/version"), self.host)

    def pull_model(self, name: str, cancel: threading.Event | None = None) -> Iterator[PullProgress]:
        """Download ``name`` with ``POST /api/pull`` (streamed), yielding one :class:`PullProgress`
        per progress line; the last one has ``status == "success"``. When ``cancel`` is set the stream
        is closed and the generator returns (Ollama keeps the partial download and resumes it next
        time). Raises :class:`~desktop_agent.core.errors.BackendUnreachable`,
        :class:`~desktop_agent.core.errors.AnswerCutOff` (the stream broke) or
        :class:`~desktop_agent.core.errors.BackendError` (e.g. no such model in the library)."""
        body = {"model": name, "stream": True}
        if cancel is not None and cancel.is_set():
            return
        stream = self._stream_lines("POST", "/api/pull", body, cancel, model=None)
        try:
            for line in stream:
                stream.watch.progress()
                data = self._parse_line(line)
                if data.get("error"):
                    raise errors.BackendError(f"pulling '{name}' failed: {short(str(data['error']))}")
                completed, total = data.get("completed"), data.get("total")
                progress = PullProgress(
                    status=str(data.get("status") or ""),
                    completed=int(completed) if isinstance(completed, (int, float)) else None,
                    total=int(total) if isinstance(total, (int, float)) else None,
                    digest=data.get("digest") or None,
                )
                if progress.done:
                    stream.finish()
                    yield progress
                    return
                yield progress
        finally:
            stream.close()
        if cancel is not None and cancel.is_set():
            return
        raise errors.AnswerCutOff(f"the download of '{name}' stopped before it finished")

    def delete_model(self, name: str) -> None:
        """Delete an installed model (``DELETE /api/delete``, through ``ollama.Client.delete``).
        Raises :class:`~desktop_agent.core.errors.ModelNotFound` (404) or another
        :class:`~desktop_agent.core.errors.AgentError`."""
        ollama = import_ollama()

        try:
            self.client.delete(name)
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise errors.ModelNotFound(name, available=self._available_names()) from None
            raise self._error_for_message(short(str(exc.error)), exc.status_code, model=name) from None
        except Exception as exc:  # noqa: BLE001 - any transport failure becomes a typed AgentError
            raise self._error_for_transport(exc, started=False) from None

    def _available_names(self) -> list[str]:
        try:
            return [m.name for m in self.list_models()]
        except Exception:  # noqa: BLE001 - the list of names is only a hint in another error
            return []


def short(text: str) -> str:
    return one_line(text, _MAX_DETAIL)


def error_text(body: Any, content_type: str = "", status: int | None = None) -> str:
    """The reason in an error body: the ``error`` of ``{"error": "..."}`` (or an OpenAI-style
    ``{"error": {"message": ...}}`` from a proxy), else the text itself, one line; a web page is
    named, not quoted."""
    return reason_text(body, content_type, status) or "no details"


def json_answer(url: str, status: int, text: str, ctype: str,
                error_for: Callable[[str, int], Exception]) -> Any:
    """The JSON of an answer from ``url``: an error status becomes :class:`~desktop_agent.core.errors.WebPageAnswer`
    (a web page, never pasted) or ``error_for(reason, status)``; a 200 that is not JSON is ``NotAnApi``. Shared
    by the backend and the probe."""
    if status >= 400:
        if looks_like_html(text, ctype):
            raise errors.WebPageAnswer(url, status, "ollama")
        raise error_for(error_text(text, ctype, status), status)
    try:
        return json.loads(text)
    except ValueError:
        seen = "a web page" if looks_like_html(text, ctype) else "text that is not JSON"
        raise errors.NotAnApi(url, "ollama", seen) from None


def models_from_tags(data: Any, url: str) -> list[ModelInfo]:
    """The models in an ``/api/tags`` answer from ``url``: ``name`` (or ``model``, as older servers send),
    ``size`` in bytes, ``modified_at`` as sent, ``details``; entries without a name are skipped. An answer that
    is not a model list raises :class:`~desktop_agent.core.errors.NotAnApi`."""
    if not isinstance(data, dict) or "models" not in data:
        raise errors.NotAnApi(url, "ollama", "JSON of another kind")
    models = data.get("models")
    out: list[ModelInfo] = []
    for m in models or []:
        if not isinstance(m, dict):
            continue
        name = m.get("name") or m.get("model")
        if not name:
            continue
        size = m.get("size")
        details = m.get("details")
        out.append(
            ModelInfo(
                name=str(name),
                size=int(size) if isinstance(size, (int, float)) else None,
                modified_at=str(m["modified_at"]) if m.get("modified_at") else None,
                details=dict(details) if isinstance(details, dict) else {},
            )
        )
    return out


def version_from(data: Any, host: str) -> str:
    """The version in an ``/api/version`` answer (``{"version": "0.5.1"}``); BackendError without one."""
    version = data.get("version") if isinstance(data, dict) else None
    if not version:
        raise errors.BackendError(f"{host} did not report a version — is it an Ollama server?")
    return str(version)


def connect_detail(exc: BaseException) -> str:
    text = str(exc)
    for known in ("Connection refused", "Name or service not known", "nodename nor servname",
                  "timed out", "No route to host", "Network is unreachable", "Temporary failure"):
        if known.lower() in text.lower():
            return known
    if text.startswith("Failed to connect to Ollama"):  # ollama-python's own text: says nothing more
        return ""
    return short(text)
