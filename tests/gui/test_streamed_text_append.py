"""Plain text streamed onto the open block's last line is inserted as text (no render of the block), and the
document is exactly what rendering the block gives — frame after frame, for any text (random streams over the
characters that matter to markdown)."""

from __future__ import annotations

import random

import pytest
import shiboken6

from desktop_agent.core.events import AnswerFinished, TextDelta
from desktop_agent.core.messages import Message
from desktop_agent.ui import markdown, markdown_growth
from desktop_agent.ui.agent_runner import TurnStarted
from desktop_agent.ui.chat.parts import TextPart
from desktop_agent.ui.chat.view import ChatView
from desktop_agent.ui.event_table import feed
from tests.helpers.gui import source_of

#: pieces a random answer is made of: words, and everything that starts, ends or changes markdown
PIECES = [
    " word", " more", "text", " 12", "1", "2.", ".", ",", ";", ":", "?", "!", "'", '"', "(", ")", "[", "]",
    "](", "[a](b)", " [link](https://x.org)", "*", "**", "_", "__", "`", "``", "~~", "\\", "&", "&amp", "&copy",
    "#", "# ", "## ", "- ", "+ ", "* ", "1. ", "2) ", "> ", "|", " | ", "|---|", "---", "===", "```", "~~~",
    "\n", "\n", "\n\n", "  ", "   ", "\t", "<", ">", "<b>", "—", "…", "é", "日本", " 3:", "% ", "=", "+", "^",
]


def _random_text(rnd: random.Random) -> str:
    return "".join(rnd.choice(PIECES) if rnd.random() < 0.45 else rnd.choice([" a", " bb", " ccc", " word"])
                   for _ in range(rnd.randint(10, 60)))


CODE = ["x = 1", "    if a > b:", "\treturn", "", "  # note *not* _emphasis_", "s = '<b>&amp;'", "y = [1, 2]",
        "`", "``", "```", "~~~", " ```", "print(x)  ", "\\", "]("]


def _random_code(rnd: random.Random) -> str:
    fence = rnd.choice(["```", "~~~", "````", "  ```"])
    lines = [rnd.choice(CODE) for _ in range(rnd.randint(2, 12))]
    end = rnd.choice(["", "\n" + fence.strip(), "\n" + fence.strip() + "\n\nAfter it."])
    return f"Intro *text*.\n\n{fence}{rnd.choice(['', 'python', 'js'])}\n" + "\n".join(lines) + end


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    """The text of each markdown render from now on."""
    seen: list[str] = []
    real = markdown.render_tokens
    monkeypatch.setattr(markdown, "render_tokens",
                        lambda tokens, *a, **k: seen.append(source_of(tokens)) or real(tokens, *a, **k))
    return seen


def _fresh(view: ChatView, text: str) -> tuple[str, list[str]]:
    """The document and code blocks of ``text`` rendered by a part that never saw it grow (every block
    rendered)."""
    fresh = TextPart(view.ctx)
    fresh.resize(850, 100)
    fresh.buffer = text
    fresh.render_live()
    html, codes = fresh.toHtml(), fresh.codes
    # deleted now, in this thread: its column and it refer to each other, and a garbage collection in another
    # thread (a turn's worker) must not be the one to destroy widgets
    shiboken6.delete(fresh.column)
    return html, codes


def test_plain_words_are_appended_without_rendering(view, renders):
    feed(view.routes(), TurnStarted(1, "c", "q"))
    live = view.live
    feed(view.routes(), TextDelta("## Step one\n\nThe app reads a **file** today"))
    live.flush(force=True)
    renders.clear()
    for word in [" and", " says,", " in", " a", " line:", " what", " it", " did (and", " why)."]:
        feed(view.routes(), TextDelta(word))
        live.flush(force=True)
    assert renders == []  # nine frames, no render: the words were inserted as text
    (part,) = [p for p in live.parts if isinstance(p, TextPart)]
    assert part.toHtml() == _fresh(view, part.buffer)[0]
    feed(view.routes(), TextDelta(" `code`"))  # a code span: the open block is rendered again
    live.flush(force=True)
    assert renders and renders[-1].endswith("`code`")


