"""Markdown → the HTML subset Qt's rich text engine draws, with Pygments-highlighted code blocks.

This module imports markdown-it-py and Pygments at import time: import it after the window shows
(the "warm-up" stage of :mod:`desktop_agent.ui.startup` loads it). Qt-free, so it can be tested on its own.

- Parser: markdown-it-py, CommonMark plus tables and strikethrough; raw HTML in the model's answer is
  escaped (``html=False``), images become links (the window never fetches remote content).
- Code blocks become a two-row table: a header with the language and a ``Copy`` link whose href is
  ``copy:<n>`` (``n`` indexes :attr:`Rendered.codes`), and the code itself, highlighted by Pygments with
  inline styles (Qt has no external CSS), wrapped (``white-space: pre-wrap``) instead of scrolling.
- Unclosed fences while a message is still streaming render as code up to the end, as CommonMark says.
- Streaming: :mod:`desktop_agent.ui.markdown_growth` tells how much of a growing answer is made of finished
  top-level blocks; those are rendered once with :func:`render_tokens` and never again, only the open block
  after them is re-rendered (``ui/chat/parts.py``).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound


@dataclass(frozen=True)
class Colors:
    """What the HTML needs from the theme (``ui/theme.py``): CSS colour strings and font families."""

    text: str = "#1f2328"
    muted: str = "#6b7280"
    link: str = "#2f5fc4"
    code_bg: str = "#f3f4f6"
    code_head: str = "#e8eaee"
    inline_code_bg: str = "#eef0f3"
    border: str = "#d0d7de"
    mono_family: str = "monospace"
    pygments_style: str = "default"
    #: a code block's copy link, before and after a click (in the window's language: ui/chat/context.py)
    copy_text: str = "Copy"
    copied_text: str = "Copied ✓"


@dataclass
class Rendered:
    """``html`` for ``QTextDocument.setHtml``; ``codes[n]`` is the raw text of the n-th code block."""

    html: str
    codes: list[str] = field(default_factory=list)


def escape(text: str) -> str:
    return html.escape(text, quote=False)


@lru_cache(maxsize=8)
def _formatter(style: str) -> HtmlFormatter:
    try:
        return HtmlFormatter(nowrap=True, noclasses=True, style=style)
    except ClassNotFound:
        return HtmlFormatter(nowrap=True, noclasses=True, style="default")


@lru_cache(maxsize=64)
def _lexer(language: str):
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def highlight_code(code: str, language: str, style: str = "default") -> str:
    """``code`` as HTML spans with inline colours; plain escaped text for unknown languages."""
    lexer = _lexer(language.lower()) if language else None
    if lexer is None:
        return escape(code)
    out = highlight(code, lexer, _formatter(style))
    # Pygments may add a trailing newline; the <pre> adds its own line end.
    return out[:-1] if out.endswith("\n") and not code.endswith("\n") else out


#: Qt ignores most margins from the default style sheet on <p>; inline them.
_P_OPEN = '<p style="margin-top:0px; margin-bottom:10px;">'
_P_LAST = '<p style="margin-top:0px; margin-bottom:0px;">'
#: how a rendered paragraph starts (a fragment starting with it has no top margin)
PARAGRAPH_OPEN = _P_OPEN


class _QtRenderer(RendererHTML):
    """Render rules for the parts Qt's rich text needs in a special form."""

    def fence(self, tokens, idx, options, env):
        token = tokens[idx]
        info = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
        return _code_table(token.content, info, env)

    def code_block(self, tokens, idx, options, env):
        return _code_table(tokens[idx].content, "", env)

    def code_inline(self, tokens, idx, options, env):
        c: Colors = env["colors"]
        return (
            f'<code style="background-color:{c.inline_code_bg}; font-family:\'{c.mono_family}\';">'
            f"&#8202;{escape(tokens[idx].content)}&#8202;</code>"
        )

    def table_open(self, tokens, idx, options, env):
        c: Colors = env["colors"]
        return (
            f'<table border="1" cellspacing="0" cellpadding="6" '
            f'style="border-collapse:collapse; border-color:{c.border}; margin-top:2px; margin-bottom:10px;">'
        )

    def paragraph_open(self, tokens, idx, options, env):
        if tokens[idx].hidden:  # tight list items
            return ""
        return _P_OPEN

    def image(self, tokens, idx, options, env):
        token = tokens[idx]
        src = token.attrGet("src") or ""
        alt = token.content or "image"
        return f'<a href="{html.escape(str(src))}">[{escape(alt)}]</a>'


