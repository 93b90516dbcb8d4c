"""Markdown → the HTML subset Qt's rich text engine draws, with Pygments-highlighted code blocks.

This module imports markdown-it-py and Pygments at import time: import it after the window shows
(``MainWindow._late_init`` warms it up). Qt-free, so it can be tested on its own.

- Parser: markdown-it-py, CommonMark plus tables and strikethrough; raw HTML in the model's answer is
  escaped (``html=False``), images become links (the window never fetches remote content).
- Code blocks become a two-row table: a header with the language and a ``Copy`` link whose href is
  ``copy:<n>`` (``n`` indexes :attr:`Rendered.codes`), and the code itself, highlighted by Pygments with
  inline styles (Qt has no external CSS), wrapped (``white-space: pre-wrap``) instead of scrolling.
- Unclosed fences while a message is still streaming render as code up to the end, as CommonMark says.
- Streaming: :func:`finished_prefix` tells how much of a growing answer is made of finished top-level blocks
  (from markdown-it's block map, ``token.map``); those are rendered once with :func:`render_fragment` and
  never again, only the open block after them is re-rendered (``ui/chat/parts.py``). Rendering the finished
  prefix and the open rest separately gives the same HTML as rendering the whole at once: top-level blocks
  do not depend on each other (reference definitions do: then :func:`finished_prefix` says so).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

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
    label = "Copied ✓" if copied else "Copy"
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
def _parser() -> MarkdownIt:
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
    return render_tokens(_parser().parse(text, {}), colors, codes, copied=copied, last=last, highlight=highlight)


def source_of(tokens: list) -> str:
    """The text of parsed blocks (their inline text and code), for what a render was given."""
    return "".join(t.content for t in tokens if t.content)


def render_tokens(tokens: list, colors: Colors, codes: list[str], *, copied: int | None = None, last: bool = True,
                  highlight: bool = True) -> str:
    """:func:`render_fragment` of blocks already parsed (a slice of :func:`parse_growing`'s tokens)."""
    env = {"colors": colors, "codes": codes, "copied": copied, "highlight": highlight}
    md = _parser()
    out = md.renderer.render(tokens, md.options, env).strip("\n")
    if last and out.endswith("</p>"):  # no gap under the last paragraph (the bubble has its own padding)
        i = out.rfind(_P_OPEN)
        if i >= 0:
            out = out[:i] + _P_LAST + out[i + len(_P_OPEN):]
    return out


def _is_closing_fence(line: str, markup: str) -> bool:
    stripped = line.strip()
    return len(line) - len(line.lstrip(" ")) < 4 and len(stripped) >= len(markup) and set(stripped) == {markup[0]}


class Split(NamedTuple):
    """Where a growing message's finished blocks end (:func:`finished_prefix`)."""

    #: ``text[:end]`` holds only finished top-level blocks
    end: int
    #: the open block after them is a code fence still open
    open_fence: bool
    #: the open block's kind, as markdown-it names its first token (``paragraph_open``, ``fence``, …; ""
    #: when there is none)
    open_kind: str = ""


def finished_prefix(text: str) -> Split | None:
    """How much of a growing message is finished: ``(n, open_fence, open_kind)``, where ``text[:n]`` holds
    only top-level blocks that more text cannot change (all but the last block, and the last one too when it
    is a closed code fence), ``open_fence`` says the last block is a code fence still open and ``open_kind``
    what the last block is. ``None`` when the text cannot be split (reference definitions link across blocks;
    ``\\r`` and NUL change line counts)."""
    parsed = parse_growing(text)
    return parsed[0] if parsed is not None else None


def parse_growing(text: str) -> tuple[Split, list, int] | None:
    """:func:`finished_prefix` with what it parsed: ``(split, tokens, cut)`` — ``tokens[:cut]`` are the
    finished blocks' tokens, ``tokens[cut:]`` the open block's (for :func:`render_tokens`: one parse a frame)."""
    if "\r" in text or "\0" in text:
        return None
    env: dict = {}
    tokens = _parser().parse(text, env)
    if env.get("references"):
        return None
    top = [i for i, t in enumerate(tokens) if t.level == 0 and t.nesting >= 0 and t.map is not None]
    if not top:
        return Split(0, False), tokens, len(tokens)
    starts = [0]  # offset of each line
    i = text.find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    last = tokens[top[-1]]
    assert last.map is not None
    begin, end = last.map
    before = tokens[top[-2]] if len(top) > 1 else None
    if before is not None and begin == len(starts) - 1 and _may_take_more(before, begin):
        # the last block starts on a line not ended yet: more of that line may make it part of the block
        # before ("- a\n---" is a list and a rule, "- a\n--- b" one list item; "1. a\n\n2" + ". b" one list),
        # so that one is open too
        first = top[_past_empty(tokens, top, len(top) - 2)]
        return Split(starts[_line(tokens[first])], last.type == "fence", last.type), tokens, first
    if last.type == "fence":
        closing = text[starts[end - 1]:starts[end] - 1] if end < len(starts) else None  # None: no line end yet
        if end - begin >= 2 and closing is not None and _is_closing_fence(closing, last.markup):
            return Split(starts[end], False), tokens, len(tokens)
    first = top[_past_empty(tokens, top, len(top) - 1)]
    return Split(starts[_line(tokens[first])], last.type == "fence", last.type), tokens, first


def _line(block) -> int:
    assert block.map is not None
    return int(block.map[0])


def _past_empty(tokens: list, top: list[int], k: int) -> int:
    """The first open top-level block (an index of ``top``, the top-level blocks' token indexes), given that
    block ``k`` is open: the blocks before it that end in a block with no text (a rule, a quote or list item
    holding nothing, a paragraph of spaces such as U+00A0) stay open too — that empty last block would take
    the format of the fragment rendered after it (a rule lost, margins changed)."""
    while k > 0 and (_ends_empty(tokens, top[k - 1], top[k])
                     or (tokens[top[k]].type == "hr" and _ends_in_table(tokens, top[k - 1], top[k]))):
        k -= 1  # (a rule after a table, a code block's too, would take the empty block Qt keeps after it)
    return k


def _ends_in_table(tokens: list, begin: int, end: int) -> bool:
    """The top-level block of ``tokens[begin:end]`` ends in a table or a code block (shown as a table)."""
    j = end - 1
    while j >= begin:
        if tokens[j].type in ("table_close", "fence", "code_block"):
            return True
        if tokens[j].nesting != -1:
            return False
        j -= 1
    return False


def _ends_empty(tokens: list, begin: int, end: int) -> bool:
    """The top-level block of ``tokens[begin:end]`` ends in a block with no text."""
    if tokens[begin].type == "hr":
        return True
    j = end - 1
    while j > begin and tokens[j].nesting == -1:
        j -= 1
    if j == end - 1:
        return False
    return tokens[j].nesting == 1 or (tokens[j].type == "inline" and not tokens[j].content.strip())


def _may_take_more(block, next_line: int) -> bool:
    """Whether a line starting at ``next_line`` may still become part of ``block`` (a closed fence takes
    nothing more; after a blank line only a list goes on)."""
    assert block.map is not None
    if block.type == "fence":
        return False
    return block.map[1] >= next_line or block.type in ("bullet_list_open", "ordered_list_open")


#: open blocks whose last line more plain text only lengthens (not a table: Qt's document ends after a table,
#: not in its last cell; not code)
_TEXT_BLOCKS = frozenset({"paragraph_open", "heading_open", "bullet_list_open", "ordered_list_open",
                          "blockquote_open"})
#: characters with no meaning to markdown inside a line (with html, linkify and typographer off): a run of them
#: appended to a line is shown as it is; ``)`` only where no link is open (see :func:`appends_as_text`)
_PLAIN = frozenset(" ,.;:?!'\"/%$@+=^{}()-—–…’‘“”·°")
#: what may end the text before them: then it ends in plain text, outside any emphasis, code span or link
_PLAIN_END = frozenset(",.;:?!'\"%’”…")


def _plain_char(ch: str) -> bool:
    return ch.isalnum() or ch in _PLAIN


def appends_to_fence(open_text: str, more: str) -> tuple[str, str, str] | None:
    """How an open fence (``open_text``: the fence from its opening line on) shown unhighlighted, as a render
    shows it, becomes ``open_text + more``: ``(shown, add, code)`` — the code lines shown now, what to add
    after them, and the block's new code (what Copy copies). None when a render is needed: ``more`` may close
    the fence (a backtick or tilde), the opening line is not ended (its language may change), or the fence is
    indented (its lines lose that indentation)."""
    if not open_text.startswith(("```", "~~~")) or "\n" not in open_text or not more:
        return None
    if "`" in more or "~" in more or "\r" in more or "\0" in more:
        return None
    code = open_text[open_text.index("\n") + 1:]
    before, after = _open_code(code), _open_code(code + more)
    # shown: Qt's <pre> drops its text's last line end too
    shown, now = before.removesuffix("\n"), after.removesuffix("\n")
    if not now.startswith(shown):
        return None
    return shown, now[len(shown):], after


def _open_code(code: str) -> str:
    """The code of a fence open at the end of the text, as a render takes it (``_code_table``): without its
    last line end, nor a last line of spaces not ended yet (markdown-it drops it)."""
    last = code[code.rfind("\n") + 1:]
    if last and not last.strip(" \t"):  # only spaces and tabs make a blank line (not e.g. U+00A0 or U+3000)
        code = code[:len(code) - len(last)]
    return code.removesuffix("\n")


def last_word(text: str) -> str:
    """The plain characters ``text`` ends in (letters, digits, closing punctuation), as a render shows them."""
    i = len(text)
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in _PLAIN_END):
        i -= 1
    return text[i:]


