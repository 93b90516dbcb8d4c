"""Exit codes, usage errors, and :func:`terminal_text`: the one place that words an error for the terminal."""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_STOPPED = 0, 1, 2, 130


class UsageError(Exception):
    """Bad command-line usage: exit code 2."""


def terminal_text(error: BaseException, key_source: str | None = None) -> str:
    """The one line the terminal prints for ``error``: the error's own command-line text
    (:meth:`~desktop_agent.core.errors.AgentError.for_terminal`: flags and environment variables, not the
    window's Settings), or ``str(error)`` for any other exception. For a rejected API key whose source is
    known (``key_source``: the environment or the system keyring), the fix names that source only."""
    from desktop_agent.core.errors import AuthenticationFailed
    from desktop_agent.core.secrets import ENV_VAR, ENVIRONMENT, SYSTEM_KEYRING

    fix = {
        ENVIRONMENT: f"Check {ENV_VAR}.",
        SYSTEM_KEYRING: ("Check the key saved in the system keyring (the window's Settings → OpenAI-compatible); "
                         f"it is used before {ENV_VAR}."),
    }.get(key_source or "")
    if fix is not None and isinstance(error, AuthenticationFailed):
        text = f"{error.what} {fix}"
    else:
        fn = getattr(error, "for_terminal", None)
        text = fn() if callable(fn) else str(error)
    return " ".join(text.split()) or type(error).__name__
