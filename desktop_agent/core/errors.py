"""Typed errors, one class per thing a user can act on.

An error's text is one line: what happened (:attr:`AgentError.what`), then how to fix it. The fix
depends on where the user is, so an error carries two hints: :attr:`~AgentError.hint` for the window
("… in Settings") and :attr:`~AgentError.cli_hint` for the command line (flags, environment
variables). ``str(error)`` is the window's text (``ui/errors.py`` shows it as is and maps classes to
titles and actions); :meth:`~AgentError.for_terminal` is the terminal chat's. No error text ever
contains an API key.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP


def _join(*parts: str) -> str:
    """Sentences joined with spaces; a part not ending in punctuation gets a full stop first."""
    kept = [p.strip() for p in parts if p and p.strip()]
    return " ".join(p if i == len(kept) - 1 or p[-1] in ".!?:;—)" else p + "." for i, p in enumerate(kept))


def _steps(n: int) -> str:
    return (QT_TRANSLATE_NOOP("Errors", "{n} step") if n == 1 else QT_TRANSLATE_NOOP("Errors", "{n} steps")).format(n=n)


class AgentError(Exception):
    """Base class. ``retryable``: resending the same turn later may work.

    ``message``: what happened (surface-neutral) — kept as :attr:`what`. ``hint``: how to fix it in
    the window (may name Settings). ``cli_hint``: how to fix it from the command line (flags,
    environment variables); None = the same as ``hint``. :attr:`message` and ``str(error)`` are
    ``what`` + ``hint``; :meth:`for_terminal` is ``what`` + ``cli_hint``.
    """

    retryable: bool = True

    def __init__(self, message: str, hint: str = "", cli_hint: str | None = None):
        self.what = message
        self.hint = hint
        self.cli_hint = hint if cli_hint is None else cli_hint
        self.message = _join(message, hint)
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message

    def for_terminal(self) -> str:
        """The one line the terminal chat prints: what happened, and the command-line fix."""
        return _join(self.what, self.cli_hint)


class BackendUnreachable(AgentError):
    """No connection to the server (refused, DNS, timeout while connecting)."""

    def __init__(self, host: str, backend: str = "ollama", detail: str = ""):
        self.host, self.backend, self.detail = host, backend, detail
        more = f" ({detail})" if detail else ""
        if backend == "ollama":
            super().__init__(
                QT_TRANSLATE_NOOP("Errors",
                        "Can't reach Ollama at {host} — is it running? Start it with `ollama serve`.{more}").format(
                                host=host, more=more),
                cli_hint=("Another address: --host URL or OLLAMA_HOST."),
            )
        else:
            super().__init__(
                QT_TRANSLATE_NOOP("Errors", "Can't reach the server at {host}{more}.").format(host=host, more=more),
                QT_TRANSLATE_NOOP("Errors", "Check the base URL and that the server is running."),
                ("Check --base-url and that the server is running."),
            )


class AuthenticationFailed(AgentError):
    """The server rejected the API key (401/403). Names the base URL, never the key."""

    retryable = False

    def __init__(self, base_url: str, status: int | None = 401, keys_tried: int = 1):
        self.base_url, self.status, self.keys_tried = base_url, status, keys_tried
        code = f" ({status})" if status else ""
        many = QT_TRANSLATE_NOOP("Errors", " All {keys_tried} keys were rejected.").format(
                keys_tried=keys_tried) if keys_tried > 1 else ""
        super().__init__(
            QT_TRANSLATE_NOOP("Errors",
                    "The API key for this provider was rejected{code} by {base_url}.{many}").format(code=code,
                            base_url=base_url, many=many),
            QT_TRANSLATE_NOOP("Errors", "Check the key in Settings → OpenAI-compatible."),
            ("Check the key: OPENAI_API_KEY, or the one saved in the window's Settings → OpenAI-compatible "
            "(a saved key is used first)."),
        )


class ModelNotFound(AgentError):
    """The model is not installed (Ollama) or not served (OpenAI-compatible)."""

    retryable = False

    def __init__(self, model: str, backend: str = "ollama", available: list[str] | None = None):
        self.model, self.backend, self.available = model, backend, list(available or [])
        names = ", ".join(self.available[:8])
        if backend == "ollama":
            pull = QT_TRANSLATE_NOOP("Errors", "Pull it with `ollama pull {model}`").format(model=model)
            super().__init__(
                QT_TRANSLATE_NOOP("Errors", "The model '{model}' is not installed in Ollama.").format(model=model),
                pull + (QT_TRANSLATE_NOOP("Errors", " or choose one of: {names}.").format(
                        names=names) if names else "."),
                pull + ((f", or choose another with --model: {names}.") if names else "."),
            )
        else:
            super().__init__(
                QT_TRANSLATE_NOOP("Errors", "The server does not serve a model named '{model}'").format(model=model)
                + (QT_TRANSLATE_NOOP("Errors", "; it serves: {names}.").format(names=names) if names else "."),
                QT_TRANSLATE_NOOP("Errors", "Choose another model."),
                ("Choose another with --model NAME."),
            )


class RateLimited(AgentError):
    """HTTP 429. ``retry_after_s`` is the server's hint in seconds (None if it gave none)."""

    def __init__(self, retry_after_s: float | None = None, detail: str = ""):
        self.retry_after_s, self.detail = retry_after_s, detail
        if retry_after_s is None:
            wait = QT_TRANSLATE_NOOP("Errors", "try again in a moment")
        elif retry_after_s >= 90:
            wait = QT_TRANSLATE_NOOP("Errors", "try again in about {minutes} minutes").format(minutes=round(
                    retry_after_s / 60))
        else:
            wait = QT_TRANSLATE_NOOP("Errors", "try again in {seconds} s").format(seconds=max(1, round(retry_after_s)))
        text = QT_TRANSLATE_NOOP("Errors", "The provider is rate limiting requests — {wait}.").format(wait=wait)
        if detail:
            text += QT_TRANSLATE_NOOP("Errors", " Provider said: {detail}").format(detail=detail)
        super().__init__(text)


