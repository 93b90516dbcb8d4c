"""Split streamed assistant content into visible text and ``<think>`` reasoning (models that write their
thinking into the content).

Reasoning models put their thoughts in the content in three shapes:

- ``<think>…</think>answer`` — both tags (variant A), possibly split across stream chunks (D);
- ``…reasoning…</think>answer`` — only the closing tag: the chat template already opened the block
  in the prompt (variant B, ollama/ollama#12511). Everything before the lone ``</think>`` is reasoning;
- ``answer`` — no tags at all (E): shown unchanged, and no (empty) thinking block appears.

:class:`ThinkSplitter` is fed content pieces as they stream in and returns ``(kind, text)`` pieces:

- ``("text", s)``      — visible answer text, ready to show;
- ``("thinking", s)``  — reasoning, for the collapsible thinking area;
- ``("moved", s)``     — text that was already returned as ``"text"`` turned out to be reasoning
  (a lone ``</think>`` arrived after it). The consumer removes it from the answer and adds it to the
  reasoning. This only happens when the splitter was not holding text back (see below).

Streaming policy (latency vs. leaking):

- Normal case (``hold=False``): text is returned at once. Only the few characters that could be the
  start of a tag (``<``, ``</th`` …) at the very end of a piece wait for the next piece.
- A lone ``</think>`` can only be recognised after the reasoning before it has streamed. When a lone
  closing tag is plausible (:func:`looks_like_reasoning_model`, and the backend did not already
  deliver reasoning in a separate field) the caller passes ``hold=True``: text without an opening
  tag is held back until ``</think>`` arrives (→ it was reasoning), :meth:`ThinkSplitter.release` is
  called (reasoning arrives in a separate field, so content is the answer), or the stream ends
  (→ it was the answer, returned unchanged).
- A stray ``</think>`` in a non-held stream is still recognised (``"moved"``), so the saved answer
  never contains reasoning even for a model the hint did not know.

Only a ``<think>`` at the very start of the content (after whitespace) opens a block, and only the
first ``</think>`` closes one; a ``</think>`` is "lone" only when no ``<think>`` came before it. Tags
later in the answer are left as literal text (a model explaining the tags is not mangled). Whitespace around
the reasoning and right after ``</think>`` is dropped.
"""

from __future__ import annotations

import functools
import re

OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"

TEXT = "text"
THINKING = "thinking"
MOVED = "moved"

Piece = tuple[str, str]

# Model families known to emit their reasoning in the content (sometimes without the opening tag).
_REASONING_MODEL = re.compile(
    r"qwen3|qwq|deepseek-?r1|deepseek-reasoner|(^|[^a-z0-9])r1([^a-z0-9]|$)|reason|think|magistral"
    r"|cogito|exaone-deep|openthinker|marco-o1|glm-z1|glm-4\.[5-9]|gpt-oss|kimi-k2|minimax-m"
    r"|seed-oss|hunyuan-a|ernie-4\.5.*thinking|phi-?4-?(mini-)?reasoning|granite.*thinking",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=256)
