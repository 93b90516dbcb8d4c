"""A streamed answer is rendered block by block, and ends up the same as rendering it whole."""

from __future__ import annotations

import re

import pytest

from desktop_agent.core.events import AnswerFinished, TextDelta, ToolCallFinished, ToolCallStarted
from desktop_agent.core.messages import Message
from desktop_agent.ui import markdown, markdown_growth
from desktop_agent.ui.agent_runner import TurnEnded, TurnStarted
from desktop_agent.ui.chat.parts import TextPart
from desktop_agent.ui.chat.turn import AssistantTurn
from desktop_agent.ui.event_table import feed
from tests.helpers.gui import source_of

TRICKY = """# Plan

Some *intro* text with `inline code` and a [link](https://example.com).

- first item
- second item
  - nested one
  - nested two
    1. deep ordered
    2. deep again
- third item

```python
def f(x):
    return x * 2  # a comment
```

Text right after a closed fence.

| name | count | note |
|------|------:|------|
| a    | 1     | **bold** |
| b    | 22    | `code` |

> a quote
> on two lines

1. one
2. two

Setext heading
--------------

````
a fence with ``` inside
````

```js
const late = "a fence that opens mid-stream";
console.log(late);
```

Last words."""


def _chunks(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def _text_parts(turn) -> list[TextPart]:
    return [p for p in turn.parts if isinstance(p, TextPart)]


def _full(view, text: str) -> TextPart:
    """The same text rendered whole, as a saved message is."""
    turn = AssistantTurn.from_saved(view.ctx, [Message(role="assistant", content=text)])
    view._append(turn)
    return _text_parts(turn)[0]


def _stream(view, text: str, size: int, monkeypatch) -> tuple[TextPart, list[int]]:
    rendered: list[int] = []
    real = markdown.render_tokens

    def counting(tokens, *args, **kwargs):
        rendered.append(len(source_of(tokens)))
        return real(tokens, *args, **kwargs)

    monkeypatch.setattr(markdown, "render_tokens", counting)
    feed(view.routes(), TurnStarted(1, "c", "q"))
    live = view.live
    for chunk in _chunks(text, size):
        feed(view.routes(), TextDelta(chunk))
        live.flush(force=True)  # one frame per chunk
    feed(view.routes(), AnswerFinished(Message(role="assistant", content=text)))
    feed(view.routes(), TurnEnded(1, "finished"))
    monkeypatch.setattr(markdown, "render_tokens", real)
    (part,) = _text_parts(live)
    return part, rendered


@pytest.mark.parametrize("size", [1, 7, 40])
def test_streamed_answer_ends_as_the_full_render(view, monkeypatch, size):
    part, rendered = _stream(view, TRICKY, size, monkeypatch)
    full = _full(view, TRICKY)
    assert part.toHtml() == full.toHtml()  # the same document: blocks, formats, lists, tables, highlighting
    assert part.toPlainText() == full.toPlainText()
    assert part.codes == full.codes == ['def f(x):\n    return x * 2  # a comment', 'a fence with ``` inside',
                                        'const late = "a fence that opens mid-stream";\nconsole.log(late);']
    # each frame rendered only the open block, never the whole answer again
    assert max(rendered) < len(TRICKY) / 3


def _code_colours(part: TextPart) -> set[str]:
    """The text colours used from the code block's first line on."""
    code = part.toHtml().split("def")[1]
    return set(re.findall(r"(?<!background-)color:(#[0-9a-fA-F]{6})", code))


def test_an_open_fence_is_highlighted_when_it_closes(view):
    feed(view.routes(), TurnStarted(1, "c", "q"))
    live = view.live
    feed(view.routes(), TextDelta("Intro.\n\n```python\ndef f():\n    return 1\n"))
    live.flush(force=True)
    (part,) = _text_parts(live)
    assert part.codes == ["def f():\n    return 1"]
    assert len(_code_colours(part)) == 1  # still one plain colour
    feed(view.routes(), TextDelta("```\n\nAfter."))
    live.flush(force=True)
    assert part._frozen_len > len("Intro.\n\n")  # the closed fence is frozen with the intro
    assert len(_code_colours(part)) > 2  # Pygments' colours


def test_an_unclosed_fence_at_the_end_is_highlighted_like_the_full_render(view, monkeypatch):
    text = "Look:\n\n```python\nimport os\nprint(os.getcwd())"
    part, _ = _stream(view, text, 5, monkeypatch)
    assert part.toHtml() == _full(view, text).toHtml()


def test_text_before_a_tool_call_is_finished_when_the_tool_starts(view):
    feed(view.routes(), TurnStarted(1, "c", "q"))
    live = view.live
    feed(view.routes(), TextDelta("Checking:\n\n```python\nx = 1"))
    live.flush(force=True)
    feed(view.routes(), ToolCallStarted("c1", "today", {}))
    feed(view.routes(), ToolCallFinished("c1", "today", True, "Monday", None, 3.0))
    feed(view.routes(), TextDelta("It is Monday."))
    feed(view.routes(), AnswerFinished(Message(role="assistant", content="It is Monday.")))
    first, second = _text_parts(live)
    assert first.toHtml() == _full(view, "Checking:\n\n```python\nx = 1").toHtml()
    assert second.toPlainText() == "It is Monday."


def test_reference_links_fall_back_to_whole_renders(view, monkeypatch):
    text = "See [the docs][d].\n\nMore text.\n\n[d]: https://example.com/docs\n\nEnd."
    part, _ = _stream(view, text, 6, monkeypatch)
    assert part.toHtml() == _full(view, text).toHtml()
    assert 'href="https://example.com/docs"' in part.toHtml()


def test_finished_prefix_follows_the_block_map():
    assert markdown_growth.finished_prefix("para one\n\npara two")[:2] == (len("para one\n\n"), False)
    assert markdown_growth.finished_prefix("- a\n- b\n\n")[:2] == (0, False)  # a list may go on
    assert markdown_growth.finished_prefix("x\n\n```py\ncode\n")[:2] == (len("x\n\n"), True)
    assert markdown_growth.finished_prefix("```py\ncode\n```")[:2] == (0, True)  # the closing line is not ended yet
    assert markdown_growth.finished_prefix("```py\ncode\n```\n")[:2] == (len("```py\ncode\n```\n"), False)
    assert markdown_growth.finished_prefix("[a]: http://x\n\ntext") is None
    assert markdown_growth.finished_prefix("a\r\n\r\nb") is None


def test_a_long_answer_seals_finished_blocks_into_chunks_that_look_the_same(qtbot, view, monkeypatch):
    from desktop_agent.ui.chat import parts

    monkeypatch.setattr(parts, "SEAL_CHARS", 600)
    text = "\n\n".join(f"## Part {i}\n\n{TRICKY}" for i in range(6))
    part, rendered = _stream(view, text, 23, monkeypatch)
    full = _full(view, text)
    assert len(part.sealed) >= 3  # several chunks, each its own small document
    assert max(rendered) < len(text) / 6
    assert all(len(chunk.markdown_text) < len(text) / 3 for chunk in part.sealed)
    texts = [chunk.toPlainText() for chunk in part.sealed] + [part.toPlainText()]
    assert "\n".join(texts) == full.toPlainText()
    assert part.codes == full.codes
    view.content.layout().activate()  # the layouts settle
    qtbot.waitUntil(lambda: all(c.height() == c.sizeHint().height() for c in (part.column, full.column)), timeout=3000)
    assert part.column.height() == full.column.height() > 2000
    assert part.column.grab().toImage() == full.column.grab().toImage()  # pixel for pixel
    # a code block's copy link in a sealed chunk copies that block
    from PySide6.QtCore import QUrl
    from PySide6.QtWidgets import QApplication

    part.sealed[0].anchorClicked.emit(QUrl("copy:1"))
    assert QApplication.clipboard().text() == full.codes[1]
