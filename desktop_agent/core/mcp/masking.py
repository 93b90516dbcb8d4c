"""What is shown of an MCP server's output (its stderr tail, the reason it failed) is masked like the log — keys,
tokens, a URL's password (:func:`desktop_agent.core.logs.redact`) — and, above all, every secret value the app itself
handed to that server (its secret environment variables, headers, arguments, its URL's credentials) is masked
wherever it appears, whatever its shape."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, unquote, urlsplit

if TYPE_CHECKING:
    from desktop_agent.core.settings import McpServerSettings

#: shorter values are not masked on their own: replacing every "ab" would garble the text and hide nothing
MIN_LENGTH = 4
MASK = "***"


def secret_parts(values: Iterable[str]) -> list[str]:
    """The strings to mask for the secret ``values``: each value, the credential of ``Bearer X`` / ``Basic X``,
    and a URL's password and query values; longest first (a value containing another is masked whole)."""
    parts: set[str] = set()
    for value in values:
        value = str(value or "").strip()
        if not value:
            continue
        parts.add(value)
        scheme, _, rest = value.partition(" ")
        if rest and scheme.lower() in ("bearer", "basic", "token"):
            parts.add(rest.strip())
        if "://" in value:
            try:
                url = urlsplit(value)
                if url.password:
                    parts.update({url.password, unquote(url.password)})
                parts.update(v for _k, v in parse_qsl(url.query) if v)
            except ValueError:
                pass
    return sorted((p for p in parts if len(p) >= MIN_LENGTH), key=len, reverse=True)


def handed_secrets(server: McpServerSettings, kept: Iterable[str] = ()) -> list[str]:
    """The strings to mask for what ``server`` is started with (its secrets already filled in): the values ``kept``
    in the keyring, and every value that is a secret by the import's rules whatever its storage — an environment
    variable or header named like one (TOKEN, KEY, PASSWORD…) or looking like one, a secret argument, a URL's
    credentials — so a secret written into the settings file (``--secrets-in-file``) is masked like one in the
    keyring."""
    from desktop_agent.core.mcp.config import McpConfigError, hide_secrets

    try:
        _shown, found = hide_secrets(server)
    except McpConfigError:
        found = {}
    return secret_parts([*kept, *found.values()])


def mask(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with the log's masking and every one of ``secrets`` (see :func:`secret_parts`) replaced by ``***``."""
    from desktop_agent.core.logs import redact

    for secret in secrets:
        if secret and secret in text:
            text = text.replace(secret, MASK)
    return redact(text)


def mask_all(lines: Iterable[str], secrets: Iterable[str] = ()) -> list[str]:
    found = list(secrets)
    return [mask(line, found) for line in lines]
