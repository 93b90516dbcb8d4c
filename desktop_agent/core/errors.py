"""Typed errors, one class per thing a user can act on.

``str(error)`` is one line a user can act on (the terminal chat prints it as is); the window maps
classes to richer text in ``ui/errors.py``. No error text ever contains an API key.
"""

from __future__ import annotations

import traceback


class AgentError(Exception):
    """Base class. ``retryable``: resending the same turn later may work."""

    retryable: bool = True

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class BackendUnreachable(AgentError):
    """No connection to the server (refused, DNS, timeout while connecting)."""

    def __init__(self, host: str, backend: str = "ollama", detail: str = ""):
        self.host, self.backend, self.detail = host, backend, detail
        if backend == "ollama":
            text = f"Can't reach Ollama at {host} — is it running? Start it with `ollama serve`."
        else:
            text = f"Can't reach the server at {host} — check the base URL and that the server is running."
        if detail:
            text += f" ({detail})"
        super().__init__(text)


class AuthenticationFailed(AgentError):
    """The server rejected the API key (401/403). Names the base URL, never the key."""

    retryable = False

    def __init__(self, base_url: str, status: int | None = 401, keys_tried: int = 1):
        self.base_url, self.status, self.keys_tried = base_url, status, keys_tried
        code = f" ({status})" if status else ""
        many = f" All {keys_tried} keys were rejected." if keys_tried > 1 else ""
        super().__init__(
            f"The API key for this provider was rejected{code} by {base_url}.{many} "
            "Check the key in Settings → OpenAI-compatible."
        )


class ModelNotFound(AgentError):
    """The model is not installed (Ollama) or not served (OpenAI-compatible)."""

    retryable = False

    def __init__(self, model: str, backend: str = "ollama", available: list[str] | None = None):
        self.model, self.backend, self.available = model, backend, list(available or [])
        if backend == "ollama":
            text = f"The model '{model}' is not installed in Ollama. Pull it with `ollama pull {model}`"
        else:
            text = f"The server does not serve a model named '{model}'. Choose another model"
        if self.available:
            text += " or choose one of: " + ", ".join(self.available[:8])
        super().__init__(text + ".")


class RateLimited(AgentError):
    """HTTP 429. ``retry_after_s`` is the server's hint in seconds (None if it gave none)."""

    def __init__(self, retry_after_s: float | None = None, detail: str = ""):
        self.retry_after_s, self.detail = retry_after_s, detail
        if retry_after_s is None:
            wait = "try again in a moment"
        elif retry_after_s >= 90:
            wait = f"try again in about {round(retry_after_s / 60)} minutes"
        else:
            wait = f"try again in {max(1, round(retry_after_s))} s"
        text = f"The provider is rate limiting requests — {wait}."
        if detail:
            text += f" Provider said: {detail}"
        super().__init__(text)


class AllKeysFailed(AgentError):
    """Every API key of the pool failed with a retryable error."""

    def __init__(self, keys_tried: int, last_reason: str):
        self.keys_tried, self.last_reason = keys_tried, last_reason
        super().__init__(f"All {keys_tried} API key(s) failed; last error: {last_reason}")


class ContextTooLong(AgentError):
    """The request does not fit the model's context window. The history is kept intact."""

    retryable = False

    def __init__(self, detail: str = ""):
        self.detail = detail
        super().__init__(
            "This conversation is too long for the model's context window. Start a new chat, "
            "lower 'max history messages' in Settings, or pick a model with a larger context."
            + (f" ({detail})" if detail else "")
        )


class ToolsNotSupported(AgentError):
    """The model cannot use tools."""

    retryable = False

    def __init__(self, model: str):
        self.model = model
        super().__init__(
            f"The model '{model}' does not support tools. Choose a model with tool support, "
            "or turn tools off (--no-tools)."
        )


class MalformedToolCall(AgentError):
    """The backend sent a tool call that could not be read at all."""

    def __init__(self, detail: str = ""):
        self.detail = detail
        super().__init__("The backend returned a malformed tool call." + (f" ({detail})" if detail else ""))


class EmptyAnswer(AgentError):
    """The server ended the stream without any content or tool call."""

    def __init__(self):
        super().__init__("The server returned an empty answer. Try again, or try another model.")


class AnswerCutOff(AgentError):
    """The stream broke off before the answer ended (connection dropped, server error mid-stream)."""

    def __init__(self, detail: str = ""):
        self.detail = detail
        super().__init__(
            "The answer was cut off: the connection to the server broke mid-answer."
            + (f" ({detail})" if detail else "")
        )


class BackendError(AgentError):
    """Any other error the server reported (HTTP status and its message)."""

    def __init__(self, detail: str, status: int | None = None):
        self.detail, self.status = detail, status
        code = f" (HTTP {status})" if status else ""
        super().__init__(f"The server reported an error{code}: {detail}")


class MaxStepsExceeded(AgentError):
    """The loop used all its steps without a final answer."""

    def __init__(self, steps: int):
        self.steps = steps
        super().__init__(
            f"The agent did not finish in {steps} steps. Ask again, or raise 'max steps' in Settings."
        )


class ToolFailed(AgentError):
    """A tool raised. Used for tool results, never raised out of the loop."""

    def __init__(self, name: str, detail: str):
        self.name, self.detail = name, detail
        super().__init__(f"Error: {detail}")


class ToolTimedOut(AgentError):
    """A tool did not return within its timeout. Used for tool results."""

    def __init__(self, name: str, timeout_s: float):
        self.name, self.timeout_s = name, timeout_s
        super().__init__(f"Error: tool '{name}' timed out after {timeout_s:g} s")


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
            f"Unexpected error in {where}: {type(exc).__name__}" + (f": {text}" if text else "")
            + ". Try again; if it keeps happening, copy the details into a bug report."
        )
        self.__cause__ = exc
