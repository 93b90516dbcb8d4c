"""The server's reason as one line (core/backends/reasons.py) and the event-stream reader that keeps
servers' error lines (core/backends/sse.py)."""

from __future__ import annotations

import time

import pytest

from desktop_agent.core.backends.reasons import is_context_reason, reason_text
from desktop_agent.core.backends.sse import SseEvent, sse_events


@pytest.mark.parametrize(
    "text",
    [
        "This model's maximum context length is 4096 tokens. However, you requested 11210 tokens",
        "context_length_exceeded",
        "exceed_context_size_error",
        "request (16000 tokens) exceeds the available context size (4096 tokens), try increasing it",
        "Requested tokens (11398) exceed context window of 4096",
        "the input length exceeds the context length",
        "prompt is too long: 200000 tokens > 100000 maximum",
        "n_ctx is 2048",
        "too many tokens in the prompt",
    ],
)
def test_context_reasons(text):
    assert is_context_reason(text)


@pytest.mark.parametrize(
    "text",
    ["Rate limit exceeded", "model 'x' not found", "Incorrect API key provided", "upstream connect error",
     "the model does not support tools", ""],
)  # fmt: skip
def test_other_reasons(text):
    assert not is_context_reason(text)


def test_reason_text_shapes():
    assert reason_text({"error": {"message": "boom"}}) == "boom"
    assert reason_text({"message": "boom", "type": "x"}) == "boom"
    assert reason_text('{"error": "boom"}') == "boom"
    assert reason_text({"detail": [{"msg": "field required"}]}) == "field required"
    assert reason_text(b"  plain\n text  ") == "plain text"
    assert reason_text("<html><body>x</body></html>", status=502) == "the server answered HTTP 502 with a web page"
    assert reason_text("oops", "text/html; charset=utf-8", 500) == "the server answered HTTP 500 with a web page"
    assert reason_text("{not json") == "{not json"
    assert reason_text("") == "" and reason_text(None) == ""
    assert len(reason_text("x" * 1000)) == 300


def test_sse_events_with_error_lines_and_split_line_ends():
    stream = [b"data: {\"a\": 1}\r", b"\n\r\n", b"event: error\ndata: one\ndata: two\n\n",
              b": a comment\nid: 3\nerror: {\"message\": \"late\"}\n\n", b"data: [DONE]"]  # fmt: skip
    assert list(sse_events(stream)) == [
        SseEvent('{"a": 1}'),
        SseEvent("one\ntwo", "error"),
        SseEvent('{"message": "late"}', "error"),
        SseEvent("[DONE]"),
    ]


def test_sse_events_lone_cr_line_ends_and_multibyte_text():
    data = 'data: {"t": "北京"}\r\rdata: x\r\r'.encode()
    assert list(sse_events([data[:9], data[9:]])) == [SseEvent('{"t": "北京"}'), SseEvent("x")]


def test_sse_reader_is_linear_in_a_long_line_split_into_small_chunks():
    from desktop_agent.core.backends.sse import sse_events

    line = b"data: " + b"a" * 20_000 + b"\n\n"
    t = time.perf_counter()
    events = list(sse_events(line[i:i + 1] for i in range(len(line))))  # a server trickling bytes
    took = time.perf_counter() - t
    assert len(events) == 1
    assert took < 1.0, f"{took:.1f} s of CPU for a 20 kB line"  # FAULT: ~20 s (quadratic rescans)
