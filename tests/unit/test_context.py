"""Which history is sent to the model (desktop_agent/core/context.py): bounded window, tool groups
never split (shared case 23), no orphan tool results, system prompt always first, no thinking
replayed (shared case 05), only capped tool output sent (shared case 25)."""

from __future__ import annotations

from desktop_agent.core.context import NOT_RUN_TEXT, build_request, select_history
from desktop_agent.core.messages import Message, ToolCall


def user(text: str) -> Message:
    return Message(role="user", content=text)


def answer(text: str, thinking: str = "") -> Message:
    return Message(role="assistant", content=text, thinking=thinking)


def step(*ids: str) -> list[Message]:
    """An assistant tool-call message and one result per call."""
    msgs = [Message(role="assistant", tool_calls=[ToolCall(id=i, name="t") for i in ids])]
    msgs += [Message(role="tool", content=f"r-{i}", tool_call_id=i, tool_name="t") for i in ids]
    return msgs


def contents(msgs: list[Message]) -> list[str]:
    return [m.content or f"<{m.role}:{','.join(c.id for c in m.tool_calls)}>" for m in msgs]


def assert_valid(msgs: list[Message]) -> None:
    """Every assistant tool call is answered right after it; no tool message without its call."""
    i = 0
    while i < len(msgs):
        m = msgs[i]
        assert m.role != "tool", f"orphan tool result at {i}: {m}"
        if m.role == "assistant" and m.tool_calls:
            ids = [c.id for c in m.tool_calls]
            got = [r.tool_call_id for r in msgs[i + 1 : i + 1 + len(ids)]]
            assert got == ids, (ids, got)
            i += 1 + len(ids)
        else:
            i += 1


def test_window_is_bounded_and_system_prompt_first():
    history = []
    for n in range(100):
        history += [user(f"q{n}"), answer(f"a{n}")]
    req = build_request(history, "SYS", max_history=50)
    assert req[0].role == "system" and req[0].content == "SYS"
    assert len(req) == 51
    assert contents(req[1:3]) == ["q75", "a75"]
    assert contents(req[-1:]) == ["a99"]
    assert len(history) == 200  # the conversation itself is untouched


def test_default_bound_is_50_and_short_history_is_sent_whole():
    history = [user(f"q{n}") for n in range(60)]
    assert len(select_history(history)) == 50
    assert contents(select_history(history[:3])) == ["q0", "q1", "q2"]


def test_no_system_prompt_when_empty():
    assert [m.role for m in build_request([user("hi")], "")] == ["user"]
    assert [m.role for m in build_request([user("hi")], None)] == ["user"]


def test_tool_group_is_never_split_and_window_never_starts_with_tool_results():
    """Shared case 23: the window start would fall inside a tool group → the whole group is left out
    (no orphan results first); the bound holds."""
    history = [user("q0"), answer("a0"), user("q1"), *step("c1", "c2", "c3"), answer("a1")]
    for limit in range(1, len(history) + 1):
        window = select_history(history, limit)
        assert_valid(window)
        assert window[0].role != "tool"
        assert window[-1].content == "a1"


def test_newest_tool_group_and_question_kept_even_when_larger_than_the_bound():
    """A long turn: the latest question and the newest tool group are always sent (the model must
    see the question and the results it asked for)."""
    history = [user("old"), answer("old answer"), user("question"), *step("a1"), *step("b1", "b2", "b3")]
    window = select_history(history, 2)
    assert_valid(window)
    assert contents(window) == ["question", "<assistant:b1,b2,b3>", "r-b1", "r-b2", "r-b3"]
    window = select_history(history, 6)
    assert contents(window) == ["question", "<assistant:a1>", "r-a1", "<assistant:b1,b2,b3>", "r-b1", "r-b2", "r-b3"]


def test_orphan_tool_results_dropped_and_missing_results_filled():
    """Broken history (a crash between a tool call and its result, or a stray result) still gives
    a request the server accepts; the conversation is not modified."""
    history = [
        Message(role="tool", content="stray", tool_call_id="zzz"),
        user("q"),
        Message(role="assistant", tool_calls=[ToolCall(id="k1", name="t"), ToolCall(id="k2", name="u")]),
        Message(role="tool", content="r-k2", tool_call_id="k2", tool_name="u"),
        Message(role="tool", content="wrong id", tool_call_id="nope"),
        user("again"),
    ]
    window = select_history(history, 50)
    assert_valid(window)
    assert contents(window) == ["q", "<assistant:k1,k2>", NOT_RUN_TEXT, "r-k2", "again"]
    assert window[2].tool_call_id == "k1" and window[2].tool_name == "t"
    assert len(history) == 6


def test_thinking_and_full_tool_output_are_never_sent():
    """Case 05: thinking is not replayed; case 25: only the capped tool result goes to the model."""
    call = Message(role="assistant", content="", thinking="plan", tool_calls=[ToolCall(id="c", name="t")])
    result = Message(role="tool", content="short…", full_content="x" * 1000, tool_call_id="c", tool_name="t")
    history = [user("q"), call, result, answer("Hello!", thinking="User greets me.")]
    window = select_history(history)
    assert [m.thinking for m in window] == ["", "", "", ""]
    assert window[2].full_content is None and window[2].content == "short…"
    assert window[3].content == "Hello!"
    # originals keep their fields
    assert history[3].thinking == "User greets me." and result.full_content == "x" * 1000


def test_empty_assistant_messages_and_system_messages_skipped():
    history = [
        Message(role="system", content="stored system"),
        user("q"),
        Message(role="assistant", content="", status="stopped"),
        user("q2"),
    ]
    req = build_request(history, "SYS")
    assert contents(req) == ["SYS", "q", "q2"]


def test_unbounded():
    history = [user(str(n)) for n in range(120)]
    assert len(select_history(history, None)) == 120
    assert len(select_history(history, 0)) == 120


def test_unicode_content_kept():
    """Case 26: content goes through unchanged."""
    history = [user("北京天气怎么样？"), answer("北京今天晴，气温 21°C。")]
    assert contents(select_history(history)) == ["北京天气怎么样？", "北京今天晴，气温 21°C。"]
