"""Server addresses as people paste them, made into the URL the app uses — one set of rules for the settings
file, the Settings dialog and the command line.

- :func:`check_url`: an http(s) URL with a host, or ValueError saying what is wrong;
- :func:`parse_ollama_host`: an ``OLLAMA_HOST``-style value as Ollama itself reads it;
- :func:`clean_base_url` (OpenAI-compatible) and :func:`clean_ollama_host` fix what is unambiguous: spaces and
  quotes around it, a trailing slash, a full endpoint pasted instead of the base (``…/v1/chat/completions`` →
  ``…/v1``; ``…/api/chat`` → the Ollama host), no scheme on a local address (``localhost:8080/v1``);
- :func:`suggest_v1`: the base URL to try when a server answers "not found" at one without ``/v1`` (a missing
  ``/v1`` is not added silently: some providers have none).
"""

from __future__ import annotations

import re
from urllib.parse import urlparse, urlsplit

__all__ = ["check_url", "clean_base_url", "clean_ollama_host", "parse_ollama_host", "suggest_v1"]

OLLAMA_DEFAULT_PORT = 11434

#: the endpoint paths of the OpenAI API that people paste with the base URL (longest first)
_OPENAI_ENDPOINTS = ("/chat/completions", "/completions", "/responses", "/embeddings", "/models")
#: the same for Ollama's own API (and its OpenAI-compatible /v1, which the Ollama backend does not use)
_OLLAMA_ENDPOINT = re.compile(r"/(api(/[a-z]+)?|v1(/chat/completions|/completions|/models)?)$", re.I)
_LOCAL_HOST = re.compile(r"^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1|0\.0\.0\.0)(:\d+)?(/|$)", re.I)


def check_url(value: str) -> str:
    """``value`` as a clean http(s) URL (no trailing slash); ValueError saying what is wrong."""
    value = value.strip().rstrip("/")
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"'{value}' is not a URL: it needs http:// or https:// and a host")
    host = parsed.hostname or ""
    try:
        _ = parsed.port  # raises ValueError for a bad port
    except ValueError:
        raise ValueError(f"'{value}' has an invalid port") from None
    if not host or any(c.isspace() for c in value) or not re.fullmatch(r"[\w.\-:\[\]%]+", host):
        raise ValueError(f"'{value}' is not a URL: '{host}' is not a host name")
    return value


def parse_ollama_host(value: str) -> str:
    """An ``OLLAMA_HOST``-style value as the URL Ollama itself connects to.

    As in Ollama: surrounding spaces and quotes are ignored; no scheme means ``http``; no host means
    ``127.0.0.1``; no port means 11434 — unless a scheme was given, then the scheme's port (80, 443); a
    path is kept. ``":11500"`` → ``http://127.0.0.1:11500``, ``"gpu-box"`` → ``http://gpu-box:11434``,
    ``"https://gpu-box"`` → ``https://gpu-box:443``. Raises ValueError for a port that is not a number.
    """
    text = value.strip().strip("\"'").strip()
    if text.count(":") > 1 and "[" not in text and "://" not in text:
        text = f"[{text}]"  # a bare IPv6 address ("::1"), as Ollama reads it
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest, port = "http", text, OLLAMA_DEFAULT_PORT
    else:
        port = {"http": 80, "https": 443}.get(scheme.lower(), OLLAMA_DEFAULT_PORT)
    parts = urlsplit(f"{scheme}://{rest}")
    try:
        given_port = parts.port
    except ValueError:
        raise ValueError(f"'{value.strip()}' has an invalid port") from None
    host = parts.hostname or "127.0.0.1"
    if ":" in host:  # an IPv6 address loses its brackets in urlsplit
        host = f"[{host}]"
    url = f"{scheme}://{host}:{given_port or port}"
    path = parts.path.strip("/")
    return f"{url}/{path}" if path else url


def _unwrapped(value: str) -> str:
    """``value`` without surrounding spaces, quotes or angle brackets (as pasted from a chat or a doc)."""
    text = str(value).strip()
    while len(text) >= 2 and text[0] + text[-1] in ('""', "''", "<>", "``"):
        text = text[1:-1].strip()
    return text


def clean_base_url(value: str) -> str:
    """An OpenAI-compatible base URL as pasted → the base URL to use; ValueError (see :func:`check_url`) for
    what cannot be fixed. Trailing slashes, an endpoint path (``/chat/completions``, ``/models``…), a query and
    a missing ``http://`` on a local address are fixed; a missing ``/v1`` is not (see :func:`suggest_v1`)."""
    text = _unwrapped(value)
    if "://" not in text and _LOCAL_HOST.match(text):
        text = "http://" + text
    url = check_url(text.split("?", 1)[0].split("#", 1)[0])
    lowered = url.lower()
    for endpoint in _OPENAI_ENDPOINTS:
        if lowered.endswith(endpoint) and urlparse(url[: -len(endpoint)]).netloc:
            url = url[: -len(endpoint)].rstrip("/")
            break
    return check_url(url)


def clean_ollama_host(value: str) -> str:
    """An Ollama host as pasted → the URL to use; ValueError for what cannot be fixed. A value without a
    scheme is read as ``OLLAMA_HOST`` is (:func:`parse_ollama_host`: ``gpu-box`` → ``http://gpu-box:11434``);
    a pasted endpoint (``…/api/chat``, ``…/api``, ``…/v1``) becomes the host."""
    text = _unwrapped(value)
    if "://" not in text:
        text = parse_ollama_host(text)
    url = check_url(text.split("?", 1)[0].split("#", 1)[0])
    path = urlparse(url).path
    match = _OLLAMA_ENDPOINT.search(path)
    if match:
        url = url[: len(url) - len(path)] + path[: match.start()]
    return check_url(url)


def suggest_v1(base_url: str) -> str:
    """The base URL with ``/v1`` added (``http://localhost:1234`` → ``http://localhost:1234/v1``)."""
    return base_url.rstrip("/") + "/v1"