class OutOfQuota(AgentError):
    """HTTP 429 with ``insufficient_quota``: the account behind the key has no credit left. Unlike
    :class:`RateLimited`, waiting does not help, so nothing is retried; ``keys_tried``: how many keys were."""

    retryable = False

    def __init__(self, base_url: str, detail: str = "", keys_tried: int = 1):
        self.base_url, self.detail, self.keys_tried = base_url, detail, keys_tried
        who = QT_TRANSLATE_NOOP("Errors", "All {keys_tried} API keys for {base_url} are").format(keys_tried=keys_tried,
                base_url=base_url) if keys_tried > 1 else QT_TRANSLATE_NOOP("Errors",
                        "The API key for {base_url} is").format(base_url=base_url)
        super().__init__(
            QT_TRANSLATE_NOOP("Errors", "{who} out of quota — check your plan and billing.").format(who=who),
            QT_TRANSLATE_NOOP("Errors",
                    "Add credit on the provider's billing page, or use another key in Settings → OpenAI-compatible."),
            ("Add credit on the provider's billing page, or use another key: OPENAI_API_KEY, or the one saved "
                    "in the "
            "window's Settings → OpenAI-compatible (a saved key is used first)."),
        )


class AllKeysFailed(AgentError):
    """Every API key of the pool failed with a retryable error."""

    def __init__(self, keys_tried: int, last_reason: str):
        self.keys_tried, self.last_reason = keys_tried, last_reason
        super().__init__(QT_TRANSLATE_NOOP("Errors",
                "All {keys_tried} API key(s) failed; last error: {last_reason}").format(keys_tried=keys_tried,
                        last_reason=last_reason))


class ContextTooLong(AgentError):
    """The request does not fit the model's context window. The history is kept intact. ``window`` and
    ``requested``: the window and the request's size in tokens, where the server's reason says them."""

    retryable = False

    def __init__(self, detail: str = ""):
        from desktop_agent.core.backends.reasons import context_numbers

        self.detail = detail
        self.window, self.requested = context_numbers(detail)
        super().__init__(
            QT_TRANSLATE_NOOP("Errors", "This conversation is too long for the model's context window") + (
                    f" ({detail})." if detail else "."),
            QT_TRANSLATE_NOOP("Errors",
                    "Summarise earlier messages (Chat menu), start a new chat, or pick a model with a larger context "
            "in Settings."),
            ("Type /compact to summarise earlier messages, start a new chat (without --chat), or pick a model "
                    "with "
            "a larger context (--model)."),
        )


