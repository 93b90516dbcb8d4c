"""Issue 13 against the wire-protocol servers: the model's window and capabilities from Ollama's /api/show
(through the official client), options.num_ctx on every request, a prompt the server cut is said, models
without tools or thinking answer without them, OpenAI-compatible usage and /models windows."""

from __future__ import annotations

from desktop_agent.core.agent import Agent
from desktop_agent.core.assembly import backend_spec, build_agent, build_backend
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.capabilities import cannot_use
from desktop_agent.core.events import AnswerFinished, ContextUsage, Notice
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.model_info import ModelFacts
from desktop_agent.core.settings import Settings
from desktop_agent.core.tools.registry import ToolRegistry
from tests.helpers.chats import long_chat


def registry() -> ToolRegistry:
    from desktop_agent.core.tools.decorator import tool

    @tool
    def today() -> str:
        """Today's date."""
        return "2026-12-01"

    reg = ToolRegistry()
    reg.register(today)
    return reg


def notices(events) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


def test_show_gives_window_and_capabilities_through_the_official_client(ollama_server):
    ollama_server.model_facts["qwen3:8b"] = (40960, ["completion", "tools", "thinking"])
    b = OllamaBackend(ollama_server.url, "qwen3:8b", timeout_s=10, max_window=65536)
    try:
        assert b.model_facts() == ModelFacts(40960, frozenset({"completion", "tools", "thinking"}))
        assert b.model_facts().shown() == ["tools", "thinking"]
        assert b.context_window() == 40960
        b.model_facts()
        assert [p for p, _ in ollama_server.requests].count("/api/show") == 1, "asked once"
    finally:
        b.close()


def test_every_request_carries_num_ctx_capped_by_the_setting(ollama_server):
    ollama_server.model_facts["llama3.2"] = (2048, ["completion", "tools"])
    small = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10)
    big = OllamaBackend(ollama_server.url, "qwen3:8b", timeout_s=10, max_window=4096)
    chosen = OllamaBackend(ollama_server.url, "qwen3:8b", timeout_s=10, window=16384, max_window=100_000)
    try:
        for backend, expected in ((small, 2048), (big, 4096), (chosen, 16384)):
            list(backend.stream_chat([Message(role="user", content="hi")]))
            assert ollama_server.chat_requests[-1]["options"]["num_ctx"] == expected
    finally:
        for backend in (small, big, chosen):
            backend.close()


def test_the_settings_reach_the_backend(ollama_server):
    settings = Settings().updated({"ollama.host": ollama_server.url, "models.max_window": 3000,
                                   "models.windows": {"llama3.2": 2500}})
    backend = build_backend(backend_spec(settings))
    try:
        assert backend.context_window() == 2500
    finally:
        backend.close()


def test_a_300_message_chat_on_a_small_window_model_keeps_tools_and_system_prompt(ollama_server):
    """Done when: a 300-message chat on a small-window model keeps answering with its tools and system prompt
    intact, and shows its context meter. The server cuts a prompt longer than num_ctx as Ollama does."""
    ollama_server.model_facts["llama3.2"] = (2048, ["completion", "tools"])
    ollama_server.truncate_to_num_ctx = True
    backend = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10)
    conv = Conversation(messages=long_chat(115, tool_every=3, result_chars=600))
    assert len(conv.messages) >= 300
    try:
        events = list(Agent(backend, registry(), system_prompt="SYSTEM PROMPT").run(conv, "what day is it?"))
    finally:
        backend.close()
    assert isinstance(events[-1], AnswerFinished), events[-1]
    first = ollama_server.chat_requests[0]
    assert first["messages"][0] == {"role": "system", "content": "SYSTEM PROMPT"}
    assert [t["function"]["name"] for t in first["tools"]] == ["today"]
    assert first["options"]["num_ctx"] == 2048
    assert first["messages"][-1]["content"] == "what day is it?"
    assert not any("read only about" in n for n in notices(events)), "nothing was cut by the server"
    usage = [e for e in events if isinstance(e, ContextUsage)]
    assert usage and all(u.window == 2048 and u.reported and u.used <= 2048 for u in usage)


def test_a_prompt_the_server_cut_is_said(ollama_server):
    """A server with a smaller window than it reports (or than we ask for) cuts the start of the chat: the
    prompt tokens it reports show it, and the user is told."""
    ollama_server.model_facts["llama3.2"] = (8192, ["completion"])
    ollama_server.truncate_to_num_ctx = True
    backend = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10)
    original = backend.build_request

    def small_num_ctx(*args, **kwargs):  # a server running with a smaller context than it reports
        body = original(*args, **kwargs)
        body["options"]["num_ctx"] = 512
        return body

    backend.build_request = small_num_ctx  # type: ignore[method-assign]
    try:
        events = list(Agent(backend).run(Conversation(messages=long_chat(40, tool_every=0)), "and now?"))
    finally:
        backend.close()
    assert isinstance(events[-1], AnswerFinished)
    assert any("the answer may have missed the start of the chat" in n for n in notices(events))


