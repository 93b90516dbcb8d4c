"""Issue 20 on the real llama-cpp-python server (``--n_ctx 4096``, the README's own): it says nothing of its window
(no window in ``/v1/models``, no ``/props``), so the meter starts at the assumed 8192; the first request too long
for 4096 is refused, the refusal's numbers teach the window, the turn is asked again shorter and answers, and the
meter says 4096, no longer assumed — also for the backend the next turn builds (the same server and model)."""

from __future__ import annotations

import pytest

from desktop_agent.core.agent import Agent
from desktop_agent.core.events import AnswerFinished, ContextUsage, Notice
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.session import ChatSession

pytestmark = pytest.mark.e2e


@pytest.mark.timeout(600)
def test_the_meter_learns_the_servers_4096_from_its_refusal(llama_server):
    from desktop_agent.core.backends.openai import OpenAIBackend

    def backend() -> OpenAIBackend:
        return OpenAIBackend(llama_server, "smollm2", [], needs_key=False, temperature=0.0, timeout_s=300,
                             default_window=8192)

    first = backend()
    assert first.window_info().assumed and first.context_window() == 8192, "the server does not say"
    messages = []
    for i in range(170):  # ≈ 4,400 tokens by our estimate (< 8192), ≈ 7,300 by this server's tokenizer (> 4096)
        messages.append(Message(role="user", content=f"Note {i}: the code word for day {i} is blue{i}."))
        messages.append(Message(role="assistant", content=f"Noted: day {i} is blue{i}."))
    session = ChatSession(Conversation(messages=messages),
                          agent=Agent(first, system_prompt="You are a helpful assistant.", max_history=0))
    events = list(session.run_turn("What is 2+2?"))
    assert isinstance(events[-1], AnswerFinished), events[-1]
    assert any(isinstance(e, Notice) and "too long" in e.text for e in events), "refused once, asked again"
    meters = [e for e in events if isinstance(e, ContextUsage)]
    assert [(u.window, u.assumed) for u in meters] == [(4096, False)]
    assert meters[0].used <= 4096 and meters[0].left_out > 0

    second = backend()  # a new backend of the same server and model (the terminal's next `chat -p`, say)
    window = second.window_info()
    assert (window.tokens, window.assumed) == (4096, False), "the next turn is planned against 4096"
    first.close()
    second.close()