class ToolsNotSupported(AgentError):
    """The model cannot use tools."""

    retryable = False

    def __init__(self, model: str):
        self.model = model
        super().__init__(
            QT_TRANSLATE_NOOP("Errors", "The model '{model}' does not support tools.").format(model=model),
            QT_TRANSLATE_NOOP("Errors", "Choose a model with tool support."),
            ("Choose a model with tool support (--model), or run without tools (--no-tools)."),
        )


class MalformedToolCall(AgentError):
    """The backend sent a tool call that could not be read at all."""

    def __init__(self, detail: str = ""):
        self.detail = detail
        super().__init__(QT_TRANSLATE_NOOP("Errors", "The backend returned a malformed tool call.") + (
                f" ({detail})" if detail else ""))


class EmptyAnswer(AgentError):
    """The server ended the stream without any content or tool call."""

    def __init__(self) -> None:
        super().__init__(QT_TRANSLATE_NOOP("Errors",
                "The server returned an empty answer. Try again, or try another model."))


class AnswerCutOff(AgentError):
    """The stream broke off before the answer ended (connection dropped, server error mid-stream)."""

    def __init__(self, detail: str = ""):
        self.detail = detail
        super().__init__(
            QT_TRANSLATE_NOOP("Errors", "The answer was cut off: the connection to the server broke mid-answer.")
            + (f" ({detail})" if detail else "")
        )


class ServerStoppedResponding(AnswerCutOff):
    """The server started answering, then sent nothing (or only keep-alives) for ``waited_s`` seconds.
    The partial answer is kept; Retry asks again."""

    def __init__(self, waited_s: float | None = None, host: str = ""):
        self.waited_s, self.host = waited_s, host
        self.detail = QT_TRANSLATE_NOOP("Errors", "no data for {waited_s:g} s").format(
                waited_s=waited_s) if waited_s else QT_TRANSLATE_NOOP("Errors", "no data")
        where = QT_TRANSLATE_NOOP("Errors", " at {host}").format(host=host) if host else ""
        waited = QT_TRANSLATE_NOOP("Errors", " for {waited_s:g} s").format(waited_s=waited_s) if waited_s else ""
        AgentError.__init__(
            self,
            QT_TRANSLATE_NOOP("Errors",
                    "The server{where} stopped responding: it sent nothing{waited} in the middle of the answer."
                    ).format(where=where, waited=waited),
            QT_TRANSLATE_NOOP("Errors", "Try again; if it keeps happening, raise 'wait for next data' in Settings."),
            ("Try again; if it keeps happening, wait longer with --timeout SECONDS."),
        )


class BackendError(AgentError):
    """Any other error the server reported (HTTP status and its message). ``hint`` / ``cli_hint``:
    see :class:`AgentError`."""

    def __init__(self, detail: str, status: int | None = None, hint: str = "", cli_hint: str | None = None):
        self.detail, self.status = detail, status
        code = QT_TRANSLATE_NOOP("Errors", " (HTTP {status})").format(status=status) if status else ""
        super().__init__(QT_TRANSLATE_NOOP("Errors", "The server reported an error{code}: {detail}").format(code=code,
                detail=detail), hint, cli_hint)


def _address_hints(backend: str, fix: str = "") -> tuple[str, str]:
    """The window's and the terminal's "check the address" sentence for ``backend``; ``fix``: a URL to try."""
    if backend == "ollama":
        if fix:
            return (QT_TRANSLATE_NOOP("Errors", "Check the Ollama host in Settings → Ollama: try {fix}.").format(
                    fix=fix),
                    f"Check --host (or OLLAMA_HOST): try {fix}.")
        return QT_TRANSLATE_NOOP("Errors",
                "Check the Ollama host in Settings → Ollama."), "Check --host (or OLLAMA_HOST)."
    if fix:
        return (QT_TRANSLATE_NOOP("Errors", "Check the base URL in Settings → OpenAI-compatible: try {fix}.").format(
                fix=fix),
                f"Check --base-url: try {fix}.")
    return QT_TRANSLATE_NOOP("Errors", "Check the base URL in Settings → OpenAI-compatible."), "Check --base-url."


