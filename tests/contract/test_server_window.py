"""Issue 20, a context window that is the server's, against real local HTTP servers speaking llama.cpp's, vLLM's,
OpenAI's and Ollama's wire protocols: the window a server reports is the meter's (not assumed); one that says
nothing gives an assumed window; a refusal's numbers are learned and kept; a model switch re-plans; a tool result
too big for the window is cut to fit; compaction before a turn costs one summary request."""

from __future__ import annotations

import json

from desktop_agent.core.agent import Agent
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.context import CUT_NOTE
from desktop_agent.core.events import AnswerFinished, ChatCompacted, ContextUsage, Notice, event_to_dict
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.session import ChatSession
from desktop_agent.core.tools.registry import ToolRegistry
from tests.helpers.chats import long_chat
from tests.servers.openai import OpenAIServer


def openai_backend(server: OpenAIServer, model: str = "local-model", **kwargs) -> OpenAIBackend:
    return OpenAIBackend(server.url, model, [], needs_key=False, retries_per_key=0, timeout_s=10, **kwargs)


def agent(backend, *args, auto_compact: bool = False, **kwargs) -> Agent:
    """An agent as the app builds one: no message-count limit (only the window decides)."""
    made = Agent(backend, *args, max_history=0, **kwargs)
    made.auto_compact = auto_compact
    return made


def turn(session: ChatSession, text: str) -> list:
    return list(session.run_turn(text))


def usage(events) -> list[ContextUsage]:
    return [e for e in events if isinstance(e, ContextUsage)]


def summary_requests(server: OpenAIServer) -> list:
    return [r for r in server.requests if str(r["messages"][0].get("content", "")).startswith("You summarise")]


def test_llama_cpp_props_give_the_served_window_not_the_trained_one(openai_server):
    """llama.cpp's /v1/models says n_ctx_train (the model's 131072); /props says what it serves (--ctx-size)."""
    openai_server.model_meta["local-model"] = {"owned_by": "llamacpp", "meta": {"n_ctx_train": 131072}}
    openai_server.props = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1}
    backend = openai_backend(openai_server)
    try:
        session = ChatSession(Conversation(), agent=agent(backend))
        for question in ("hi", "and again"):
            events = turn(session, question)
            assert isinstance(events[-1], AnswerFinished)
            assert [(u.window, u.assumed) for u in usage(events)] == [(4096, False)]
        asked = [r.path for r in openai_server.all_requests if r.method == "GET"]
        assert asked == ["/v1/models", "/props"], "asked once for the process"
    finally:
        backend.close()


def test_vllm_max_model_len_is_the_window(openai_server):
    openai_server.model_meta["local-model"] = {"max_model_len": 32768}
    backend = openai_backend(openai_server)
    try:
        events = turn(ChatSession(Conversation(), agent=agent(backend)), "hi")
        assert [(u.window, u.assumed) for u in usage(events)] == [(32768, False)]
        assert not any(r.path == "/props" for r in openai_server.all_requests), "the listing said it"
    finally:
        backend.close()


def test_a_server_that_does_not_say_gives_an_assumed_window_in_the_events(openai_server):
    backend = openai_backend(openai_server, default_window=8192)
    try:
        events = turn(ChatSession(Conversation(), agent=agent(backend)), "hi")
        (meter,) = usage(events)
        assert (meter.window, meter.assumed) == (8192, True)
        line = json.loads(json.dumps(event_to_dict(meter)))  # as `desktop-agent chat --events` prints it
        assert line["type"] == "ContextUsage" and line["assumed"] is True and line["window"] == 8192
    finally:
        backend.close()


def test_a_refusal_teaches_the_window_and_later_turns_trim_before_sending(openai_server):
    """llama-cpp-python with --n_ctx 2000 says nothing about it until it refuses: "This model's maximum context
    length is 2000 tokens. However, your messages resulted in … tokens". The turn is asked again shorter and
    answers; the meter says 2000, no longer assumed; the next turn (a new agent, as the window builds one per
    turn) is planned against 2000 and never refused."""
    openai_server.context_limit_chars = 8000  # → "maximum context length is 2000 tokens"
    conv = Conversation(messages=long_chat(80, tool_every=0))
    backend = openai_backend(openai_server, default_window=8192)
    try:
        session = ChatSession(conv, agent=agent(backend))
        events = turn(session, "what now?")
        assert isinstance(events[-1], AnswerFinished), events[-1]
        assert len(openai_server.requests) == 2, "refused once, then asked again shorter"
        assert [(u.window, u.assumed) for u in usage(events)] == [(2000, False)]
        assert backend.context_window() == 2000

        again = openai_backend(openai_server, default_window=8192)  # the same server and model
        session.agent = agent(again)
        events = turn(session, "and now?")
        assert isinstance(events[-1], AnswerFinished) and len(openai_server.requests) == 3, "not refused"
        assert not any(isinstance(e, Notice) and "too long" in e.text for e in events)
        assert len(openai_server.requests[-1].raw) <= 8000
        again.close()
    finally:
        backend.close()