def test_a_model_without_tool_support_answers_with_a_notice_and_no_tools(ollama_server):
    """Done when: a model without tool support answers with a notice instead of failing; its turns go without
    tools (no 400 on every turn); the user can turn them back on."""
    ollama_server.model_facts["llama3.2"] = (8192, ["completion"])
    settings = Settings().updated({"ollama.host": ollama_server.url})
    backend = build_backend(backend_spec(settings))
    try:
        for question in ("what day is it?", "and tomorrow?"):
            events = list(build_agent(settings, backend, registry()).run(Conversation(), question))
            assert isinstance(events[-1], AnswerFinished)
            assert notices(events) == [cannot_use("tools", "llama3.2")]
        assert all("tools" not in body for body in ollama_server.chat_requests)
        anyway = settings.updated({"models.tools_anyway": ["llama3.2"]})
        events = list(build_agent(anyway, backend, registry()).run(Conversation(), "what day is it?"))
        # (the tool it called answered: the last request asks for the answer without tools, so the first has them)
        turn = ollama_server.chat_requests[-2:]
        assert notices(events) == [] and "tools" in turn[0] and "tools" not in turn[1]
    finally:
        backend.close()


def test_a_model_that_cannot_think_is_asked_without_think(ollama_server):
    ollama_server.model_facts["llama3.2"] = (8192, ["completion", "tools"])
    backend = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10, think=True)
    forced = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10, think=True, force_think=True)
    try:
        events = list(Agent(backend).run(Conversation(), "hi"))
        assert isinstance(events[-1], AnswerFinished) and notices(events) == [cannot_use("thinking", "llama3.2")]
        assert "think" not in ollama_server.chat_requests[-1]
        list(Agent(forced).run(Conversation(), "hi"))
        assert ollama_server.chat_requests[-1]["think"] is True
    finally:
        backend.close()
        forced.close()


def test_a_server_that_cannot_say_leaves_the_default_window(ollama_server):
    backend = OllamaBackend(ollama_server.url, "not-installed", timeout_s=10, default_window=3000)
    try:
        assert backend.model_facts() == ModelFacts() and backend.context_window() == 3000
    finally:
        backend.close()


def test_openai_streams_ask_for_usage_and_the_prompt_count_is_read(openai_server):
    backend = OpenAIBackend(openai_server.url, "local-model", [], needs_key=False, retries_per_key=0)
    try:
        chunks = list(backend.stream_chat([Message(role="user", content="hi")]))
        assert openai_server.requests[-1]["stream_options"] == {"include_usage": True}
        assert chunks[-1].done and chunks[-1].prompt_tokens == 10  # the fake server's usage chunk
        whole = list(backend.stream_chat([Message(role="user", content="hi")], stream=False))
        assert "stream_options" not in openai_server.requests[-1] and whole[-1].prompt_tokens == 10
    finally:
        backend.close()


def test_openai_server_refusing_stream_options_is_asked_without(openai_server):
    from tests.servers.openai import HttpError, error_body

    openai_server.script(HttpError(400, error_body("Unrecognized request argument supplied: stream_options")))
    backend = OpenAIBackend(openai_server.url, "local-model", [], needs_key=False, retries_per_key=0)
    try:
        text = "".join(c.text for c in backend.stream_chat([Message(role="user", content="hi")]))
        assert text == "You said: hi"
        assert "stream_options" not in openai_server.requests[-1] and not backend.stream_usage
    finally:
        backend.close()


def test_openai_window_from_the_model_listing(openai_server):
    backend = OpenAIBackend(openai_server.url, "local-model", [], needs_key=False, default_window=4096)
    try:
        assert backend.context_window() == 4096  # no request of its own
        openai_server.model_meta["local-model"] = {"max_model_len": 32768}
        backend.list_models()
        assert backend.context_window() == 32768
        assert OpenAIBackend(openai_server.url, "local-model", [], needs_key=False,
                             window=2048).context_window() == 2048
    finally:
        backend.close()


def test_a_summary_request_is_bounded_and_the_limit_is_not_kept(ollama_server, openai_server):
    from desktop_agent.core.compaction import summarise

    conv = Conversation(messages=long_chat(10, tool_every=0))
    ollama = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10)
    openai = OpenAIBackend(openai_server.url, "local-model", [], needs_key=False, retries_per_key=0)
    try:
        for backend in (ollama, openai):
            assert summarise(conv, backend, 4096) is not None
            assert backend.max_answer_tokens is None
        assert ollama_server.chat_requests[-1]["options"]["num_predict"] > 0
        assert openai_server.requests[-1]["max_tokens"] > 0
        list(openai.stream_chat([Message(role="user", content="hi")]))
        assert "max_tokens" not in openai_server.requests[-1]
    finally:
        ollama.close()
        openai.close()
