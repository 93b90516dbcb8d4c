"""Issue 13, "Context windows, by tokens": the history is chosen by a token budget; token counts are estimated
offline and calibrated by what servers report; 'too long' is asked again once with less."""

from __future__ import annotations

from desktop_agent.core import state
from desktop_agent.core.agent import PROMPT_CUT, SHORTER, Agent
from desktop_agent.core.context import (
    NOT_RUN_TEXT,
    SUMMARY_HEADING,
    budget_for,
    plan_request,
    request_for,
)
from desktop_agent.core.errors import ContextTooLong
from desktop_agent.core.events import AnswerFinished, ContextUsage, Notice
from desktop_agent.core.messages import Conversation, Message, ToolCall
from desktop_agent.core.tokens import Calibration, estimate_message, estimate_text
from tests.helpers.chats import long_chat

from .scripted import ScriptedBackend, text

TOOLS = [{"type": "function", "function": {"name": "lookup", "description": "Looks things up. " * 20,
                                           "parameters": {"type": "object", "properties": {}}}}]


def test_estimates_are_offline_rules_of_thumb():
    assert estimate_text("") == 0
    assert estimate_text("a" * 400) == 100  # ~4 characters a token
    assert estimate_text("天气" * 50) == 100  # ~1 token a Chinese character
    m = Message(role="assistant", tool_calls=[ToolCall(name="lookup", arguments={"q": "x" * 40})])
    assert estimate_message(m) > estimate_text("x" * 40)


def test_a_long_chat_keeps_system_prompt_tools_and_new_turn_within_the_budget():
    history = [*long_chat(300), Message(role="user", content="the new question")]
    budget = budget_for(2048)
    sel = plan_request(history, "SYSTEM PROMPT", budget=budget, tools=TOOLS)
    request = request_for(sel, "SYSTEM PROMPT")
    assert request[0].role == "system" and request[0].content == "SYSTEM PROMPT"
    assert request[-1].content == "the new question"
    assert sel.fits and sel.tokens <= budget
    assert 0 < len(sel.messages) < len(history) and sel.left_out > 0
    # the newest earlier messages are the ones kept, in order
    assert request[-2].content.startswith("answer 299")


def test_a_tool_call_is_never_sent_without_its_results():
    history = [*long_chat(120, tool_every=1, result_chars=300), Message(role="user", content="next")]
    for budget in (300, 700, 1500, 4000):
        msgs = plan_request(history, "S", budget=budget).messages
        assert msgs[0].role != "tool"
        for i, m in enumerate(msgs):
            if m.role == "assistant" and m.tool_calls:
                ids = [r.tool_call_id for r in msgs[i + 1:i + 1 + len(m.tool_calls)]]
                assert ids == [c.id for c in m.tool_calls]
            if m.role == "tool":
                assert msgs[i - 1].role in ("assistant", "tool")


def test_old_tool_results_are_trimmed_before_any_message_is_left_out():
    history = [*long_chat(6, tool_every=2, result_chars=4000), Message(role="user", content="now")]
    full = plan_request(history, "S", budget=None)
    assert full.trimmed == 0
    budget = full.tokens - 1500  # everything fits only with some results trimmed
    sel = plan_request(history, "S", budget=budget)
    assert sel.left_out == 0 and sel.trimmed >= 1 and sel.tokens <= budget
    trimmed = [m for m in sel.messages if m.role == "tool" and "trimmed to fit" in m.content]
    assert trimmed and all(len(m.content) < 500 for m in trimmed)
    # the newest results keep their full text when they fit: the oldest are the trimmed ones
    results = [m for m in sel.messages if m.role == "tool"]
    assert "trimmed to fit" in results[0].content and "trimmed to fit" not in results[-1].content
    assert history[2].content.endswith("r" * 100), "the chat itself is never changed"


def test_the_results_of_the_current_turn_are_not_trimmed():
    c = ToolCall(name="lookup", arguments={})
    history = [*long_chat(3, tool_every=0), Message(role="user", content="look it up"),
               Message(role="assistant", tool_calls=[c]),
               Message(role="tool", content="R" * 3000, tool_call_id=c.id, tool_name="lookup")]
    sel = plan_request(history, "S", budget=900)
    assert sel.messages[-1].content == "R" * 3000