def test_llama_cpp_refusal_wording_is_learned_too(openai_server):
    openai_server.context_limit_chars = 8000
    openai_server.context_error = "llama.cpp"  # "request (N tokens) exceeds the available context size (2000 tokens)"
    backend = openai_backend(openai_server)
    try:
        events = turn(ChatSession(Conversation(messages=long_chat(80, tool_every=0)), agent=agent(backend)), "now?")
        assert isinstance(events[-1], AnswerFinished), events[-1]
        assert [u.window for u in usage(events)] == [2000]
    finally:
        backend.close()


def test_ollama_serves_the_modelfile_num_ctx(ollama_server):
    ollama_server.model_facts["llama3.2"] = (131072, ["completion", "tools"])
    ollama_server.model_parameters["llama3.2"] = 'num_ctx 4096\nstop "<|eot_id|>"'
    backend = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10, max_window=8192)
    try:
        events = turn(ChatSession(Conversation(), agent=agent(backend)), "hi")
        assert ollama_server.chat_requests[-1]["options"]["num_ctx"] == 4096
        assert [(u.window, u.assumed) for u in usage(events)] == [(4096, False)]
    finally:
        backend.close()


def test_switching_the_chat_to_another_model_plans_against_its_window(openai_server):
    """A 60-turn chat (~9k tokens): the 32k model gets it whole and nothing is summarised; switched to the 2k
    model, the first request already fits (trimmed before sending, not after a refusal) and the chat is summarised
    in one request."""
    openai_server.models = ["big", "small"]
    openai_server.model_meta = {"big": {"max_model_len": 32768}, "small": {"max_model_len": 2048}}
    conv = Conversation(messages=long_chat(60, tool_every=0))
    big, small = openai_backend(openai_server, "big"), openai_backend(openai_server, "small")
    try:
        session = ChatSession(conv, agent=agent(big, auto_compact=True))
        events = turn(session, "what now?")
        assert isinstance(events[-1], AnswerFinished) and not summary_requests(openai_server)
        assert [u.left_out for u in usage(events)] == [0] and usage(events)[0].window == 32768
        sent_whole = len(openai_server.requests[-1]["messages"])

        openai_server.context_limit_chars = 2048 * 4  # the small model's server refuses what does not fit
        session.agent = agent(small, auto_compact=True)
        events = turn(session, "and now?")
        assert isinstance(events[-1], AnswerFinished), events[-1]
        assert any(isinstance(e, ChatCompacted) for e in events) and len(summary_requests(openai_server)) == 1
        assert not any(isinstance(e, Notice) and "too long" in e.text for e in events), "never refused"
        assert usage(events)[0].window == 2048 and len(openai_server.requests[-1]["messages"]) < sent_whole
    finally:
        big.close()
        small.close()


def big_file_registry(chars: int) -> ToolRegistry:
    from desktop_agent.core.tools.decorator import tool

    @tool
    def read_log() -> str:
        """Read the server log."""
        return "log line\n" * (chars // 9)

    reg = ToolRegistry()
    reg.register(read_log)
    return reg


def test_a_tool_result_too_big_for_the_window_is_cut_to_fit_and_the_turn_answers(openai_server):
    """A 16,000-character result (the default cap, ~4,000 tokens) on a 2,048-token server: sent cut, with a note
    the model reads, instead of a refusal that fails the turn."""
    openai_server.model_meta["local-model"] = {"max_model_len": 2048}
    openai_server.context_limit_chars = 2048 * 4
    backend = openai_backend(openai_server)
    try:
        events = turn(ChatSession(Conversation(), agent=agent(backend, big_file_registry(40_000),
                                                              tool_choice="read_log")), "what does the log say?")
        assert isinstance(events[-1], AnswerFinished), events[-1]
        assert len(openai_server.requests) == 2, "no refusal"
        sent = openai_server.requests[-1]["messages"][-1]
        assert sent["role"] == "tool" and CUT_NOTE.split("{")[0].strip() in sent["content"]
        assert "the result is too big for the model's context window" in sent["content"]
        assert usage(events)[-1].trimmed == 1
    finally:
        backend.close()


def test_a_400_message_chat_on_an_8k_model_costs_one_summary_request(openai_server):
    """An imported chat of 400 long messages (~100k tokens) continued on an 8k model: one summary request before
    the answer (it used to be 25), and the turn answers."""
    openai_server.model_meta["local-model"] = {"max_model_len": 8192}
    messages = []
    for i in range(200):
        messages.append(Message(role="user", content=f"Part {i} of the report: " + "words of the report " * 50))
        messages.append(Message(role="assistant", content=f"Noted part {i}. " + "a long reply " * 60))
    conv = Conversation(messages=messages)
    backend = openai_backend(openai_server)
    try:
        events = turn(ChatSession(conv, agent=agent(backend, auto_compact=True)), "Summarise part 199 in a line.")
        assert isinstance(events[-1], AnswerFinished), events[-1]
        assert len(summary_requests(openai_server)) == 1
        assert len(openai_server.requests) == 2, "one summary, one answer"
        assert any(isinstance(e, Notice) and "oldest" in e.text for e in events)
        assert (compacted := [e for e in events if isinstance(e, ChatCompacted)]) and compacted[0].automatic
    finally:
        backend.close()
