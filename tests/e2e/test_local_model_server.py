"""The real local model server and the Ollama translator in front of it, checked with the official
clients only (no app code): what the rest of the e2e tests stand on, and the server's quirks that the
app must handle (LOCAL-MODEL.md). Temperature 0; the protocol is asserted, never the model's wisdom.
"""

from __future__ import annotations

import json
import time

import httpx
import pytest

pytestmark = pytest.mark.e2e

DAY_OF_WEEK = {
    "type": "function",
    "function": {
        "name": "day_of_week",
        "description": "The day of the week of a date.",
        "parameters": {
            "type": "object",
            "properties": {"date": {"type": "string", "description": "The date, YYYY-MM-DD"}},
            "required": ["date"],
        },
    },
}
TOOL_PROMPT = [
    {"role": "system", "content": "You are a helpful assistant with tools."},
    {"role": "user", "content": "What day of the week was 2024-01-01?"},
]


def _openai(base_url: str):
    import openai

    # A fresh client (and connection pool) per test: a failed stream may break the pooled connection.
    return openai.OpenAI(base_url=base_url, api_key="sk-local", max_retries=0, timeout=60)


def test_streaming_chat_and_tokens_per_second(llama_server, e2e_metrics):
    client = _openai(llama_server)
    t0 = time.monotonic()
    first_at = None
    pieces = []
    finish = None
    for chunk in client.chat.completions.create(
        model="smollm2", messages=[{"role": "user", "content": "Say hello"}], temperature=0, max_tokens=64,
        stream=True,
    ):  # fmt: skip
        for choice in chunk.choices:
            if choice.delta.content:
                first_at = first_at or time.monotonic()
                pieces.append(choice.delta.content)
            finish = choice.finish_reason or finish
    elapsed = time.monotonic() - t0
    assert len(pieces) >= 2
    assert "".join(pieces).strip()
    assert finish in ("stop", "length")
    # one streamed piece per generated token with this server
    e2e_metrics["tokens/s (stream, 64-token cap)"] = round(len(pieces) / elapsed, 1)
    e2e_metrics["first streamed token (s)"] = round(first_at - t0, 2)

    t0 = time.monotonic()
    r = client.chat.completions.create(
        model="smollm2", messages=[{"role": "user", "content": "Count from one to twenty."}], temperature=0,
        max_tokens=96,
    )  # fmt: skip
    elapsed = time.monotonic() - t0
    assert r.usage.completion_tokens > 0
    assert r.choices[0].message.content
    e2e_metrics["tokens/s (non-stream, usage)"] = round(r.usage.completion_tokens / elapsed, 1)


@pytest.mark.parametrize("stream", [False, True], ids=["once", "stream"])
def test_forced_tool_choice_gives_a_well_formed_call(llama_server, stream):
    client = _openai(llama_server)
    forced = {"type": "function", "function": {"name": "day_of_week"}}
    kwargs = dict(model="smollm2", messages=TOOL_PROMPT, tools=[DAY_OF_WEEK], tool_choice=forced, temperature=0)
    if not stream:
        call = client.chat.completions.create(**kwargs).choices[0].message.tool_calls[0]
        call_id, name, arguments = call.id, call.function.name, call.function.arguments
    else:
        call_id, name, arguments = None, None, ""
        for chunk in client.chat.completions.create(stream=True, **kwargs):
            for tc in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
                call_id = call_id or tc.id
                name = name or (tc.function.name if tc.function else None)  # the server repeats the name
                arguments += (tc.function.arguments or "") if tc.function else ""
    assert call_id
    assert name == "day_of_week"
    parsed = json.loads(arguments)
    assert isinstance(parsed, dict) and isinstance(parsed.get("date"), str)


def test_quirk_content_null_on_assistant_tool_call_is_rejected_but_empty_string_works(llama_server):
    """Why the app sends ``content: ""`` on assistant tool-call messages (shared case 18 is the opposite
    server; LOCAL-MODEL.md: this one answers HTTP 500 to null)."""
    history = [
        *TOOL_PROMPT,
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "day_of_week", "arguments": '{"date": "2024-01-01"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": '"Monday"'},
    ]  # fmt: skip
    body = {"model": "smollm2", "messages": history, "temperature": 0, "max_tokens": 16}
    with httpx.Client(timeout=60) as c:
        r_null = c.post(llama_server + "/chat/completions", json=body)
    history[2]["content"] = ""
    with httpx.Client(timeout=60) as c:
        r_empty = c.post(llama_server + "/chat/completions", json=body)
    assert r_null.status_code >= 400
    assert r_empty.status_code == 200
    assert r_empty.json()["choices"][0]["message"]["role"] == "assistant"


