"""core/context.py: a short history that fits whole is chosen in one forward pass, with exactly the result of the
walk from the end (which stays the rule for long chats and for histories that do not fit)."""

from __future__ import annotations

import random

import pytest

from desktop_agent.core import context
from desktop_agent.core.context import choose
from desktop_agent.core.messages import Message, ToolCall


def random_history(rnd: random.Random) -> list[Message]:
    out: list[Message] = []
    for _ in range(rnd.randint(1, 14)):
        kind = rnd.random()
        if kind < 0.3:
            out.append(Message(role="user", content="question " * rnd.randint(0, 30)))
        elif kind < 0.45:
            out.append(Message(role="assistant", content=rnd.choice(["", "  ", "an answer " * rnd.randint(1, 20)]),
                               thinking=rnd.choice(["", "hmm"])))
        elif kind < 0.9:
            calls = [ToolCall(name=rnd.choice(["a", "b"]), arguments={"n": rnd.randint(0, 9)})
                     for _ in range(rnd.randint(1, 2))]
            out.append(Message(role="assistant", content=rnd.choice(["", "let me look"]), tool_calls=calls))
            for call in calls:
                if rnd.random() < 0.85:  # a result may be missing (a Stop while tools ran)
                    long = rnd.random() < 0.3
                    out.append(Message(role="tool", content="result " * (200 if long else 3), tool_call_id=call.id,
                                       tool_name=call.name, full_content="all of it" if long else None))
        else:
            out.append(Message(role="tool", content="an orphan result", tool_call_id="nobody", tool_name="a"))
    return out


def comparable(messages: list[Message]) -> list[dict]:
    return [m.model_dump(exclude={"created_at"}) for m in messages]


@pytest.mark.parametrize("seed", range(300))
def test_a_history_that_fits_whole_gets_what_the_walk_gives(seed, monkeypatch):
    rnd = random.Random(seed)
    history = random_history(rnd)
    budget = rnd.choice([None, 100_000, rnd.randint(20, 2_000)])
    max_history = rnd.choice([None, 0, rnd.randint(1, 30)])
    fixed = rnd.randint(0, 50)
    whole = choose(history, budget=budget, fixed_tokens=fixed, max_history=max_history)
    monkeypatch.setattr(context, "WHOLE_TRY", -1)  # the walk from the end only
    walked = choose(history, budget=budget, fixed_tokens=fixed, max_history=max_history)
    assert comparable(whole.messages) == comparable(walked.messages)
    assert (whole.tokens, whole.left_out, whole.trimmed, whole.fits, whole.summary) == (
        walked.tokens, walked.left_out, walked.trimmed, walked.fits, walked.summary)


def test_the_forward_pass_is_taken_for_a_tool_turn_and_not_for_a_history_that_does_not_fit():
    history = [Message(role="user", content="go")]
    for i in range(9):
        call = ToolCall(name="step", arguments={"n": i})
        history += [Message(role="assistant", tool_calls=[call]),
                    Message(role="tool", content=f"step {i} done", tool_call_id=call.id, tool_name="step")]
    assert context._whole(history, 7_000, 50, None) is not None
    assert context._whole(history, 60, 50, None) is None  # does not fit: the walk trims and leaves out
    summary = Message(role="system", kind="summary", content="earlier", covers=1)
    assert context._whole([summary, *history], 7_000, 50, None) is None  # a summary: the walk places it


@pytest.mark.parametrize("seed", range(300))
def test_a_history_grown_since_an_earlier_selection_gets_what_a_fresh_choice_gives(seed):
    """The next step of a tool turn extends the last step's selection: always with the result of choosing anew."""
    rnd = random.Random(seed)
    history = random_history(rnd) + random_history(rnd)
    budget = rnd.choice([None, 100_000, rnd.randint(20, 2_000)])
    max_history = rnd.choice([None, 0, rnd.randint(1, 30)])
    fixed = rnd.randint(0, 50)
    earlier = choose(history[:rnd.randint(0, len(history))], budget=budget, fixed_tokens=fixed,
                     max_history=max_history)
    extended = choose(history, budget=budget, fixed_tokens=fixed, max_history=max_history, after=earlier)
    fresh = choose(history, budget=budget, fixed_tokens=fixed, max_history=max_history)
    assert comparable(extended.messages) == comparable(fresh.messages)
    assert (extended.tokens, extended.left_out, extended.trimmed, extended.fits, extended.summary) == (
        fresh.tokens, fresh.left_out, fresh.trimmed, fresh.fits, fresh.summary)


def _tool_turn(steps: int) -> list[Message]:
    history = [Message(role="user", content="go")]
    for i in range(steps):
        call = ToolCall(name="step", arguments={"n": i})
        history += [Message(role="assistant", tool_calls=[call]),
                    Message(role="tool", content=f"step {i} done", tool_call_id=call.id, tool_name="step")]
    return history


def test_the_next_step_of_a_tool_turn_reads_only_the_messages_added_since(monkeypatch):
    history = _tool_turn(8)
    earlier = choose(history[:15], budget=7_000, fixed_tokens=50)
    read: list[Message] = []
    real = context.estimate_message
    monkeypatch.setattr(context, "estimate_message", lambda m: read.append(m) or real(m))
    extended = choose(history, budget=7_000, fixed_tokens=50, after=earlier)
    assert read == history[15:]
    assert extended.tokens == choose(history, budget=7_000, fixed_tokens=50).tokens


def test_an_earlier_selection_of_another_history_or_other_tools_is_not_reused(monkeypatch):
    history, other = _tool_turn(4), _tool_turn(4)
    earlier = choose(other[:5], budget=7_000, fixed_tokens=50)
    read: list[Message] = []
    real = context.estimate_message
    monkeypatch.setattr(context, "estimate_message", lambda m: read.append(m) or real(m))
    choose(history, budget=7_000, fixed_tokens=50, after=earlier)
    assert read == history  # not the same messages: read from the start
    read.clear()
    choose(history, budget=7_000, fixed_tokens=80, after=choose(history[:5], budget=7_000, fixed_tokens=50))
    assert len(read) == len(history) + 5  # (the earlier choice read 5) other tools: read again from the start
