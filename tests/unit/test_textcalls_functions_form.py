"""The local model the README documents (llama-cpp-python's server, chatml-function-calling) answered with its
tool call written as text — ``functions.NAME:`` then the arguments, quotes HTML-escaped — and the user saw
``functions.get_current_weather: {&#34;location&#34;…}`` as the answer. Such text is a tool call."""

from __future__ import annotations

import pytest

from desktop_agent.core.textcalls import JsonToolCallGate

TOOLS = {"get_current_weather", "calculate"}


def _run(text: str, chunk: int = 1):
    gate = JsonToolCallGate(TOOLS)
    shown = "".join(gate.feed(text[i:i + chunk]) for i in range(0, len(text), chunk))
    rest, calls = gate.finish()
    return shown + rest, [(c.name, c.arguments) for c in calls]


@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_the_functions_form_with_html_escaped_quotes_is_a_tool_call(chunk):
    text = "functions.get_current_weather:\n{&#34;location&#34;: &#34;Paris, France&#34;}"
    assert _run(text, chunk) == ("", [("get_current_weather", {"location": "Paris, France"})])


def test_several_calls_in_the_functions_form():
    text = 'functions.get_current_weather:\n{"location": "Oslo"}\nfunctions.calculate:\n{"expression": "2*3"}'
    assert _run(text) == ("", [("get_current_weather", {"location": "Oslo"}), ("calculate", {"expression": "2*3"})])


def test_escaped_json_objects_are_calls_too():
    text = "{&#34;name&#34;: &#34;calculate&#34;, &#34;arguments&#34;: {&#34;expression&#34;: &#34;1+1&#34;}}"
    assert _run(text) == ("", [("calculate", {"expression": "1+1"})])


@pytest.mark.parametrize("text", [
    "functions are first-class values in Python.",
    "functions.unknown_tool:\n{}",
    "functions.calculate:\nnot json",
    'functions.calculate:\n{"expression": "1"} and then some words',
])
def test_text_that_only_looks_like_the_form_stays_text(text):
    assert _run(text) == (text, [])


def test_ordinary_text_streams_without_waiting_for_the_end():
    gate = JsonToolCallGate(TOOLS)
    assert gate.feed("functions") == ""
    assert gate.feed(" are values") == "functions are values"