class WebPageAnswer(BackendError):
    """The server — or a proxy, gateway or sign-in page in front of it — answered an error status with a web
    page (HTML) instead of an API answer. The page is never quoted: the text says what happened (the HTTP
    status, from which URL) and what to check. ``url``: the URL that answered; ``backend``: ``"ollama"`` or
    ``"openai"``; ``fix``: a base URL that is more likely right (e.g. one ending in ``/v1``), or ""."""

    def __init__(self, url: str, status: int, backend: str = "openai", fix: str = ""):
        self.url, self.backend, self.fix = url, backend, fix
        self.detail, self.status = QT_TRANSLATE_NOOP("Errors",
                "the server answered HTTP {status} with a web page").format(status=status), status
        window, cli = _address_hints(backend, fix)
        what = QT_TRANSLATE_NOOP("Errors", "{url} answered HTTP {status} with a web page, not an API answer").format(
                url=url, status=status)
        if status in (502, 503, 504):
            cause = (QT_TRANSLATE_NOOP("Errors",
                    "A proxy or gateway in front of the model server got no answer from it: check that the model "
                     "server is running, then try again."))
            window, cli = cause + " " + window, f"{cause} {cli}"
        elif status in (401, 403, 407):
            cause = QT_TRANSLATE_NOOP("Errors", "A sign-in page or a proxy that wants a login is in the way.")
            window, cli = cause + " " + window, f"{cause} {cli}"
        elif status == 404:
            cause = QT_TRANSLATE_NOOP("Errors", "Nothing answers at this path.")
            window, cli = cause + " " + window, f"{cause} {cli}"
        AgentError.__init__(self, what, window, cli)
        self.retryable = status >= 500


class NotAnApi(AgentError):
    """A 200 answer that is not an OpenAI-compatible (or Ollama) API response: a web page at the base URL, JSON
    of another shape, plain text. Not an empty answer: the address is wrong, not the model. ``seen``: what came
    back ("a web page", "JSON of another kind"…)."""

    retryable = False

    def __init__(self, url: str, backend: str = "openai", seen: str = "something else", fix: str = ""):
        self.url, self.backend, self.seen, self.fix = url, backend, seen, fix
        api = QT_TRANSLATE_NOOP("Errors", "an Ollama API") if backend == "ollama" else QT_TRANSLATE_NOOP("Errors",
                "an OpenAI-compatible API")
        window, cli = _address_hints(backend, fix)
        super().__init__(QT_TRANSLATE_NOOP("Errors",
                "This address does not look like {api}: {url} answered with {seen}.").format(api=api, url=url,
                        seen=seen), window, cli)


class ServerTimedOut(BackendError):
    """The server accepted the request but sent nothing for ``timeout_s`` seconds (busy, loading a
    model, or stuck). Not retried: the server may still be working on the first request.
    ``backend``: ``"ollama"`` or ``"openai"``; ``host``: its URL."""

    def __init__(self, host: str, timeout_s: float, backend: str = "ollama"):
        self.detail, self.status = QT_TRANSLATE_NOOP("Errors", "no answer within {timeout_s:g} s").format(
                timeout_s=timeout_s), None
        self.host, self.timeout_s, self.backend = host, timeout_s, backend
        who = QT_TRANSLATE_NOOP("Errors", "Ollama at {host}").format(
                host=host) if backend == "ollama" else QT_TRANSLATE_NOOP("Errors", "The server at {host}").format(
                        host=host)
        AgentError.__init__(
            self,
            QT_TRANSLATE_NOOP("Errors",
                    "{who} did not answer within {timeout_s:g} s — it may be busy or still loading the model.").format(
                            who=who, timeout_s=timeout_s),
            QT_TRANSLATE_NOOP("Errors", "Try again.") if backend == "ollama"
            else QT_TRANSLATE_NOOP("Errors", "Try again, or raise the timeout in Settings → OpenAI-compatible."),
            ("Try again, or wait longer with --timeout SECONDS."),
        )


