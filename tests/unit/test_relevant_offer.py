"""Issue 20: each message is offered the tools that fit it, or none; the tool a message clearly means is called
and then answered from; an answer in words from what the tools said; one retry for a chosen tool's invalid
arguments. The shipped tools and the scripted backend; the app's own assembly for the defaults."""

from __future__ import annotations

import threading

import pytest

from desktop_agent.core.agent import Agent
from desktop_agent.core.answer import ANSWER_FROM_RESULTS, answer_request, readable_result
from desktop_agent.core.capabilities import Capabilities
from desktop_agent.core.events import AnswerFinished, RequestSent, ToolCallStarted, ToolsOffered
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.settings import TOOLS_PROMPT
from desktop_agent.core.tools.loader import load_tools
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.tools.relevance import relevant_tools
from tests.unit.scripted import ScriptedBackend, call, calls, text


@pytest.fixture(scope="module")
def shipped() -> ToolRegistry:
    registry = ToolRegistry()
    load_tools(registry, user_dir=False, entry_points=False)
    return registry


def fits(registry: ToolRegistry, message: str):
    return relevant_tools(registry, [Message(role="user", content=message)])


@pytest.mark.parametrize("message", [
    "What is the capital of France?", "Hi there! How are you today?", "Write one short sentence about cats.",
    "How do you say 'thank you' in French?", "What colour is the sky on a clear day?", "Tell me a joke",
    "Summarise this text: the cat sat on the mat.", "Translate 'good morning' into German", "", "   ", "Hello!",
])
def test_a_message_no_tool_fits_is_offered_none(shipped, message):
    assert fits(shipped, message).names == ()


@pytest.mark.parametrize(("message", "tool"), [
    ("What day of the week was 2024-03-15?", "day_of_week"),
    ("Which weekday is 2030-01-01?", "day_of_week"),
    ("What is 1234 * 5678?", "calculator"),
    ("What is the square root of 1764?", "calculator"),
    ("What is 15% of 240?", "calculator"),
    ("What is 7 plus 5?", "calculator"),
    ("What is today's date?", "today"),
    ("What time is it right now?", "today"),
    ("Use the say_hello tool to greet Ada.", "say_hello"),
    ("Fetch https://example.com and summarise it", "fetch_url"),
])
def test_the_tool_a_message_clearly_means_is_sure(shipped, message, tool):
    found = fits(shipped, message)
    assert found.names[0] == tool and found.sure == tool and len(found.names) <= 3


def test_a_tool_that_changes_something_fits_only_a_message_with_its_verb(shipped):
    assert "write_text_file" not in fits(shipped, "Read the file notes.txt").names
    assert "write_text_file" not in fits(shipped, "List the files in /tmp").names
    assert "write_text_file" in fits(shipped, "Write 'hello' to the file /tmp/notes.txt").names
    assert "run_shell_command" not in fits(shipped, "What does the ls command show?").names


def test_a_plain_word_tool_name_is_named_only_as_a_tool(shipped):
    assert fits(shipped, "How are you today?").names == ()
    assert fits(shipped, "Call the today tool, please").sure == "today"


def test_a_short_follow_up_keeps_the_tool_used_last(shipped):
    messages = [Message(role="user", content="What day of the week was 2024-03-15?"),
                Message(role="assistant", content="", tool_calls=[call("day_of_week", {"date": "2024-03-15"}, "c1")]),
                Message(role="tool", content='"Friday"', tool_call_id="c1", tool_name="day_of_week"),
                Message(role="assistant", content="A Friday."),
                Message(role="user", content="and 2024-03-16?")]
    assert "day_of_week" in relevant_tools(shipped, messages).names


def offered(event_list) -> list[ToolsOffered]:
    return [e for e in event_list if isinstance(e, ToolsOffered)]


def test_a_message_no_tool_fits_goes_without_tools_or_their_prompt(shipped):
    backend = ScriptedBackend(text("Paris."))
    agent = Agent(backend, shipped, relevant_only=True, tools_prompt=TOOLS_PROMPT)
    events = list(agent.run(Conversation(), "What is the capital of France?"))
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "Paris."
    (request,) = backend.requests
    assert request.tools is None and TOOLS_PROMPT not in (request.messages[0].content or "")
    (told,) = offered(events)
    assert told.names == () and told.reason == "no tool fits the message"
    assert not any(isinstance(e, ToolCallStarted) for e in events)


