"""What of a growing markdown message is finished, and what more text only lengthens (Qt-free).

- :func:`finished_prefix` / :func:`parse_growing`: how much of a streaming answer is made of finished top-level
  blocks (from markdown-it's block map, ``token.map``). Rendering the finished prefix and the open rest
  separately gives the same HTML as rendering the whole at once: top-level blocks do not depend on each other
  (reference definitions do: then there is no split), and a block stays open while the next line may still
  join it or take over its format.
- :func:`appends_as_text`, :func:`appends_to_fence`: whether more text only lengthens the open block's last
  line (or an open fence's code), so a view may insert it as text instead of rendering the block again.
"""

from __future__ import annotations

from typing import NamedTuple

from desktop_agent.ui.markdown import markdown_parser


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
    tokens = markdown_parser().parse(text, env)
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
