"""Asking a server what it offers — its models and, for Ollama, its version — with plain HTTP GETs from the
standard library, no client library: the window's server check and model listing, and Settings' Test
connection and installed models, run right after start-up, and ``ollama`` / ``openai`` (and ``httpx``)
would cost ≈ 15–45 MB of memory and a second of imports for one small request.

- Ollama: ``GET {host}/api/tags`` and ``GET {host}/api/version`` (Ollama API doc), read like the backend
  reads them (:func:`~desktop_agent.core.backends.ollama_models.models_from_tags`).
- OpenAI-compatible: ``GET {base_url}/models`` with ``Authorization: Bearer <key>``, the keys tried through a
  :class:`~desktop_agent.core.backends.keypool.KeyPool` like the backend's, and an HTTP error answer judged
  by :meth:`OpenAIBackend.classify_status <desktop_agent.core.backends.openai.OpenAIBackend.classify_status>`.

Errors are the backends' own :mod:`desktop_agent.core.errors` types and wordings (the server's reason via
:mod:`~desktop_agent.core.backends.reasons`): can't connect → ``BackendUnreachable``, connected but no
answer in time → ``ServerTimedOut``. :class:`OllamaProbe` and :class:`OpenAIProbe` have the backend
methods the callers use (``list_models``, ``server_version``, ``describe``, ``close``); they are built by
:meth:`desktop_agent.core.assembly.Assembly.one_off_backend` with ``probe=True``.
"""

from __future__ import annotations

import json
import socket
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.client import HTTPException
from typing import Any

from desktop_agent import __version__
from desktop_agent.core import errors
from desktop_agent.core.backends.base import ModelInfo
from desktop_agent.core.backends.keypool import Failure, KeyPool, scrub
from desktop_agent.core.backends.openai_wire import errno_free
from desktop_agent.core.backends.reasons import one_line

USER_AGENT = f"desktop-agent/{__version__}"
_MAX_BODY = 8 << 20  # a model list is kilobytes; never read a runaway body whole


@dataclass
class Answer:
    """An HTTP answer: status, body, content type, headers (names in lower case)."""

    status: int
    body: bytes
    content_type: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8-sig"))


class Unreachable(Exception):
    """No connection (refused, unknown host, no route, no connection within the timeout)."""

    def __init__(self, detail: str, timed_out: bool = False):
        super().__init__(detail)
        self.detail, self.timed_out = detail, timed_out


class NoAnswer(Exception):
    """Connected, but no answer within the timeout."""


class Broken(Exception):
    """Connected, but the exchange broke (connection reset, not HTTP)."""


def get(url: str, headers: dict[str, str], timeout_s: float, body: Any = None, *,
        certs: tuple[str, str] | None = None) -> Answer:
    """``GET url`` — or ``POST`` of ``body`` as JSON when given; an HTTP error status is an :class:`Answer` too.
    ``certs``: ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` (default: this process's, from
    :func:`~desktop_agent.core.services.current_env`). Raises :class:`Unreachable`, :class:`NoAnswer` or
    :class:`Broken`."""
    data = json.dumps(body).encode("utf-8") if body is not None else None
    extra = {"Content-Type": "application/json"} if data is not None else {}
    request = urllib.request.Request(url, data=data, headers={"Accept": "application/json",
                                                              "User-Agent": USER_AGENT, **extra, **headers})
    context = _tls_context(*(certs or _env_certs())) if url.lower().startswith("https:") else None
    try:
        # http(s) URLs only: checked by Settings
        response = urllib.request.urlopen(request, timeout=timeout_s, context=context)
    except urllib.error.HTTPError as answer:
        with answer:
            return Answer(answer.code, answer.read(_MAX_BODY), answer.headers.get("content-type", ""),
                          _lower(answer.headers.items()))
    except urllib.error.URLError as exc:  # raised while connecting or sending
        reason = exc.reason
        if isinstance(reason, TimeoutError | socket.timeout):
            raise Unreachable("timed out", timed_out=True) from None
        raise Unreachable(str(reason) if isinstance(reason, OSError) else str(exc)) from None
    except TimeoutError:  # connected, but the answer did not start in time
        raise NoAnswer() from None
    except (OSError, HTTPException, ValueError) as exc:
        raise Broken(str(exc) or type(exc).__name__) from None
    try:
        with response:
            body = response.read(_MAX_BODY)
    except TimeoutError:
        raise NoAnswer() from None
    except (OSError, HTTPException) as exc:
        raise Broken(str(exc) or type(exc).__name__) from None
    return Answer(response.status, body, response.headers.get("content-type", ""), _lower(response.headers.items()))


