"""The streaming ``<think>`` splitter (desktop_agent/core/thinktags.py) — shared case
05-ollama-think-tags-in-content.json, with chunk boundaries at every position."""

from __future__ import annotations

import itertools

import pytest

from desktop_agent.core.thinktags import (
    MOVED,
    TEXT,
    THINKING,
    ThinkSplitter,
    looks_like_reasoning_model,
    split_think_text,
)

ANSWER = "Hello! How can I help?"
THOUGHT = "User greets me."
VARIANT_A = "<think>\nUser greets me.\n</think>\n\nHello! How can I help?"
VARIANT_B = "User greets me.\n</think>\n\nHello! How can I help?"
VARIANT_D = ["<thi", "nk>User greets", " me.</th", "ink>\n\nHello! How can I help?", ""]
VARIANT_E = "Hello! How can I help?"


def run(pieces: list[str], hold: bool) -> tuple[str, str, list[tuple[str, str]]]:
    """Feed pieces; return (visible answer, reasoning, all output pieces) as a consumer builds them."""
    sp = ThinkSplitter(hold=hold)
    out: list[tuple[str, str]] = []
    for p in pieces:
        out += sp.feed(p)
    out += sp.flush()
    text: list[str] = []
    thinking: list[str] = []
    for kind, s in out:
        assert s, "no empty pieces"
        if kind == TEXT:
            text.append(s)
        elif kind == MOVED:
            text.clear()
            thinking.append(s)
        else:
            assert kind == THINKING
            thinking.append(s)
    return "".join(text), "".join(thinking), out


def splits(s: str):
    """Every way to cut ``s`` into two pieces, and into three pieces."""
    for i in range(len(s) + 1):
        yield [s[:i], s[i:]]
    for i, j in itertools.combinations(range(1, len(s)), 2):
        yield [s[:i], s[i:j], s[j:]]


@pytest.mark.parametrize("hold", [True, False])
@pytest.mark.parametrize("content", [VARIANT_A, VARIANT_E], ids=["A_both_tags", "E_no_thinking"])
def test_case05_every_split_point(content, hold):
    """Case 05 variants A and E: the same result whatever the chunk boundaries."""
    want_thinking = THOUGHT if content == VARIANT_A else ""
    for pieces in splits(content):
        text, thinking, out = run(pieces, hold)
        assert text == ANSWER, pieces
        assert thinking == want_thinking, pieces
        if content == VARIANT_E:
            assert all(kind == TEXT for kind, _ in out), "no (empty) thinking block for variant E"
        # no tag, and no reasoning, is ever shown as text
        assert all("think>" not in s and "greets" not in s for kind, s in out if kind == TEXT), pieces


def test_case05_lone_close_tag_held_back_every_split_point():
    """Case 05 variant B (lone </think>): with hold=True the reasoning is never shown as text, for any
    chunk boundary; it goes to the reasoning."""
    for pieces in splits(VARIANT_B):
        text, thinking, out = run(pieces, hold=True)
        assert (text, thinking) == (ANSWER, THOUGHT), pieces
        assert [k for k, _ in out if k != THINKING] == [TEXT] * len([k for k, _ in out if k == TEXT])
        assert all("greets" not in s and "think>" not in s for k, s in out if k == TEXT), pieces


def test_case05_lone_close_tag_without_hold_is_moved_every_split_point():
    """Case 05 variant B for a model the hint does not know (hold=False): text already shown is
    reported as "moved" to the reasoning, so the final answer and reasoning are still exact."""
    for pieces in splits(VARIANT_B):
        text, thinking, out = run(pieces, hold=False)
        assert (text, thinking) == (ANSWER, THOUGHT), pieces
        assert all("think>" not in s for k, s in out), pieces


@pytest.mark.parametrize("hold", [True, False])
def test_case05_stream_tags_split_variant_d(hold):
    """Case 05 variant D, the exact stream chunks of the case file."""
    text, thinking, out = run(VARIANT_D, hold)
    assert text == ANSWER
    assert thinking == THOUGHT
    assert [k for k, _ in out] == [THINKING, THINKING, TEXT]