@pytest.mark.parametrize("seed", range(60))
def test_every_frame_shows_what_a_render_shows(view, seed):
    rnd = random.Random(seed)
    text = _random_text(rnd) if seed % 3 else _random_code(rnd)
    feed(view.routes(), TurnStarted(1, "c", "q"))
    live = view.live
    i = 0
    while i < len(text):
        n = rnd.choice([1, 2, 3, 5, 8, 13])
        feed(view.routes(), TextDelta(text[i:i + n]))
        i += n
        live.flush(force=True)
        part = next(p for p in live.parts if isinstance(p, TextPart))
        if part.sealed or part.plain:
            continue
        html, codes = _fresh(view, part.buffer)
        assert part.toHtml() == html, repr(part.buffer)
        assert part.codes == codes  # what a code block's Copy copies


def test_code_streamed_into_an_open_fence_is_inserted_without_rendering(view, renders):
    feed(view.routes(), TurnStarted(1, "c", "q"))
    live = view.live
    feed(view.routes(), TextDelta("Here:\n\n```python\ndef f(x):\n"))
    live.flush(force=True)
    renders.clear()
    for piece in ["    if x", " > 3:\n", "        return [x]", "\n\n    return", " x * 2\n"]:
        feed(view.routes(), TextDelta(piece))
        live.flush(force=True)
    assert renders == []
    (part,) = [p for p in live.parts if isinstance(p, TextPart)]
    assert part.codes[-1] == "def f(x):\n    if x > 3:\n        return [x]\n\n    return x * 2"
    assert (part.toHtml(), part.codes) == _fresh(view, part.buffer)
    feed(view.routes(), TextDelta("```"))  # may close it: rendered
    live.flush(force=True)
    assert renders


def test_code_that_comes_with_the_end_of_the_answer_is_highlighted(view):
    """The quick insert leaves an open fence plain; the answer's end renders it highlighted, as a full
    render does — also when the last code came after the last frame."""
    feed(view.routes(), TurnStarted(1, "c", "q"))
    live = view.live
    feed(view.routes(), TextDelta("Code:\n\n```python\nimport os\n"))
    live.flush(force=True)
    feed(view.routes(), TextDelta("print(os.getcwd())"))  # no frame before the end
    text = "Code:\n\n```python\nimport os\nprint(os.getcwd())"
    feed(view.routes(), AnswerFinished(Message(role="assistant", content=text)))
    (part,) = [p for p in live.parts if isinstance(p, TextPart)]
    full = TextPart(view.ctx, text)
    assert part.toHtml() == full.toHtml()
    shiboken6.delete(full.column)


def test_appends_as_text_refuses_what_would_change_the_render():
    ok = markdown_growth.appends_as_text
    assert ok("The app reads", "paragraph_open", " a file, and says so.")
    assert not ok("The app reads", "paragraph_open", " a *file")  # emphasis
    assert not ok("The app reads", "fence", " more")  # code is not a line of text
    assert not ok("The app reads", "table_open", " more")  # Qt's document ends after a table
    assert not ok("- 1", "bullet_list_open", ". item")  # a list item that becomes an ordered list
    assert not ok("Fish &amp", "paragraph_open", ";")  # an entity
    assert not ok("A [link](http://x", "paragraph_open", ")")  # closes a link
    assert not ok("A **b**", "paragraph_open", " c")  # ends in a delimiter: flanking may change
    assert not ok("ends in a space ", "paragraph_open", "x")  # a render drops it
    assert not ok("a", "paragraph_open", " two  spaces")  # folded into one by a render
    assert ok("A [link](http://x) and", "paragraph_open", " more")
    code = markdown_growth.appends_to_fence
    assert code("```py\na = 1\n", "b = 2") == ("a = 1", "\nb = 2", "a = 1\nb = 2")
    assert code("```py\na = 1", "\n") == ("a = 1", "", "a = 1")  # a <pre> shows no last line end
    assert code("```py\na\n", "\n") == ("a", "", "a\n")  # the empty line shows once more follows
    assert code("```py", "thon\n") is None  # the language is not known yet
    assert code("```py\na", "\n``") is None  # may close the fence
    assert code("  ```\n  a", "b") is None  # an indented fence's lines lose that indentation


