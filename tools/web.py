"""A web page tool: fetch a URL and return the page's main text as Markdown, without menus, ads and scripts.

The page is fetched with ``httpx`` (redirects followed, a timeout, at most :data:`MAX_BYTES` read); the main
part of an HTML page is found with ``readability-lxml`` (the algorithm behind Firefox's Reader View) and
turned into Markdown with ``markdownify``. Plain text and JSON are returned as they are; other content
(images, archives…) is refused with a message.

An example to copy for a tool that reads the network: ``read_only=True`` (it changes nothing — the app's
permission rules can still ask per host), a size cap and a timeout, the libraries imported inside the
function so that loading the tool costs nothing, and HTTP failures told to the model in one sentence.
"""

from __future__ import annotations

import re
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import Field

from desktop_agent import ToolError, tool

#: most bytes of a response read
MAX_BYTES = 3_000_000
#: seconds to connect, and between two reads
TIMEOUT_S = 15.0
MAX_CHARS = 100_000
DEFAULT_CHARS = 20_000
USER_AGENT = "desktop-agent (fetch_url tool)"

_TEXT_TYPES = ("text/plain", "text/markdown", "application/json", "text/csv", "application/xml", "text/xml")


def html_to_markdown(html: str | bytes, url: str = "") -> tuple[str, str]:
    """``(title, main text as Markdown)`` of an HTML page."""
    from markdownify import markdownify
    from readability import Document

    doc = Document(html, url=url or None)
    title = (doc.short_title() or "").strip()
    main = doc.summary(html_partial=True)
    text = markdownify(main, heading_style="ATX", strip=["img", "script", "style"])
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return title, text


@tool(read_only=True, timeout_s=TIMEOUT_S * 3)
def fetch_url(
    url: Annotated[str, Field(description="The http:// or https:// address of the page, e.g. "
                                          "'https://en.wikipedia.org/wiki/Python_(programming_language)'.")],
    max_chars: Annotated[int, Field(description=f"Return at most this many characters (100 to {MAX_CHARS:,}).",
                                    ge=100, le=MAX_CHARS)] = DEFAULT_CHARS,
) -> dict:
    """Fetch a web page and return its title and main text as Markdown (navigation and ads left out).

    Use it to read an article, documentation or any page the user names. Plain-text and JSON addresses
    are returned as they are.
    """
    import httpx

    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ToolError(f"{url!r} is not an http:// or https:// address")
    try:
        with httpx.Client(follow_redirects=True, timeout=TIMEOUT_S, headers={"User-Agent": USER_AGENT}) as client, \
                client.stream("GET", url.strip()) as response:
            if response.status_code >= 400:
                raise ToolError(f"the server answered HTTP {response.status_code} "
                                f"{response.reason_phrase} for {response.url}")
            body = bytearray()
            cut = False
            for chunk in response.iter_bytes():
                body.extend(chunk)
                if len(body) > MAX_BYTES:
                    del body[MAX_BYTES:]
                    cut = True
                    break
            final_url = str(response.url)
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            encoding = response.charset_encoding  # None: the page's own <meta charset> decides
    except httpx.TimeoutException:
        raise ToolError(f"{url} did not answer within {TIMEOUT_S:g} s") from None
    except httpx.HTTPError as exc:
        raise ToolError(f"{url} could not be fetched: {type(exc).__name__}: {exc}") from None
    text = bytes(body).decode(encoding or "utf-8", errors="replace")
    if content_type in ("text/html", "application/xhtml+xml") or (not content_type and "<html" in text[:2000].lower()):
        title, content = html_to_markdown(text if encoding else bytes(body), final_url)
    elif content_type.startswith("text/") or content_type in _TEXT_TYPES or content_type.endswith("+json"):
        title, content = "", text
    else:
        raise ToolError(f"{final_url} is not a text page ({content_type or 'unknown type'}); it was not read")
    out: dict = {"url": final_url, "title": title, "content": content[:max_chars]}
    if cut or len(content) > max_chars:
        out["truncated"] = f"the page is longer; only the first {min(len(content), max_chars):,} characters are shown"
    return out