def test_quirk_auto_tool_choice_stream_may_be_an_empty_200(llama_server):
    """The server answers 200 and then sends nothing when it picks a tool while streaming with
    ``tool_choice="auto"`` (the app must turn that into "the server returned an empty answer")."""
    import openai

    client = _openai(llama_server)
    chunks = []
    try:
        for chunk in client.chat.completions.create(
            model="smollm2", messages=TOOL_PROMPT, tools=[DAY_OF_WEEK], tool_choice="auto", temperature=0,
            stream=True,
        ):  # fmt: skip
            chunks.append(chunk)
    except openai.APIConnectionError:  # the connection may also just break after the 200
        pass
    # Either a normal streamed message or nothing at all; never a tool call streamed with auto.
    assert not any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    # The server is still usable afterwards from a new connection.
    r = _openai(llama_server).chat.completions.create(
        model="smollm2", messages=[{"role": "user", "content": "Hi"}], temperature=0, max_tokens=4
    )
    assert r.choices[0].message.role == "assistant"


def test_quirk_a_prompt_over_the_context_is_an_empty_200_stream_but_a_400_with_the_reason_once(llama_server):
    """Why the app asks an empty streamed answer again without streaming: this server fails a streamed
    request longer than its context (n_ctx 4096) after the 200, silently; without streaming it answers
    HTTP 400 with the reason."""
    body = {"model": "smollm2", "messages": [{"role": "user", "content": "The quick brown fox. " * 3300}],
            "temperature": 0}  # fmt: skip
    with httpx.Client(timeout=60) as c, c.stream("POST", llama_server + "/chat/completions",
                                                 json={**body, "stream": True}) as r:  # fmt: skip
        streamed = b"".join(r.iter_bytes())
        assert r.status_code == 200
    assert b"data:" not in streamed
    with httpx.Client(timeout=60) as c:
        once = c.post(llama_server + "/chat/completions", json={**body, "stream": False})
    assert once.status_code == 400
    error = once.json()["error"]
    assert "maximum context length is 4096 tokens" in error["message"]
    assert error["code"] == "context_length_exceeded"


# ---- the Ollama translator, checked with the official ollama client -------------------------------------


def day_of_week(date: str) -> str:
    """The day of the week of a date.

    Args:
      date: The date, YYYY-MM-DD
    """
    raise AssertionError("never called here")


def test_translator_list_show_version(ollama_translator):
    import ollama

    client = ollama.Client(host=ollama_translator.url)
    models = client.list().models
    assert [m.model for m in models] == ["smollm2"]
    assert "tools" in (client.show("smollm2").capabilities or [])
    assert httpx.get(ollama_translator.url + "/api/version").json()["version"]
    with pytest.raises(ollama.ResponseError) as exc:
        client.chat(model="no-such-model", messages=[{"role": "user", "content": "Hi"}], stream=False)
    assert exc.value.status_code == 404


def test_translator_chat_once_and_streamed(ollama_translator):
    import ollama

    client = ollama.Client(host=ollama_translator.url)
    msgs = [{"role": "user", "content": "Say hello"}]
    once = client.chat(model="smollm2:latest", messages=msgs, options={"temperature": 0, "num_predict": 24})
    assert once.done and once.message.role == "assistant" and once.message.content
    parts = list(client.chat(model="smollm2", messages=msgs, options={"temperature": 0, "num_predict": 24},
                             stream=True))  # fmt: skip
    assert len(parts) >= 3  # at least two pieces and the done line
    assert all(not p.done for p in parts[:-1]) and parts[-1].done
    assert parts[-1].done_reason in ("stop", "length")
    assert "".join(p.message.content or "" for p in parts).strip()


@pytest.mark.parametrize("stream", [False, True], ids=["once", "stream"])
def test_translator_tool_calls_round_trip(ollama_translator, stream):
    import ollama

    client = ollama.Client(host=ollama_translator.url)
    msgs: list = list(TOOL_PROMPT)
    with ollama_translator.forcing_tool("day_of_week"):
        reply = client.chat(model="smollm2", messages=msgs, tools=[day_of_week], options={"temperature": 0},
                            stream=stream)  # fmt: skip
        parts = list(reply) if stream else [reply]
    calls = [tc for p in parts for tc in (p.message.tool_calls or [])]
    assert len(calls) == 1
    assert calls[0].function.name == "day_of_week"
    assert isinstance(calls[0].function.arguments, dict)  # an object, as Ollama sends it
    sent = ollama_translator.upstream_requests[-1]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "day_of_week"}}
    assert sent["tools"][0]["function"]["name"] == "day_of_week"

    # Send the tool result back as Ollama does (role "tool", tool_name, no id).
    msgs += [
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "day_of_week",
                                                                          "arguments": calls[0].function.arguments}}]},
        {"role": "tool", "content": "Monday", "tool_name": "day_of_week"},
    ]  # fmt: skip
    follow = client.chat(model="smollm2", messages=msgs, tools=[day_of_week],
                         options={"temperature": 0, "num_predict": 64})  # fmt: skip
    assert follow.done and follow.message.role == "assistant"
    sent = ollama_translator.upstream_requests[-1]["messages"]
    assert sent[2]["content"] == "" and sent[2]["tool_calls"][0]["id"]
    assert sent[3] == {"role": "tool", "tool_call_id": sent[2]["tool_calls"][0]["id"], "content": "Monday"}
    assert ollama_translator.upstream_requests[-1]["tool_choice"] == "auto"
