"""What a failure of an OpenAI-compatible server means: an exception of the ``openai`` client (or of ``httpx``),
an HTTP error answer, an error reported inside a 200 answer — as a :class:`~desktop_agent.core.backends.keypool.Failure`
for the key pool (retry, next key, or fatal) carrying the typed :mod:`desktop_agent.core.errors` error the user
sees, the server's reason in one line and never a key.

:class:`OpenAIFailures` is a part of :class:`~desktop_agent.core.backends.openai.OpenAIBackend` (its base URL,
model, timeout and key pool say what to tell); the model listing probe judges its answers with it too.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from desktop_agent.core.backends.keypool import PLACEHOLDER_KEY, Failure, KeyPool, scrub
from desktop_agent.core.backends.openai_wire import errno_free
from desktop_agent.core.backends.reasons import MAX_REASON, is_context_reason, looks_like_html, one_line, reason_text
from desktop_agent.core.errors import (
    AgentError,
    AnswerCutOff,
    AuthenticationFailed,
    BackendError,
    BackendUnreachable,
    ContextTooLong,
    KeyringLocked,
    ModelNotFound,
    NoApiKey,
    NotAnApi,
    OutOfQuota,
    RateLimited,
    ServerTimedOut,
    ToolsNotSupported,
    WebPageAnswer,
)
from desktop_agent.core.state import learn_from_error
from desktop_agent.core.urls import suggest_v1

__all__ = ["TOOLS_MARKERS", "OpenAIFailures", "connect_timeouts", "http_errors"]

#: Lower-case fragments of error messages that mean "this model/server cannot do tools" (Ollama /v1, vLLM
#: without a tool parser).
TOOLS_MARKERS = (
    "does not support tools",
    "does not support tool",
    "tools are not supported",
    "tool use is not supported",
    "does not support function calling",
    "function calling is not supported",
    "enable-auto-tool-choice",
)
_MAX_DETAIL = MAX_REASON


class OpenAIFailures:
    """The failure rules of :class:`~desktop_agent.core.backends.openai.OpenAIBackend` (a part of it: the
    attributes below are the backend's)."""

    base_url: str
    model: str
    timeout_s: float
    keyring_locked: bool
    pool: KeyPool

    def _served_models(self) -> list[str]:
        """The model ids the server lists, for a "choose one of" hint (the backend asks the server)."""
        return []

    def detail(self, exc: BaseException) -> str:
        """The server's reason in ``exc`` as one line without keys (never an HTML page pasted)."""
        body = getattr(exc, "body", None)
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        ctype = headers.get("content-type", "") if headers is not None else ""
        text = reason_text(body, ctype, getattr(exc, "status_code", None))
        if not text:
            text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        return one_line(scrub(text, self.pool.keys))

    def markers(self, exc: BaseException, detail: str) -> str:
        body = getattr(exc, "body", None)
        bits = [detail]
        if isinstance(body, dict):
            bits += [str(body.get("code") or ""), str(body.get("type") or "")]
        return " ".join(bits).lower()

    def classify(self, exc: BaseException) -> Failure:
        """An exception from the openai client (or JSON decoding) as a :class:`Failure` for the pool."""
        import httpx
        import openai

        if isinstance(exc, AgentError):
            return Failure("fatal", exc)
        if isinstance(exc, (openai.APITimeoutError, httpx.TimeoutException)):
            cause = exc if isinstance(exc, httpx.TimeoutException) else (exc.__cause__ or exc.__context__)
            if isinstance(cause, connect_timeouts()):
                err = BackendUnreachable(
                    self.base_url, backend="openai", detail=f"no connection within {self.timeout_s:g} s"
                )
                return Failure("retry", err, rotate=False, reason="can't reach the server")
            # Connected, but no answer within the timeout: the server is busy (a long prompt, a
            # model loading) or stuck. Sending the request again would only queue a second copy
            # behind the first and triple the wait, so this is final.
            return Failure("fatal", ServerTimedOut(self.base_url, self.timeout_s, backend="openai"))
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = errno_free(scrub(str(cause) if cause else "", self.pool.keys))[:_MAX_DETAIL]
            err = BackendUnreachable(self.base_url, backend="openai", detail=detail)
            return Failure("retry", err, rotate=False, reason="can't reach the server")
        if isinstance(exc, openai.APIStatusError):
            detail = self.detail(exc)
            headers = exc.response.headers if exc.response is not None else None
            page = self.web_page_failure(exc, headers)
            if page is not None:
                return page
            return self.classify_status(exc.status_code, detail, self.markers(exc, detail), headers)
        if isinstance(exc, openai.APIError):  # e.g. an error event inside the stream
            detail = self.detail(exc)
            markers = self.markers(exc, detail)
            if is_context_reason(markers):
                return Failure("fatal", self._overflow(detail))
            if any(m in markers for m in TOOLS_MARKERS):
                return Failure("fatal", ToolsNotSupported(self.model))
            return Failure("fatal", BackendError(detail))
        if isinstance(exc, ValueError):  # json.JSONDecodeError from a broken stream chunk
            detail = scrub(str(exc), self.pool.keys)[:_MAX_DETAIL]
            return Failure("fatal", BackendError(f"the server sent data that is not valid JSON ({detail})"))
        detail = scrub(f"{type(exc).__name__}: {exc}", self.pool.keys)[:_MAX_DETAIL]
        return Failure("fatal", BackendError(detail))

    def web_page_failure(self, exc: Any, headers: Any, path: str = "/chat/completions") -> Failure | None:
        """The pool's :class:`Failure` for an error status whose body is a web page (a proxy's 502, a 404 page,
        a sign-in page: named, never pasted; a 5xx is retried), else None. Shared with the listing probe."""
        page = self._web_page(exc, path)
        if page is None:
            return None
        status = int(exc.status_code)
        return Failure("retry" if status >= 500 else "fatal", page, status=status, reason=f"web page (HTTP {status})",
                       retry_after_s=self.pool.retry_after(headers) if status >= 500 else None)

    def _web_page(self, exc: Any, path: str = "/chat/completions") -> WebPageAnswer | None:
        """The error status ``exc`` as a :class:`WebPageAnswer` when its body is a web page, else None (``path``:
        what was asked for, when ``exc`` does not say)."""
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        ctype = headers.get("content-type", "") if headers is not None else ""
        body = getattr(exc, "body", None)
        text = body if isinstance(body, str) else ""
        if not (looks_like_html(text, ctype) and not isinstance(body, dict)):
            return None
        status = int(getattr(exc, "status_code", 0) or 0)
        fix = suggest_v1(self.base_url) if status == 404 and not self.base_url.endswith("/v1") else ""
        return WebPageAnswer(self._url_of(response, path), status, "openai", fix)

    def _url_of(self, response: Any, path: str = "/chat/completions") -> str:
        """The URL ``response`` came from (without its query), else the base URL and ``path``."""
        with contextlib.suppress(Exception):
            url = response.request.url
            return str(url.copy_with(query=None) if hasattr(url, "copy_with") else url)
        return self.base_url + path

    def _not_an_api(self, url: str, body: Any, content_type: str = "") -> NotAnApi:
        """A 200 answer that is not what an OpenAI-compatible server sends (``body``: text, bytes or JSON)."""
        if "html" in content_type.lower():
            body = "<html>"
        if isinstance(body, (bytes, bytearray)):
            body = bytes(body).decode("utf-8", "replace")
        if isinstance(body, str) and looks_like_html(body.strip(), content_type):
            seen = "a web page"
        elif isinstance(body, str) and body.strip() and body.strip()[:1] not in "{[":
            seen = "text that is not JSON"
        else:
            seen = "JSON of another kind"
        fix = "" if self.base_url.endswith("/v1") else suggest_v1(self.base_url)
        return NotAnApi(url, "openai", seen, fix)

    def classify_status(self, status: int, detail: str, markers: str, headers: Any, *,
                        listing: bool = False) -> Failure:
        """An HTTP error answer as a :class:`Failure` for the pool: ``detail`` is the server's reason (one line,
        no key), ``markers`` the lower-case text its kind is recognised by (reason, code, type), ``headers``
        the answer's (``Retry-After``). Shared by the chat requests and the model listing probe (``listing``:
        a 404 of the model list is about the base URL, never "model not found")."""
        if status in (401, 403) and self.pool.keys == (PLACEHOLDER_KEY,):
            # no key was configured (a local server was assumed not to need one): say that,
            # not "your key was rejected", which sends the user looking for a key they never entered
            no_key = (KeyringLocked if self.keyring_locked else NoApiKey)(self.base_url, status)
            return Failure("fatal", no_key, auth=True, status=status, reason="key required")
        if status in (401, 403):
            return Failure(
                "next_key", AuthenticationFailed(self.base_url, status), auth=True, status=status,
                reason="key rejected",
            )
        if status == 429:
            if "insufficient_quota" in markers:  # no credit left: waiting will not help, another key may
                return Failure("next_key", OutOfQuota(self.base_url, detail), status=status, reason="out of quota")
            wait = self.pool.retry_after(headers)
            return Failure("retry", RateLimited(wait, detail), retry_after_s=wait, status=status,
                           reason="rate limited")
        if is_context_reason(markers):
            return Failure("fatal", self._overflow(detail), status=status)
        if any(m in markers for m in TOOLS_MARKERS):
            return Failure("fatal", ToolsNotSupported(self.model), status=status)
        if status == 404:
            if "model" in markers and not listing:
                missing = ModelNotFound(self.model, backend="openai", available=self._served_models())
                return Failure("fatal", missing, status=status)
            if self.base_url.endswith("/v1"):
                hint = f"Is {self.base_url} an OpenAI-compatible server?"
                cli_hint = f"Is {self.base_url} an OpenAI-compatible server? (--base-url)"
            else:
                fix = suggest_v1(self.base_url)
                hint = f"Check the base URL {self.base_url} (it usually ends in /v1): try {fix}."
                cli_hint = f"Check --base-url {self.base_url} (it usually ends in /v1): try {fix}."
            return Failure("fatal", BackendError(detail, status, hint, cli_hint), status=status)
        if status >= 500:
            wait = self.pool.retry_after(headers)
            return Failure("retry", BackendError(detail, status), retry_after_s=wait, status=status,
                           reason=f"server error (HTTP {status})")
        return Failure("fatal", BackendError(detail, status), status=status)

    def _midstream_error(self, exc: BaseException) -> AgentError:
        """An error after the first chunk: never retried (that would repeat streamed text)."""
        import httpx
        import openai

        if isinstance(exc, AgentError):
            return exc
        if isinstance(exc, (openai.APITimeoutError, httpx.TimeoutException)):
            return AnswerCutOff(f"no data from the server within {self.timeout_s:g} s")
        if isinstance(exc, httpx.TransportError):
            return AnswerCutOff(errno_free(scrub(str(exc) or type(exc).__name__, self.pool.keys))[:_MAX_DETAIL])
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            return AnswerCutOff(scrub(str(cause or exc), self.pool.keys)[:_MAX_DETAIL])
        if isinstance(exc, ValueError):
            return AnswerCutOff("the server sent data that is not valid JSON")
        return self.classify(exc).error

    def _reported_error(self, payload: Any, status: int | None = None) -> AgentError:
        """An error the server reported inside a 200 answer (``payload``: the ``error`` value, or the
        event's data) as a typed error carrying the server's reason."""
        inner = payload.get("error") if isinstance(payload, dict) else None
        inner = inner if isinstance(inner, dict) else payload
        detail = one_line(scrub(reason_text(payload) or "no reason given", self.pool.keys))
        bits = [detail]
        if isinstance(inner, dict):
            bits += [str(inner.get("code") or ""), str(inner.get("type") or "")]
        markers = " ".join(bits).lower()
        if is_context_reason(markers):
            return self._overflow(detail)
        if any(m in markers for m in TOOLS_MARKERS):
            return ToolsNotSupported(self.model)
        return BackendError(detail, status)

    def _overflow(self, detail: str) -> ContextTooLong:
        """The server refused the request as too long for the window: the window its reason names is kept
        for this server and model (the next request is planned against it)."""
        error = ContextTooLong(detail)
        learn_from_error(self, error)
        return error


def http_errors() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """The timeout and request exception classes of ``httpx`` and, when the openai client uses it,
    ``httpx2``."""
    import httpx

    timeouts: list[type[BaseException]] = [httpx.TimeoutException]
    requests: list[type[BaseException]] = [httpx.RequestError]
    httpx2 = sys.modules.get("httpx2")
    if httpx2 is not None:
        timeouts.append(httpx2.TimeoutException)
        requests.append(httpx2.RequestError)
    return tuple(timeouts), tuple(requests)


def connect_timeouts() -> tuple[type[BaseException], ...]:
    """The "no connection in time" timeouts of ``httpx`` and, when loaded, ``httpx2`` (a read timeout is not
    one of them: the server was reached, it is not responding)."""
    import httpx

    found: list[type[BaseException]] = [httpx.ConnectTimeout, httpx.PoolTimeout]
    httpx2 = sys.modules.get("httpx2")
    if httpx2 is not None:
        found += [httpx2.ConnectTimeout, httpx2.PoolTimeout]
    return tuple(found)