def test_only_the_fitting_tools_are_offered_and_said_so(shipped):
    backend = ScriptedBackend(calls(call("day_of_week", {"date": "2024-03-15"}, "c1")), text("It was a Friday."))
    agent = Agent(backend, shipped, relevant_only=True, tools_prompt=TOOLS_PROMPT)
    events = list(agent.run(Conversation(), "What day of the week was 2024-03-15?"))
    first = backend.requests[0]
    # the tool the message clearly means is asked for by name (deterministic on small models; what a big one does)
    assert [t["function"]["name"] for t in first.tools] == ["day_of_week"] and first.tool_choice == "day_of_week"
    assert TOOLS_PROMPT in (first.messages[0].content or "")
    told = offered(events)[0]
    assert told.names == ("day_of_week",) and "'week'" in told.reason
    # the tool the message meant answered: the model answers from its result, without tools, the result as text
    answer = backend.requests[1]
    assert answer.tools is None and answer.roles() == ["system", "user"]
    assert "day_of_week(date=2024-03-15) returned: 2024-03-15 is a Friday." in answer.messages[-1].content
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "It was a Friday."
    assert [type(e).__name__ for e in events].count("RequestSent") == 2


def learned_unable(backend) -> Capabilities:
    caps = Capabilities()
    for _ in range(3):  # (repeated evidence)
        caps.learn(backend, auto_tools=False)
    return caps


def test_a_model_that_cannot_choose_tools_is_asked_for_the_tool_its_message_means(shipped):
    backend = ScriptedBackend(calls(call("calculator", {"expression": "1234 * 5678"}, "c1")), text("7006652"))
    agent = Agent(backend, shipped, relevant_only=True, capabilities=learned_unable(ScriptedBackend()))
    events = list(agent.run(Conversation(), "What is 1234 * 5678?"))
    assert backend.requests[0].tool_choice == "calculator"  # named: the forced choice this server can do
    assert backend.requests[0].tools and backend.requests[1].tools is None
    assert offered(events)[0].chosen == "calculator"
    assert events[-1].message.content == "7006652"


def test_a_model_that_cannot_choose_tools_gets_none_for_a_vague_match(shipped):
    backend = ScriptedBackend(text("Sunny, I hope."))
    agent = Agent(backend, shipped, relevant_only=True, capabilities=learned_unable(ScriptedBackend()))
    list(agent.run(Conversation(), "What's the weather in Lyon?"))
    assert backend.requests[0].tools is None  # auto is what it cannot do: nothing to force, nothing offered


def test_a_chosen_tool_with_invalid_arguments_is_asked_again_once_without_using_a_step(shipped):
    backend = ScriptedBackend(calls(call("day_of_week", {}, "c1")),
                              calls(call("day_of_week", {"date": "2024-03-15"}, "c2")), text("Friday."))
    agent = Agent(backend, shipped, relevant_only=True, max_steps=1,
                  capabilities=learned_unable(ScriptedBackend()))
    events = list(agent.run(Conversation(), "What day of the week was 2024-03-15?"))
    assert [r.tool_choice for r in backend.requests[:2]] == ["day_of_week", "day_of_week"]
    assert "invalid arguments" in backend.requests[1].messages[-1].content
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "Friday."
    assert len(backend.requests) == 3


def test_the_invalid_argument_retry_happens_once(shipped):
    backend = ScriptedBackend(*[calls(call("day_of_week", {}, f"c{i}")) for i in range(3)], text("No idea."))
    agent = Agent(backend, shipped, relevant_only=True, max_steps=1,
                  capabilities=learned_unable(ScriptedBackend()))
    events = list(agent.run(Conversation(), "What day of the week was 2024-03-15?"))
    assert [r.tool_choice for r in backend.requests[:2]] == ["day_of_week", "day_of_week"]
    assert backend.requests[2].tools is None  # then the steps are used up: the answer from what was said
    assert isinstance(events[-1], AnswerFinished)


def test_stop_during_the_answer_in_words_keeps_what_came():
    from tests.unit.scripted import WaitForCancel

    reg = ToolRegistry()

    def get_time() -> str:
        """The time now."""
        return "noon"

    reg.register(get_time)
    cancel = threading.Event()
    backend = ScriptedBackend(calls(call("get_time", {}, "c1")), [*text("It is")[:-1], lambda c: cancel.set(),
                                                                  WaitForCancel(2)])
    events = list(Agent(backend, reg, max_steps=1).run(Conversation(), "time?", cancel))
    assert type(events[-1]).__name__ == "TurnCancelled" and events[-1].partial.content == "It is"


def test_answer_request_rewrites_only_the_current_turn():
    history = [Message(role="system", content="sys"),
               Message(role="user", content="first"),
               Message(role="assistant", content="", tool_calls=[call("a", {"x": 1}, "old")]),
               Message(role="tool", content='"old result"', tool_call_id="old", tool_name="a"),
               Message(role="assistant", content="First answer."),
               Message(role="user", content="second"),
               Message(role="assistant", content="", tool_calls=[call("b", {"y": "z"}, "new")]),
               Message(role="tool", content='{"text": "new result"}', tool_call_id="new", tool_name="b")]
    out = answer_request(history)
    assert [m.role for m in out] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert out[3].content == '"old result"'  # an earlier turn is sent as it was
    assert out[-1].content.startswith("second") and "b(y=z) returned: new result" in out[-1].content
    assert ANSWER_FROM_RESULTS in out[-1].content and "old result" not in out[-1].content
    assert answer_request(history[:6]) == history[:6]  # no tool ran in this turn: unchanged