def test_character_by_character():
    for content, want in [(VARIANT_A, (ANSWER, THOUGHT)), (VARIANT_B, (ANSWER, THOUGHT)), (VARIANT_E, (ANSWER, ""))]:
        for hold in (True, False):
            text, thinking, _ = run(list(content), hold)
            assert (text, thinking) == want, (content, hold)


def test_normal_text_streams_without_delay():
    """hold=False: plain text comes out piece by piece (only a possible tag start waits)."""
    sp = ThinkSplitter(hold=False)
    assert sp.feed("Hello") == [(TEXT, "Hello")]
    assert sp.feed(" world ") == [(TEXT, " world ")]
    assert sp.feed("a <") == [(TEXT, "a ")]  # "<" may start a tag
    assert sp.feed("b") == [(TEXT, "<b")]
    assert sp.flush() == []


def test_hold_keeps_text_until_end_of_stream_then_shows_it_unchanged():
    sp = ThinkSplitter(hold=True)
    assert sp.feed("Hello! ") == []
    assert sp.holding
    assert sp.feed("How can I help?") == []
    assert sp.flush() == [(TEXT, "Hello! How can I help?")]
    assert not sp.lone_close_seen


def test_release_stops_holding_when_reasoning_comes_in_a_separate_field():
    """Case 05 variant C: reasoning arrives in its own field, so held content is the answer."""
    sp = ThinkSplitter(hold=True)
    assert sp.feed("Hello! ") == []
    assert sp.release() == [(TEXT, "Hello! ")]
    assert sp.feed("How can I help?") == [(TEXT, "How can I help?")]
    # after release a stray closing tag is literal text
    assert sp.feed(" </think>") == [(TEXT, " </think>")]


def test_empty_think_block_gives_no_thinking():
    text, thinking, out = run(["<think>\n\n</think>\n\n", "Hi"], hold=True)
    assert (text, thinking) == ("Hi", "")
    assert out == [(TEXT, "Hi")]


def test_unclosed_think_block_is_all_reasoning():
    text, thinking, _ = run(["<think>still thinking about", " it"], hold=False)
    assert (text, thinking) == ("", "still thinking about it")


def test_tags_later_in_the_answer_are_literal():
    """A model explaining the tags: an opening tag before the closing one means nothing is hidden."""
    content = "Wrap reasoning in <think>like this</think> tags."
    for hold in (True, False):
        for pieces in splits(content):
            text, thinking, _ = run(pieces, hold)
            assert (text, thinking) == (content, ""), pieces
    # after a real think block, a second pair is literal too
    text, thinking, _ = run(["<think>a</think>b <think>c</think>"], hold=False)
    assert (text, thinking) == ("b <think>c</think>", "a")


def test_whitespace_only_and_empty():
    assert run([""], hold=False)[:2] == ("", "")
    assert run(["  \n"], hold=True)[:2] == ("  \n", "")


def test_reasoning_keeps_inner_whitespace():
    text, thinking, _ = run(["<think> line one\n\n", "line two \n", "</think>answer"], hold=False)
    assert thinking == "line one\n\nline two"
    assert text == "answer"


def test_split_think_text_and_model_hint():
    assert split_think_text(VARIANT_B) == (ANSWER, THOUGHT)
    assert split_think_text(VARIANT_A) == (ANSWER, THOUGHT)
    assert split_think_text(VARIANT_E) == (ANSWER, "")
    for name in ("qwen3:8b", "deepseek-r1:7b", "qwq", "magistral:24b", "gpt-oss:20b", "phi4-reasoning"):
        assert looks_like_reasoning_model(name), name
    for name in ("llama3.2", "llama3.2:3b", "gpt-4o-mini", "mistral", "qwen2.5:7b", "", None):
        assert not looks_like_reasoning_model(name), name


def test_unicode_reasoning_and_answer():
    content = "用户在打招呼。\n</think>\n\n你好！有什么可以帮你？"
    for pieces in splits(content):
        text, thinking, _ = run(pieces, hold=True)
        assert (text, thinking) == ("你好！有什么可以帮你？", "用户在打招呼。")