class MaxStepsExceeded(AgentError):
    """The loop used all its steps without a final answer."""

    def __init__(self, steps: int):
        self.steps = steps
        super().__init__(
            QT_TRANSLATE_NOOP("Errors", "The agent did not finish in {plural}.").format(plural=_steps(steps)),
            QT_TRANSLATE_NOOP("Errors", "Ask again, or raise 'max steps' in Settings."),
            ("Ask again (--chat ID continues the chat), or allow more with --max-steps N."),
        )


class ToolFailed(AgentError):
    """A tool raised. Used for tool results, never raised out of the loop."""

    def __init__(self, name: str, detail: str):
        self.name, self.detail = name, detail
        super().__init__(QT_TRANSLATE_NOOP("Errors", "Error: {detail}").format(detail=detail))


class ToolTimedOut(AgentError):
    """A tool did not return within its timeout. Used for tool results."""

    def __init__(self, name: str, timeout_s: float):
        self.name, self.timeout_s = name, timeout_s
        super().__init__(QT_TRANSLATE_NOOP("Errors", "Error: tool '{name}' timed out after {timeout_s:g} s").format(
                name=name, timeout_s=timeout_s))


class ToolHostCrashed(AgentError):
    """The process running a tool call died during it (the tool exited, crashed the interpreter, was killed).
    Used for tool results; the next call gets a new process."""

    def __init__(self, name: str, how: str):
        self.name, self.how = name, how
        super().__init__(QT_TRANSLATE_NOOP("Errors",
                "Error: tool '{name}' crashed the process it ran in ({how}); it returned no result. The tool host "
                "was restarted for the next call.").format(name=name, how=how))


class ToolPrintedTooMuch(AgentError):
    """A tool printed more than the tool host keeps for one call; it was stopped. Used for tool results."""

    def __init__(self, name: str, limit_mb: int):
        self.name, self.limit_mb = name, limit_mb
        super().__init__(QT_TRANSLATE_NOOP("Errors",
                "Error: tool '{name}' printed more than {limit_mb} MB and was stopped.").format(name=name,
                        limit_mb=limit_mb))


class ToolHostUnavailable(AgentError):
    """The process that runs tools could not be started. Used for tool results."""

    def __init__(self, detail: str):
        self.detail = detail
        super().__init__(QT_TRANSLATE_NOOP("Errors", "Error: the tool host could not run the call ({detail}).").format(
                detail=detail))


class SettingsError(AgentError):
    """A setting is invalid (bad URL, negative timeout…)."""

    retryable = False


class UnexpectedError(AgentError):
    """An exception that is not an :class:`AgentError` (a bug, or a client library failing in a way
    the backend did not translate). ``original`` (also ``__cause__``) is the exception; ``details``
    is its traceback as text, for a "Copy details" button."""

    def __init__(self, exc: BaseException, where: str = "the agent"):
        self.original = exc
        self.where = where
        self.details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        super().__init__(
            QT_TRANSLATE_NOOP("Errors", "Unexpected error in {where}: {kind}").format(where=where, kind=type(
                    exc).__name__) + (f": {text}" if text else "")
            + QT_TRANSLATE_NOOP("Errors", ". Try again; if it keeps happening, copy the details into a bug report.")
        )
        self.__cause__ = exc


# ---- errors of the backends (moved here from core/backends) ------------------------------------