def test_a_result_reads_as_its_text_not_json():
    assert readable_result('"2024-03-15 is a Friday."') == "2024-03-15 is a Friday."
    assert readable_result('{"text": "Wednesday, 2 December", "iso": "2026-12-02"}') == "Wednesday, 2 December"
    assert readable_result('{"a": 1, "b": "two"}') == "a: 1\nb: two"
    assert readable_result("plain words") == "plain words"


def test_the_apps_defaults_offer_only_what_fits(shipped):
    """The assembly's agent (default settings) has the gate on; Settings → Tools can turn it off."""
    from desktop_agent.core.assembly import build_agent
    from desktop_agent.core.settings import Settings

    agent = build_agent(Settings(), ScriptedBackend(), shipped)
    assert agent.relevant_only and agent.tools_prompt == TOOLS_PROMPT
    assert TOOLS_PROMPT not in (agent.system_prompt or "")
    off = build_agent(Settings().updated({"tools.only_relevant": False}), ScriptedBackend(), shipped)
    assert not off.relevant_only


def test_request_sent_says_the_prompt_size():
    backend = ScriptedBackend(text("Hello."))
    events = list(Agent(backend).run(Conversation(), "hi"))
    (sent,) = [e for e in events if isinstance(e, RequestSent)]
    assert sent.tokens > 0 and sent.waiting_text() == f"The model is reading the prompt ({sent.tokens:,} tokens)…"


@pytest.mark.parametrize("message", ["call 555-1234", "the 1999-2000 season", "the 2-3 zone"])
def test_a_hyphen_between_numbers_is_not_a_sum(shipped, message):
    assert "calculator" not in fits(shipped, message).names


def test_a_plain_word_is_not_a_tool_named_in_passing(shipped):
    assert fits(shipped, "recommend a tool today for painting").sure is None
    assert fits(shipped, "use the tool called today").sure == "today"


def test_a_message_in_a_script_the_judge_cannot_read_is_offered_the_tools_as_before(shipped):
    """"现在几点了" ("what time is it now"): the words are not the index's; the model decides (every tool)."""
    backend = ScriptedBackend(text("现在是中午。"))
    agent = Agent(backend, shipped, relevant_only=True)
    events = list(agent.run(Conversation(), "现在几点了"))
    assert backend.requests[0].tools and len(backend.requests[0].tools) == len(shipped)
    assert offered(events)[0].reason == "every tool"


def test_a_tool_chosen_for_the_message_is_offered_alone_and_then_answered_from(shipped):
    """The trial's "Use this tool for the next message" offered every tool; a small model wandered to
    list_directory and write_text_file. The chosen tool is offered alone, for the whole turn (after the first
    call the model goes on with automatic choice, as ``--tool-choice`` always did)."""
    backend = ScriptedBackend(calls(call("day_of_week", {"date": "2025-12-25"}, "c1")), text("A Thursday."))
    agent = Agent(backend, shipped, relevant_only=True, tool_choice="day_of_week")
    events = list(agent.run(Conversation(), "When was Christmas 2025, which weekday?"))
    first = backend.requests[0]
    assert [t["function"]["name"] for t in first.tools] == ["day_of_week"] and first.tool_choice == "day_of_week"
    told = offered(events)[0]
    assert told.names == ("day_of_week",) and told.reason == "the tool chosen for this message"
    second = backend.requests[1]
    assert [t["function"]["name"] for t in second.tools] == ["day_of_week"] and second.tool_choice == "auto"
    assert second.messages[-1].role == "tool" and events[-1].message.content == "A Thursday."


def test_the_meant_tool_failing_ends_in_an_answer_not_a_hunt(shipped):
    """The trial: a failed call of the meant tool was called again and again (five times, 203 s). A failed call
    of the tool the message means (its arguments were valid for the tool) goes to the answer from what it said."""
    backend = ScriptedBackend(calls(call("calculator", {"expression": "1764 * 25.38%"}, "c1")),
                              text("I could not work it out."))
    agent = Agent(backend, shipped, relevant_only=True)
    events = list(agent.run(Conversation(), "What is the square root of 1764?"))
    assert len(backend.requests) == 2 and backend.requests[1].tools is None
    assert "is not a valid expression" in backend.requests[1].messages[-1].content
    assert isinstance(events[-1], AnswerFinished)