def appends_as_text(open_text: str, open_kind: str, more: str) -> bool:
    """Whether rendering ``open_text + more`` (``open_text``: the open last block of a growing message, of
    kind ``open_kind``) shows the same as rendering ``open_text`` and adding ``more``'s characters at its end,
    in the format the text ends in — so a streaming view may insert ``more`` as plain text instead of
    rendering the block again. True only when nothing in ``more`` can start, end or change markdown, and the
    block's last line is past anything that decides what kind of line it is."""
    if open_kind not in _TEXT_BLOCKS or not more or not open_text:
        return False
    line = open_text[open_text.rfind("\n") + 1:]
    last = open_text[-1]
    if not (last.isalnum() or last in _PLAIN_END) or "&" in line:  # "&amp" + ";" would become an entity
        return False
    if not any(ch.isalpha() for ch in line):  # "- 1" + ". x" is a new list; "--" + "-" a rule
        return False
    # spaces fold into one; ")" may close a link, whose "](" may be on an earlier line of the block
    # ("[a](\nb" + ")", a title over two lines)
    if "  " in more or (")" in more and "](" in open_text):
        return False
    return all(_plain_char(ch) for ch in more)


def warm_up() -> None:
    """Import-time and first-render costs paid once, off the critical path (after the window shows)."""
    render("# x\n\n```python\nprint('x')\n```\n\n| a |\n|---|\n| b |")