def _lower(items: Any) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in items}


def _env_certs() -> tuple[str, str]:
    from desktop_agent.core.environment import current_env

    env = current_env()
    return env.ssl_cert_file, env.ssl_cert_dir


def _tls_context(cert_file: str = "", cert_dir: str = "") -> ssl.SSLContext:
    """The certificates httpx (and so the official clients) trust: ``SSL_CERT_FILE`` (``cert_file``),
    ``SSL_CERT_DIR`` (``cert_dir``), else certifi's bundle — not only the system's, which a frozen build may
    not find."""
    if cert_file:
        return ssl.create_default_context(cafile=cert_file)
    if cert_dir:
        return ssl.create_default_context(capath=cert_dir)
    try:
        import certifi
    except ImportError:  # pragma: no cover - certifi comes with httpx
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


class OllamaProbe:
    """An Ollama server's models and version. ``host``: its base URL; ``timeout_s``: per request."""

    name = "ollama"

    def __init__(self, host: str, model: str = "", *, timeout_s: float = 10.0, api_key: str | None = None,
                 certs: tuple[str, str] | None = None):
        self.host = host.rstrip("/")
        self.model = model
        self.timeout_s = timeout_s
        if api_key is None:  # OLLAMA_API_KEY, as ollama.Client sends it (hosted Ollama)
            from desktop_agent.core.environment import current_env

            api_key = current_env().ollama_api_key
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._certs = certs

    def describe(self) -> str:
        return f"ollama · {self.model} @ {self.host}"

    def close(self) -> None:
        """Nothing stays open between requests."""

    def list_models(self) -> list[ModelInfo]:
        """The installed models (``GET /api/tags``), as :meth:`OllamaBackend.list_models` gives them."""
        from desktop_agent.core.backends.ollama_models import models_from_tags

        return models_from_tags(self._get_json("/api/tags"), self.host + "/api/tags")

    def server_version(self) -> str:
        """The server's version (``GET /api/version``), as :meth:`OllamaBackend.server_version` gives it."""
        from desktop_agent.core.backends.ollama_models import version_from

        return version_from(self._get_json("/api/version"), self.host)

    def fetch_model_facts(self, model: str | None = None) -> Any:
        """What the server says about ``model`` (``POST /api/show``): its context length and capabilities, read
        as the backend reads them. Raises :class:`~desktop_agent.core.errors.AgentError`."""
        from desktop_agent.core.model_info import facts_from_show

        name = model or self.model
        try:
            data = self._get_json("/api/show", {"model": name})
        except errors.BackendError as exc:
            if getattr(exc, "status", None) == 404:
                raise errors.ModelNotFound(name) from None
            raise
        return facts_from_show(data if isinstance(data, dict) else {})

    def _get_json(self, path: str, body: Any = None) -> Any:
        from desktop_agent.core.backends.ollama_models import connect_detail, json_answer

        try:
            answer = get(self.host + path, self._headers, self.timeout_s, body, certs=self._certs)
        except Unreachable as exc:
            raise errors.BackendUnreachable(self.host, detail=connect_detail(exc)) from None
        except NoAnswer:
            raise errors.ServerTimedOut(self.host, self.timeout_s, backend="ollama") from None
        except Broken as exc:
            detail = one_line(str(exc))
            raise errors.BackendError(f"the connection to {self.host} broke before an answer: {detail}") from None
        return json_answer(self.host + path, answer.status, answer.body.decode("utf-8-sig", "replace"),
                           answer.content_type, errors.BackendError)