def test_a_summary_is_sent_with_the_system_prompt_instead_of_the_messages_it_covers():
    history = long_chat(40, tool_every=0)
    summary = Message(role="system", kind="summary", covers=70, content="They discussed forty questions.")
    history += [summary, Message(role="user", content="and now?")]
    sel = plan_request(history, "SYS", budget=None)
    request = request_for(sel, "SYS")
    assert request[0].content == f"SYS\n\n{SUMMARY_HEADING}\nThey discussed forty questions."
    assert [m.content[:11] for m in request[1:4]] == ["question 35", "answer 35 y", "question 36"]
    assert all(m.kind == "message" for m in request[1:])
    assert request_for(sel, "")[0].content.startswith(SUMMARY_HEADING)


def test_interrupted_tool_calls_still_get_a_result():
    c = ToolCall(name="lookup", arguments={})
    history = [Message(role="user", content="q"), Message(role="assistant", tool_calls=[c])]
    msgs = plan_request(history, "S", budget=500).messages
    assert msgs[-1].role == "tool" and msgs[-1].content == NOT_RUN_TEXT


def test_calibration_learns_the_servers_count_but_not_cache_hits_or_cut_prompts():
    cal = Calibration()
    key = ("ollama", "http://h", "m")
    assert cal.scale(key, 1000) == 1000
    assert cal.observe(key, 1000, 1300) and cal.ratio(key) == 1.3
    assert not cal.observe(key, 1000, 200)  # a cached prefix or a cut prompt: not learned
    assert cal.ratio(key) == 1.3
    cal.refused(key, 5000)
    cal.refused(key, 7000)
    assert cal.limit(key) == 5000


class WindowBackend(ScriptedBackend):
    """A scripted backend with a context window, which reports ``prompt_tokens`` on its last chunk."""

    def __init__(self, *replies, window: int = 2048, prompt_tokens: int | None = None):
        super().__init__(*replies)
        self.window = window
        self.reported = prompt_tokens

    def context_window(self) -> int:
        return self.window

    def _replay(self, reply, cancel):
        for chunk in super()._replay(reply, cancel):
            if chunk.done and self.reported:
                chunk.prompt_tokens = self.reported
            yield chunk


def test_a_300_message_chat_answers_within_the_window_and_reports_the_meter():
    conv = Conversation(messages=long_chat(100, tool_every=0))  # 200 messages + the turn
    backend = WindowBackend(text("fine"), window=2048)
    events = list(Agent(backend, system_prompt="SYSTEM").run(conv, "and now?"))
    assert isinstance(events[-1], AnswerFinished)
    sent = backend.requests[0].messages
    assert sent[0].content == "SYSTEM" and sent[-1].content == "and now?"
    usage = [e for e in events if isinstance(e, ContextUsage)]
    assert len(usage) == 1 and usage[0].window == 2048 and 0 < usage[0].used <= budget_for(2048)
    assert usage[0].left_out > 0 and not usage[0].reported


def test_a_server_counting_far_fewer_prompt_tokens_than_sent_is_said():
    conv = Conversation(messages=long_chat(30, tool_every=0))
    backend = WindowBackend(text("fine"), window=8192, prompt_tokens=120)  # it kept ~120 of ~2000 tokens
    events = list(Agent(backend).run(conv, "and now?"))
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and notices[0].startswith(PROMPT_CUT.split("{")[0])
    assert next(e for e in events if isinstance(e, ContextUsage)).used == 120


def test_a_servers_own_count_calibrates_later_estimates():
    conv = Conversation(messages=long_chat(10, tool_every=0))
    backend = WindowBackend(text("one"), text("two"), window=8192)
    first = next(e for e in Agent(backend).run(conv, "a") if isinstance(e, ContextUsage))
    backend.reported = int(first.used * 1.5)
    list(Agent(backend).run(conv, "b"))
    assert abs(state.CALIBRATION.ratio(("scripted", "", "scripted-model")) - 1.5) < 0.05


def test_context_too_long_is_asked_again_once_with_less_and_the_limit_is_remembered():
    conv = Conversation(messages=long_chat(40, tool_every=0))
    backend = WindowBackend(ContextTooLong("4096 tokens"), text("short answer"), text("later"), window=8192)
    events = list(Agent(backend).run(conv, "q?"))
    assert isinstance(events[-1], AnswerFinished) and SHORTER in [e.text for e in events if isinstance(e, Notice)]
    first, second = backend.requests
    assert len(second.messages) < len(first.messages) and second.messages[-1].content == "q?"
    list(Agent(backend).run(conv, "again"))
    assert len(backend.requests[2].messages) <= len(second.messages) + 2  # stays below the refused size