def _code_table(code: str, language: str, env: dict) -> str:
    c: Colors = env["colors"]
    codes: list[str] = env["codes"]
    n = len(codes)
    text = code[:-1] if code.endswith("\n") else code
    codes.append(text)
    # an open fence while streaming is highlighted once it closes
    body = highlight_code(text, language, c.pygments_style) if env.get("highlight", True) else escape(text)
    copied = env.get("copied") == n
    label = escape(c.copied_text if copied else c.copy_text)
    lang = escape(language) if language else "code"
    return (
        f'<table width="100%" cellspacing="0" cellpadding="0" bgcolor="{c.code_bg}" '
        f'style="margin-top:4px; margin-bottom:10px; border-collapse:collapse;">'
        f'<tr><td bgcolor="{c.code_head}" style="padding:4px 10px;">'
        f'<span style="color:{c.muted}; font-size:small;">{lang}</span></td>'
        f'<td bgcolor="{c.code_head}" align="right" style="padding:4px 10px;">'
        f'<a href="copy:{n}" style="color:{c.link}; text-decoration:none; font-size:small;">{label}</a>'
        f"</td></tr>"
        f'<tr><td colspan="2" bgcolor="{c.code_bg}" style="padding:8px 10px;">'
        f'<pre style="white-space:pre-wrap; margin:0; font-family:\'{c.mono_family}\'; color:{c.text};">'
        f"{body}</pre></td></tr></table>\n"
    )


@lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": False}, renderer_cls=_QtRenderer)
    md.enable(["table", "strikethrough"])
    return md


def style_sheet(c: Colors) -> str:
    """The document default style sheet matching :func:`render` output."""
    return (
        f"body {{ color:{c.text}; }}"
        "p { margin-top:0px; margin-bottom:8px; }"
        "h1 { font-size:x-large; margin-top:6px; margin-bottom:8px; }"
        "h2 { font-size:large; margin-top:6px; margin-bottom:6px; }"
        "h3, h4, h5, h6 { font-size:medium; margin-top:4px; margin-bottom:4px; }"
        "ul, ol { margin-top:0px; margin-bottom:8px; }"
        "li { margin-bottom:2px; }"
        f"a {{ color:{c.link}; text-decoration:none; }}"
        f"blockquote {{ color:{c.muted}; margin-left:12px; }}"
        f"th {{ background-color:{c.code_head}; }}"
    )


def render(text: str, colors: Colors | None = None, *, copied: int | None = None) -> Rendered:
    """Render a markdown message. ``copied`` marks that code block's link as ``Copied ✓``."""
    codes: list[str] = []
    return Rendered(html=render_fragment(text, colors or Colors(), codes, copied=copied), codes=codes)


def render_fragment(text: str, colors: Colors, codes: list[str], *, copied: int | None = None, last: bool = True,
                    highlight: bool = True) -> str:
    """The HTML of ``text``, one or more top-level blocks of a message. Its code blocks are appended to
    ``codes`` (their copy links count on from ``len(codes)``). ``last``: this fragment ends the message (its
    last paragraph gets no bottom gap). ``highlight=False`` leaves code unhighlighted (an open fence)."""
    tokens = markdown_parser().parse(text, {})
    return render_tokens(tokens, colors, codes, copied=copied, last=last, highlight=highlight)


def render_tokens(tokens: list, colors: Colors, codes: list[str], *, copied: int | None = None, last: bool = True,
                  highlight: bool = True) -> str:
    """:func:`render_fragment` of blocks already parsed (a slice of :func:`parse_growing`'s tokens)."""
    env = {"colors": colors, "codes": codes, "copied": copied, "highlight": highlight}
    md = markdown_parser()
    out = md.renderer.render(tokens, md.options, env).strip("\n")
    if last and out.endswith("</p>"):  # no gap under the last paragraph (the bubble has its own padding)
        i = out.rfind(_P_OPEN)
        if i >= 0:
            out = out[:i] + _P_LAST + out[i + len(_P_OPEN):]
    return out


def warm_up() -> None:
    """Import-time and first-render costs paid once, off the critical path (after the window shows)."""
    render("# x\n\n```python\nprint('x')\n```\n\n| a |\n|---|\n| b |")