@pytest.mark.parametrize("chunks", [
    ["See [a](\nhttps://x.org", ")", " after"],  # a link's destination on the line after its "]("
    ['[a](https://x.org "a title\nover two lines', '")'],  # a title over two lines
    ["![img](\nb", ")"],
    ["```\na\n", "\xa0"],  # a last code line of U+00A0: not a blank line to markdown-it
    ["```\na\n", "\u3000", "x"],
    ["```\na\n", "\x0c"],
    # finished blocks that hold no text (an empty quote, an empty list item) before the open ones
    [">\nd\n1. d ", "c"],
    ["*\n1. a\n", "b"],
    [">\n!\n>$", " "],
    ["\u2028\n1. c\n", "o"],
    ["c\n>\nd\n1. d ", "c"],  # (after a paragraph)
    ["d\n>\n!\n>$", " "],
    ["~\n>\nd\n1. c", "\u0301"],
    ["x\n\n- a\n-\n\ny\n1. b", "c"],  # a list whose last item is empty
    ["(\n\n---\n\n>", " "],  # a rule before an empty quote: the rule stays on screen
    ["1. x\n---\n\nj", "\n"],
    ["# _\n\xa0\n```\n", "```\n"],  # a paragraph of U+00A0 only
    ["~~~\n~~~\n---", "\na\n```\n"],  # a rule after a code block
    [">```\n---\n", "1\n\nb"],
])
def test_frames_at_tricky_boundaries_show_what_a_render_shows(view, chunks):
    feed(view.routes(), TurnStarted(1, "c", "q"))
    live = view.live
    for chunk in chunks:
        feed(view.routes(), TextDelta(chunk))
        live.flush(force=True)
        part = next(p for p in live.parts if isinstance(p, TextPart))
        assert (part.toHtml(), part.codes) == _fresh(view, part.buffer), repr(part.buffer)


@pytest.mark.parametrize("chunks", [["Intro\n\n```python\nx = 1\n", "y = 2"], ["Words in a", " line"]])
def test_text_arriving_with_the_turns_end_is_rendered_as_complete(view, chunks):
    """The last batch and the turn's end in one go: the open fence gets its highlighting, as a render of the
    whole answer gives (the quick insert would leave it plain)."""
    feed(view.routes(), TurnStarted(1, "c", "q"))
    live = view.live
    feed(view.routes(), TextDelta(chunks[0]))
    live.flush(force=True)
    feed(view.routes(), TextDelta(chunks[1]))
    live.finish()
    part = next(p for p in live.parts if isinstance(p, TextPart))
    whole = TextPart(view.ctx)
    whole.resize(850, 100)
    whole.buffer = part.buffer
    whole.render_text()
    expected = whole.toHtml(), whole.codes
    shiboken6.delete(whole.column)
    assert (part.toHtml(), part.codes) == expected
    assert not part.unfinished


@pytest.mark.parametrize("size", [4, 9, 31])
def test_an_open_paragraph_that_only_grows_gets_the_new_text_inserted_in_its_formats(view, monkeypatch, size):
    """Text with markup (code spans, emphasis, links) that only lengthens the open paragraph or heading: the
    frame inserts the render's new text after what is shown, not the whole block again — and the document is
    still exactly what a render of everything gives, frame after frame."""
    outcomes: list[bool] = []
    real = TextPart._extend_open

    def extend(self, shown_html, html):
        outcomes.append(real(self, shown_html, html))
        return outcomes[-1]

    monkeypatch.setattr(TextPart, "_extend_open", extend)
    text = ("## Step *one*: the `plan`\n\nThe app reads a **file** and `runs()` it, then *says* what "
            "[it did](https://example.org) and why; 3 < 4 & `x[1]` **is** fine_ok *a* b*c* — done.\n\n"
            "# A heading with `code` and **bold** that grows word by word\n\nLast *words*, `end()`.")
    feed(view.routes(), TurnStarted(1, "c", "q"))
    live = view.live
    for i in range(0, len(text), size):
        feed(view.routes(), TextDelta(text[i:i + size]))
        live.flush(force=True)
        part = next(p for p in live.parts if isinstance(p, TextPart))
        assert (part.toHtml(), part.codes) == _fresh(view, part.buffer), repr(part.buffer)
    assert outcomes.count(True) >= 3  # the quick insert was used