class _StatusAnswer(Exception):
    """An HTTP error answer, shaped like the openai client's ``APIStatusError`` (``status_code``, ``body``,
    ``response.headers``, ``message``) so the backend judges it as it judges those."""

    def __init__(self, answer: Answer):
        super().__init__(f"HTTP {answer.status}")
        self.status_code = answer.status
        self.message = f"HTTP {answer.status}"
        self.response = answer
        try:
            self.body: Any = answer.json()
        except (ValueError, UnicodeDecodeError):
            self.body = answer.body.decode("utf-8", "replace")


class OpenAIProbe:
    """An OpenAI-compatible server's models (``GET {base_url}/models``), with the keys tried in turn as
    :class:`~desktop_agent.core.backends.openai.OpenAIBackend` tries them (``backend``: the one whose base
    URL, keys, timeout and error rules are used; it opens no connection itself). ``headers``: the organization
    and project headers to send (default: this process's ``OPENAI_ORG_ID`` / ``OPENAI_PROJECT_ID``)."""

    name = "openai"

    def __init__(self, backend: Any, *, headers: dict[str, str] | None = None,
                 certs: tuple[str, str] | None = None):
        self._backend = backend
        self.model = backend.model
        self.base_url = backend.base_url
        if headers is None:
            from desktop_agent.core.environment import current_env

            headers = current_env().openai_headers()
        self._env_headers = headers
        self._certs = certs

    @property
    def pool(self) -> KeyPool:
        return self._backend.pool

    def describe(self) -> str:
        return self._backend.describe()

    def close(self) -> None:
        """Nothing stays open between requests."""

    def list_models(self) -> list[ModelInfo]:
        """The models the server offers: ``name`` = model id; ``details`` has ``owned_by`` / ``created``."""
        return self.pool.call(self._attempt, self._classify)

    def _attempt(self, _index: int, key: str) -> list[ModelInfo]:
        headers = {"Authorization": f"Bearer {key}"}
        headers.update(self._env_headers)  # OPENAI_ORG_ID, OPENAI_PROJECT_ID: as the openai client sends them
        answer = get(f"{self.base_url}/models", headers, self._backend.timeout_s, certs=self._certs)
        if answer.status >= 400:
            raise _StatusAnswer(answer)
        return self._backend.models_from_listing(f"{self.base_url}/models", answer.body.decode("utf-8-sig", "replace"),
                                                 answer.content_type)

    def _classify(self, exc: BaseException) -> Failure:
        backend, keys = self._backend, self.pool.keys
        where, timeout = self.base_url, backend.timeout_s
        if isinstance(exc, _StatusAnswer):
            headers = exc.response.headers
            page = backend.web_page_failure(exc, headers, "/models")
            if page is not None:  # named, never pasted — as the backend says it
                return page
            detail = backend.detail(exc)
            return backend.classify_status(exc.status_code, detail, backend.markers(exc, detail), headers,
                                           listing=True)
        if isinstance(exc, Unreachable):
            detail = f"no connection within {timeout:g} s" if exc.timed_out else errno_free(scrub(exc.detail, keys))
            return Failure("retry", errors.BackendUnreachable(where, backend="openai", detail=detail[:300]),
                           rotate=False, reason="can't reach the server")
        if isinstance(exc, NoAnswer):
            return Failure("fatal", errors.ServerTimedOut(where, timeout, backend="openai"))
        if isinstance(exc, Broken):
            err = errors.BackendUnreachable(where, backend="openai", detail=errno_free(scrub(str(exc), keys))[:300])
            return Failure("retry", err, rotate=False, reason="can't reach the server")
        if isinstance(exc, ValueError | UnicodeDecodeError):
            detail = scrub(str(exc), keys)[:300]
            return Failure("fatal", errors.BackendError(f"the server sent data that is not valid JSON ({detail})"))
        return backend.classify(exc)