class NoApiKey(AgentError):
    """The provider needs an API key and none is configured: raised at the first request, or when a
    server assumed to need none (a local one, sent a placeholder) answers 401/403 (``status``).

    Not an :class:`AuthenticationFailed`: no key was rejected, so the fix is to add one, not to check
    one. ``keys_tried`` is always 0."""

    retryable = False

    def __init__(self, base_url: str, status: int | None = None):
        self.base_url, self.status, self.keys_tried = base_url, status, 0
        if status:
            super().__init__(
                QT_TRANSLATE_NOOP("Errors",
                        "No API key is set for {base_url}, and the server asks for one ({status}).").format(
                                base_url=base_url, status=status),
                QT_TRANSLATE_NOOP("Errors",
                        "Add one in Settings → OpenAI-compatible, or set the OPENAI_API_KEY environment variable."),
                ("Set the OPENAI_API_KEY environment variable."),
            )
            return
        super().__init__(
            QT_TRANSLATE_NOOP("Errors", "No API key is set for {base_url}.").format(base_url=base_url),
            QT_TRANSLATE_NOOP("Errors",
                    "Add one in Settings → OpenAI-compatible, or set the OPENAI_API_KEY environment variable "
            "(for a local server that needs no key, turn off 'needs a key')."),
            ("Set the OPENAI_API_KEY environment variable, or pass --no-api-key if the server needs none."),
        )


class KeyringLocked(AgentError):
    """No API key could be read because the system keyring is locked (a key saved there cannot be read until
    it is unlocked). Said instead of :class:`NoApiKey`: the key may well be saved. ``status``: the HTTP status
    of a server that asked for a key (None: not asked yet)."""

    def __init__(self, base_url: str, status: int | None = None):
        self.base_url, self.status, self.keys_tried = base_url, status, 0
        super().__init__(
            QT_TRANSLATE_NOOP("Errors",
                    "The keyring is locked — unlock it to use an API key saved there for {base_url}.").format(
                            base_url=base_url),
            QT_TRANSLATE_NOOP("Errors",
                    "You can unlock it in Passwords and Keys (or by logging in again); then press Retry."),
            ("You can unlock it in Passwords and Keys; then run the command again (or set OPENAI_API_KEY)."),
        )


class OutputLimitReached(AnswerCutOff):
    """The model stopped at its output-token limit (``finish_reason: "length"``) before answering."""

    def __init__(self) -> None:
        self.detail = QT_TRANSLATE_NOOP("Errors", "finish_reason: length")
        AgentError.__init__(
            self,
            QT_TRANSLATE_NOOP("Errors",
                    "The model reached its output limit before writing an answer. Try again, ask for a shorter "
            "answer, or pick a model with a larger context."),
        )

# ------------------------------------------------------------------------------- chat history (the store)


class StoreError(AgentError):
    """The chat history could not be read or written. ``str()`` says what to do."""

    retryable = False


class ConversationNotFound(StoreError):
    """No saved chat has this id (or id prefix)."""

    def __init__(self, ref: str):
        self.ref = ref
        super().__init__(QT_TRANSLATE_NOOP("Errors",
                "No saved chat with id '{ref}'. `desktop-agent history list` shows the ids.").format(ref=ref))


class AmbiguousConversationId(StoreError):
    """An id prefix matches several chats."""

    def __init__(self, ref: str, matches: list[str]):
        self.ref, self.matches = ref, matches
        shown = ", ".join(m[:12] for m in matches[:5]) + (", …" if len(matches) > 5 else "")
        super().__init__(QT_TRANSLATE_NOOP("Errors",
                "The id prefix '{ref}' matches {n_matches} chats ({shown}); type more of the id.").format(ref=ref,
                        n_matches=len(matches), shown=shown))


class StoreDamaged(StoreError):
    """SQLite reported the database as damaged while the app was running.

    The next start checks the file and, if it is damaged, keeps it aside and starts a fresh history.
    """

    def __init__(self, path: Path, detail: str):
        self.path, self.detail = path, detail
        super().__init__(
            QT_TRANSLATE_NOOP("Errors",
                    "The chat history file {path} is damaged ({detail}). Restart desktop-agent: it will keep the "
                    "damaged file aside and start a new history.").format(path=path, detail=detail)
        )


class ImportFailed(StoreError):
    """A chat file could not be imported. Nothing was imported, and the file was not changed."""

    def __init__(self, path: str | os.PathLike[str], reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(QT_TRANSLATE_NOOP("Errors", "Can't import {path}: {reason}. Nothing was imported.").format(
                path=path, reason=reason))