def looks_like_reasoning_model(model: str | None) -> bool:
    """True when ``model`` (e.g. ``qwen3:8b``, ``deepseek-r1:7b``) belongs to a family that writes
    its reasoning into the content, so a lone ``</think>`` is plausible. (Asked at every model call: the
    answer is kept per name.)"""
    return bool(model) and bool(_REASONING_MODEL.search(model or ""))


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest proper prefix of ``tag`` that ``text`` ends with (0 if none)."""
    for k in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:k]):
            return k
    return 0


class ThinkSplitter:
    """Incremental ``<think>`` splitter for one assistant message (one model call).

    ``feed(piece)`` → list of ``(kind, text)``; ``flush()`` at the end of the stream returns what was
    held back. Joining all ``"text"`` pieces (minus ``"moved"`` ones) gives the visible answer;
    joining ``"moved"`` + ``"thinking"`` pieces gives the reasoning, without surrounding whitespace.
    """

    _START, _THINK, _AFTER, _HOLD, _TEXT = range(5)

    def __init__(self, hold: bool = False):
        self._hold = hold
        self._state = self._START
        self._buf = ""
        #: a think block was opened or closed, or reasoning came separately: no lone tag expected
        self._settled = False
        self._think_started = False  # inside a block: leading whitespace already skipped
        self._ws = ""  # trailing whitespace of the reasoning, held until more reasoning follows
        self._emitted_text: list[str] = []  # text returned so far (for a later "moved")
        #: True once a ``</think>`` without an opening tag was seen (variant B).
        self.lone_close_seen = False
        #: True once any reasoning was recognised in the content.
        self.saw_thinking = False

    # ---- public ---------------------------------------------------------------------------------

    @property
    def holding(self) -> bool:
        """True while untagged text is being held back (``hold=True`` and nothing decided yet)."""
        return self._state == self._HOLD

    def feed(self, text: str) -> list[Piece]:
        if not text:
            return []
        self._buf += text
        return self._drain(final=False)

    def release(self) -> list[Piece]:
        """Reasoning is arriving in a separate field: content is the answer. Stop holding back and
        stop looking for a lone closing tag."""
        self._hold = False
        self._settled = True
        if self._state == self._HOLD:
            self._state = self._TEXT
        return self._drain(final=False)

    def flush(self) -> list[Piece]:
        """End of stream: return everything still held back."""
        out = self._drain(final=True)
        if self._buf:
            if self._state in (self._THINK, self._HOLD):  # unclosed block: it was all reasoning
                self._thinking(self._buf, out)
            elif self._state == self._TEXT or self._state == self._START:
                self._text(self._buf, out)
            self._buf = ""
        return out

    # ---- internals ------------------------------------------------------------------------------

    def _text(self, s: str, out: list[Piece]) -> None:
        if s:
            self._emitted_text.append(s)
            out.append((TEXT, s))

    def _thinking(self, s: str, out: list[Piece]) -> None:
        if not self._think_started:
            s = s.lstrip()
            if not s:
                return
            self._think_started = True
        s = self._ws + s
        body = s.rstrip()
        self._ws = s[len(body) :]
        if body:
            self.saw_thinking = True
            out.append((THINKING, body))

    def _end_thinking(self) -> None:
        self._ws = ""
        self._think_started = True
        self._settled = True
        self._state = self._AFTER

    def _drain(self, final: bool) -> list[Piece]:
        out: list[Piece] = []
        while True:
            buf = self._buf
            if self._state == self._START:
                lead = buf.lstrip()
                if not lead:
                    if final:
                        self._state = self._TEXT  # whitespace only: flush returns it as text
                    break
                if lead.startswith(OPEN_TAG):
                    self._buf = lead[len(OPEN_TAG) :]
                    self._state = self._THINK
                    self._settled = True
                    continue
                if OPEN_TAG.startswith(lead) and not final:
                    break  # could still become "<think>"
                self._state = self._HOLD if (self._hold and not self._settled) else self._TEXT
                continue

            if self._state == self._THINK:
                i = buf.find(CLOSE_TAG)
                if i >= 0:
                    self._thinking(buf[:i], out)
                    self._buf = buf[i + len(CLOSE_TAG) :]
                    self._end_thinking()
                    continue
                keep = 0 if final else _partial_suffix(buf, CLOSE_TAG)
                self._thinking(buf[: len(buf) - keep], out)
                self._buf = buf[len(buf) - keep :]
                break

            if self._state == self._HOLD:
                i = buf.find(CLOSE_TAG)
                j = buf.find(OPEN_TAG)
                if j >= 0 and (i < 0 or j < i):  # prose mentioning the tags: not a lone closing tag
                    self._settled = True
                    self._state = self._TEXT
                    continue
                if i >= 0:  # lone closing tag: everything held was reasoning
                    self.lone_close_seen = True
                    self._thinking(buf[:i], out)
                    self._buf = buf[i + len(CLOSE_TAG) :]
                    self._end_thinking()
                    continue
                if final:
                    self._state = self._TEXT
                    continue
                break

            if self._state == self._AFTER:
                lead = buf.lstrip()
                self._buf = lead
                if not lead:
                    break
                self._state = self._TEXT
                continue

            # _TEXT
            if self._settled:
                self._text(buf, out)
                self._buf = ""
                break
            i = buf.find(CLOSE_TAG)
            j = buf.find(OPEN_TAG)
            if j >= 0 and (i < 0 or j < i):  # an opening tag inside the answer: tags are literal text
                self._settled = True
                continue
            if i >= 0:  # a stray closing tag after text already shown: that text was reasoning
                self.lone_close_seen = True
                shown = "".join(self._emitted_text).lstrip()
                self._emitted_text = []
                if shown.strip():
                    body = shown.rstrip()
                    out.append((MOVED, body))
                    self._ws = shown[len(body) :]
                    self._think_started = True
                    self.saw_thinking = True
                self._thinking(buf[:i], out)
                self._buf = buf[i + len(CLOSE_TAG) :]
                self._end_thinking()
                continue
            keep = 0 if final else max(_partial_suffix(buf, CLOSE_TAG), _partial_suffix(buf, OPEN_TAG))
            self._text(buf[: len(buf) - keep], out)
            self._buf = buf[len(buf) - keep :]
            break
        return out


def split_think_text(content: str) -> tuple[str, str]:
    """Split a complete content string into ``(answer, thinking)`` (no streaming; lone closing tag
    handled). Used for stored or non-streamed content."""
    sp = ThinkSplitter(hold=True)
    pieces = sp.feed(content) + sp.flush()
    text: list[str] = []
    thinking: list[str] = []
    for kind, s in pieces:
        if kind == TEXT:
            text.append(s)
        elif kind == MOVED:
            text.clear()
            thinking.append(s)
        else:
            thinking.append(s)
    return "".join(text), "".join(thinking)
