"""A chat (or several) as one standalone HTML page: styled, readable offline, safe to open.

Messages are rendered from Markdown with markdown-it-py (the library the window renders with), raw HTML in a
message is escaped (``html=False``) and links with unsafe schemes are dropped by markdown-it's link check;
code blocks are highlighted by Pygments with inline colours. The page has no script and loads nothing: its
Content-Security-Policy forbids every remote load, so a remote image written in a message is not fetched.
Thinking, tool calls and tool results are collapsible ``<details>``. Light and dark follow the reader's system.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.porting.markdown_doc import arguments_text, tool_result_label, when

_CSS = """
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #6b7280; --user: #eef4ff;
  --bot: #f7f7f8; --border: #d0d7de; --code: #f3f4f6; --link: #2f5fc4; }
@media (prefers-color-scheme: dark) { :root { --bg: #16181d; --fg: #e6e6e6; --muted: #9aa0a6; --user: #1f2a3d;
  --bot: #1f2126; --border: #3a3f47; --code: #24272e; --link: #8ab4f8; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", sans-serif; }
main { max-width: 860px; margin: 0 auto; padding: 24px 16px 64px; }
h1 { font-size: 1.6em; margin: 0.4em 0; } h2.chat { font-size: 1.35em; margin-top: 2.2em;
  border-top: 1px solid var(--border); padding-top: 1em; }
.meta { color: var(--muted); font-size: 0.9em; margin: 0 0 1.2em; }
nav ol { padding-left: 1.4em; } a { color: var(--link); }
.msg { border: 1px solid var(--border); border-radius: 10px; padding: 10px 14px; margin: 12px 0;
  background: var(--bot); }
.msg.user { background: var(--user); } .msg.tool { background: transparent; }
.who { font-weight: 600; font-size: 0.9em; color: var(--muted); margin-bottom: 4px; }
.body > :first-child { margin-top: 0; } .body > :last-child { margin-bottom: 0; }
pre { background: var(--code); padding: 10px 12px; border-radius: 6px; overflow-x: auto; white-space: pre-wrap;
  word-break: break-word; font: 0.88em/1.45 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.92em; }
:not(pre) > code { background: var(--code); padding: 1px 4px; border-radius: 4px; }
details { margin: 8px 0; border-left: 3px solid var(--border); padding-left: 10px; }
summary { cursor: pointer; color: var(--muted); font-size: 0.92em; }
table { border-collapse: collapse; } td, th { border: 1px solid var(--border); padding: 4px 8px; }
blockquote { margin: 0; padding-left: 12px; border-left: 3px solid var(--border); color: var(--muted); }
img { max-width: 100%; }
.partial { color: var(--muted); font-style: italic; }
"""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _highlight(code: str, lang: str, _attrs: object) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang, stripnl=False) if lang else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return ""  # markdown-it escapes it itself
    return highlight(code, lexer, HtmlFormatter(nowrap=True, noclasses=True))


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False,
                                   "highlight": _highlight})
    md.enable(["table", "strikethrough"])
    return md


def render_markdown(text: str) -> str:
    """Safe HTML for a message's Markdown (raw HTML escaped, unsafe links dropped)."""
    return _parser().render(text)


def _pre(text: str) -> str:
    return f"<pre><code>{_esc(text)}</code></pre>"


def _message(m: Message) -> str:
    if m.role == "tool":
        return (f'<article class="msg tool"><details><summary>{_esc(tool_result_label(m))}</summary>'
                f"{_pre(m.full_content or m.content)}</details></article>")
    if m.role == "system" and m.kind not in ("message", "summary"):  # a note about the chat ("Model: a → b")
        return f'<p class="partial">{_esc(m.content)}</p>'
    if m.role == "user":
        who, cls = "You", "user"
    elif m.role == "system":
        who = f"Summary of the first {m.covers or 0} messages" if m.kind == "summary" else "System"
        cls = "system"
    else:
        who, cls = "Assistant" + (f" ({m.model})" if m.model else ""), "assistant"
    parts = [f'<article class="msg {cls}"><div class="who">{_esc(who)} · {_esc(when(m.created_at))}</div>'
             '<div class="body">']
    if m.thinking:
        parts.append(f"<details><summary>Thinking</summary>{render_markdown(m.thinking)}</details>")
    if m.content:
        parts.append(render_markdown(m.content))
    parts.extend(_attachment(a) for a in getattr(m, "attachments", None) or [])
    for call in m.tool_calls:
        parts.append(f"<details><summary>Tool call: {_esc(call.name)}</summary>"
                     f"{_pre(arguments_text(call))}</details>")
    if m.role == "assistant" and m.status != "complete":
        parts.append(f'<p class="partial">(answer {_esc(m.status)} — partial)</p>')
    parts.append("</div></article>")
    return "".join(parts)


def _attachment(a: Any) -> str:
    """An attached file: an image shown inline (a ``data:`` URI: the page stays self-contained), else its name."""
    name = _esc(str(getattr(a, "name", "file")))
    if getattr(a, "kind", "") == "image":
        try:
            data = base64.b64encode(a.read_bytes()).decode("ascii")
        except (OSError, AttributeError, ValueError):
            data = ""
        if data:
            mime = _esc(str(getattr(a, "mime", "image/png")))
            return f'<figure><img src="data:{mime};base64,{data}" alt="{name}"><figcaption>{name}</figcaption></figure>'
    return f'<p class="partial">Attached: {name}</p>'


def _chat(conv: Conversation, heading: str, anchor: str, other_branches: int) -> str:
    title = conv.title or conv.default_title()
    meta = [f"Started {when(conv.created_at)}", f"last message {when(conv.updated_at)}",
            f"{len(conv.messages)} messages"]
    if conv.model:
        meta.insert(0, conv.model + (f" ({conv.backend})" if conv.backend else ""))
    if other_branches:
        meta.append(f"the branch shown ({other_branches} more in the JSON export)")
    cls = ' class="chat"' if heading == "h2" else ""
    return (f'<section id="{anchor}"><{heading}{cls}>{_esc(title)}</{heading}>'
            f'<p class="meta">{_esc(" · ".join(meta))}</p>'
            + "".join(_message(m) for m in conv.messages) + "</section>")


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta name="generator" content="Desktop Agent">'
            f"<title>{_esc(title)}</title><style>{_CSS}</style></head>\n<body><main>{body}</main></body></html>\n")


def export_html(conv: Conversation, *, other_branches: int = 0) -> str:
    """One chat as a standalone page."""
    return _page(conv.title or conv.default_title(), _chat(conv, "h1", "chat-1", other_branches))


def export_html_all(chats: Iterable[tuple[Conversation, int]]) -> str:
    """Several chats on one page, with a table of contents."""
    items = list(chats)
    toc = "".join(f'<li><a href="#chat-{i}">{_esc(c.title or c.default_title())}</a></li>'
                  for i, (c, _) in enumerate(items, 1))
    body = (f"<h1>Chats exported from Desktop Agent</h1><p class=\"meta\">{len(items)} chats</p>"
            f"<nav><ol>{toc}</ol></nav>"
            + "".join(_chat(c, "h2", f"chat-{i}", other) for i, (c, other) in enumerate(items, 1)))
    return _page("Chats exported from Desktop Agent", body)
