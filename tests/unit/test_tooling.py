"""core/tools/: the @tool decorator, schemas derived by pydantic, and ToolRegistry.dispatch.

Shared cases covered here (tool-schema and dispatch parts): 13, 24, 25, 26, 27, 28, 30, 31.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
import threading
import time
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from desktop_agent.core.tools.decorator import TOOL_MARKER, ToolError, is_tool, tool
from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.docstrings import parse_docstring
from desktop_agent.core.tools.permissions import Answer, ChatPermissions
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.tools.results import ToolResult, cap_text
from desktop_agent.core.tools.schema import clean_schema


def walk_keys(node):
    """Every dict key anywhere in a JSON-like value."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield k
            yield from walk_keys(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk_keys(v)


def params_of(fn) -> dict:
    return Tool.from_function(fn).parameters


# ---------------------------------------------------------------------------------------------- @tool


def test_bare_decorator_returns_the_function_unchanged_and_marks_it():
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    decorated = tool(add)
    assert decorated is add
    assert add(2, 3) == 5
    assert is_tool(add)
    assert getattr(add, TOOL_MARKER).name is None


def test_decorator_with_options_keeps_function_and_records_options():
    @tool(name="sum_two", description="Sum.", requires_approval=True, timeout_s=2)
    def add(a: int, b: int) -> int:
        return a + b

    assert add(1, 1) == 2
    t = Tool.from_function(add, source="test")
    assert (t.name, t.description, t.requires_approval, t.timeout_s, t.source) == ("sum_two", "Sum.", True, 2, "test")


def test_tool_is_exported_for_tool_authors():
    import desktop_agent

    assert desktop_agent.tool is tool


def test_decorating_a_class_is_refused():
    with pytest.raises(TypeError):
        tool(type("X", (), {}))


def test_invalid_tool_name_is_refused_with_a_hint():
    with pytest.raises(ValueError, match="invalid tool name"):
        Tool(lambda: None)
    with pytest.raises(ValueError, match="name="):
        Tool(lambda: None, name="has space")


# ---------------------------------------------------------------------------------------------- schemas


def test_seed_002_weather_example_schema():
    """Seed 002: Annotated description + first docstring paragraph give exactly the OpenAI tools entry."""

    @tool
    def get_current_weather(
        location: Annotated[str, Field(description="城市与省份/州，例如：San Francisco, CA")],
    ) -> str:
        """获取指定位置的当前天气。

        此处的首段 docstring 会被 `Tool` 自动提取作为工具的 description。
        """
        return f"{location} 晴，25°C。"

    registry = ToolRegistry()
    registry.register(get_current_weather)
    assert registry.schemas() == [
        {
            "type": "function",
            "function": {
                "name": "get_current_weather",
                "description": "获取指定位置的当前天气。",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "location": {"type": "string", "description": "城市与省份/州，例如：San Francisco, CA"},
                    },
                    "required": ["location"],
                },
            },
        }
    ]
    result = registry.dispatch("get_current_weather", '{"location": "Boston"}')
    assert result.ok and result.content == "Boston 晴，25°C。"


class Period(BaseModel):
    kind: Literal["day", "week", "month"]


class Scope(BaseModel):
    shops: list[str] = []


def test_case_30_nested_models_are_inlined_without_ref_or_defs():
    """shared case 30-schema-nested-model-defs-ref.json: no $ref/$defs anywhere; period inlined and
    required, scope inlined and optional, docstring descriptions attached."""

    def sales_overview(period: Period, scope: Scope | None = None) -> str:
        """Summarise sales.

        Args:
            period: Time window to report on.
            scope: Optional filter by shops.
        """
        return "ok"

    params = params_of(sales_overview)
    keys = set(walk_keys(params))
    assert "$ref" not in keys and "$defs" not in keys and "definitions" not in keys
    assert "$ref" not in json.dumps(params)
    assert params["required"] == ["period"]
    assert params["properties"]["period"] == {
        "type": "object",
        "description": "Time window to report on.",
        "properties": {"kind": {"type": "string", "enum": ["day", "week", "month"]}},
        "required": ["kind"],
    }
    scope = params["properties"]["scope"]
    assert scope["type"] == "object"
    assert scope["description"] == "Optional filter by shops."
    assert scope["properties"]["shops"]["type"] == "array"
    assert scope["properties"]["shops"]["items"] == {"type": "string"}
    assert "anyOf" not in scope


def test_case_30_nested_object_sent_as_json_string_is_decoded_and_validated():
    """shared case 30-schema-nested-model-defs-ref.json: {"period": "{\\"kind\\": \\"week\\"}"} reaches the
    function as Period(kind='week') and scope=None."""
    seen = []

    def sales_overview(period: Period, scope: Scope | None = None) -> str:
        """Summarise sales."""
        seen.append((period, scope))
        return "ok"

    registry = ToolRegistry()
    registry.register(sales_overview)
    result = registry.dispatch("sales_overview", '{"period": "{\\"kind\\": \\"week\\"}"}')
    assert result.ok, result.content
    assert seen == [(Period(kind="week"), None)]
    assert isinstance(seen[0][0], Period)

    # the normal object form, and a nested scope as a string too
    registry.dispatch("sales_overview", {"period": {"kind": "day"}, "scope": '{"shops": ["north"]}'})
    assert seen[-1] == (Period(kind="day"), Scope(shops=["north"]))
    # a bad nested value is a validation error, not a call
    bad = registry.dispatch("sales_overview", {"period": {"kind": "year"}})
    assert bad.status == "error" and "period.kind" in bad.content
    assert len(seen) == 2


def test_case_31_optional_default_none_gets_a_type_and_is_not_required():
    """shared case 31-schema-optional-default-none.json: country has top-level type string, no anyOf,
    not required; num_results is {type: integer, default: 3}; only query is required; no title."""

    def google_search(query: str, num_results: int = 3, country: str | None = None) -> str:
        """Search the web.

        Args:
            query: Search terms.
            num_results: How many results.
            country: Two-letter country code.
        """
        return ""

    params = params_of(google_search)
    assert params == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search terms."},
            "num_results": {"type": "integer", "description": "How many results.", "default": 3},
            "country": {"type": "string", "description": "Two-letter country code."},
        },
        "required": ["query"],
    }
    assert "title" not in set(walk_keys(params))
    for prop in params["properties"].values():  # the strict-server rule of the case
        assert "type" in prop


def test_case_31_calls_get_defaults_and_explicit_nulls():
    """shared case 31-schema-optional-default-none.json: the three model calls."""
    calls = []

    def google_search(query: str, num_results: int = 3, country: str | None = None) -> str:
        """Search the web."""
        calls.append((query, num_results, country))
        return "results"

    registry = ToolRegistry()
    registry.register(google_search)
    for args in ({"query": "ollama"}, {"query": "ollama", "country": None},
                 {"query": "ollama", "country": "de", "num_results": 5}):
        assert registry.dispatch("google_search", json.dumps(args)).ok
    assert calls == [("ollama", 3, None), ("ollama", 3, None), ("ollama", 5, "de")]


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


def test_literal_enum_list_and_no_parameters():
    def paint(color: Color, finish: Literal["matte", "gloss"], tags: list[str], coats: int = 1) -> str:
        """Paint something."""
        return ""

    params = params_of(paint)
    assert params["properties"]["color"] == {"type": "string", "enum": ["red", "green"]}
    assert params["properties"]["finish"] == {"type": "string", "enum": ["matte", "gloss"]}
    assert params["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert params["required"] == ["color", "finish", "tags"]

    def ping() -> str:
        """Ping."""
        return "pong"

    assert params_of(ping) == {"type": "object", "properties": {}}


def test_single_value_literal_becomes_enum_not_const():
    def f(mode: Literal["fast"] = "fast") -> str:
        """F."""
        return mode

    assert params_of(f)["properties"]["mode"] == {"type": "string", "enum": ["fast"], "default": "fast"}


def test_union_of_simple_types_with_none_keeps_a_type():
    def f(value: int | str | None = None) -> str:
        """F."""
        return ""

    prop = params_of(f)["properties"]["value"]
    assert prop == {"type": ["integer", "string"]}


def test_parameter_named_title_is_kept_while_title_noise_is_dropped():
    def note(title: str, json: str = "", model_name: str = "", _private: int = 0) -> str:
        """Write a note."""
        return title + json + model_name + str(_private)

    params = params_of(note)
    assert list(params["properties"]) == ["title", "json", "model_name", "_private"]
    assert params["properties"]["title"] == {"type": "string"}
    registry = ToolRegistry()
    registry.register(note)
    assert registry.dispatch("note", {"title": "a", "json": "b", "model_name": "c", "_private": 4}).content == "abc4"


class Node(BaseModel):
    name: str
    children: list[Node] = []


class Officer(BaseModel):
    """A chain of command: officer → unit → officer … (mutually recursive models)."""

    rank: str
    unit: Unit | None = None


class Unit(BaseModel):
    title: str
    commander: Officer | None = None


class Opaque:
    pass


def test_recursive_model_has_no_ref_and_terminates():
    def tree(root: Node) -> str:
        """Walk a tree."""
        return root.name

    params = params_of(tree)
    assert "$ref" not in set(walk_keys(params))
    assert params["properties"]["root"]["properties"]["children"]["items"]["type"] == "object"


def test_mutually_recursive_models_are_spelled_out_to_a_bound_then_named():
    """Officer → Unit → Officer …: each model three times, then a plain object naming the fields it has."""
    def command(top: Officer) -> str:
        """Walk a chain of command."""
        return top.rank

    level = params_of(command)["properties"]["top"]
    seen = []
    while "properties" in level:
        seen.append(sorted(level["properties"]))
        level = level["properties"].get("unit") or level["properties"]["commander"]
    assert seen == [["rank", "unit"], ["commander", "title"]] * 3
    assert level == {"type": "object", "description":
                     "Another Officer: an object with the same fields as the Officer above (rank, unit)."}
    registry = ToolRegistry()
    registry.register(command)
    chain = {"rank": "general", "unit": {"title": "army", "commander": {"rank": "colonel", "unit": {"title": "x"}}}}
    assert registry.dispatch("command", {"top": chain}).content == "general"


def test_descriptions_from_annotated_win_over_docstring_and_args_section_is_parsed():
    def book(
        city: Annotated[str, Field(description="From Annotated.")],
        nights: int,
        guests: int = 1,
        note: str = "",
    ) -> str:
        """Book a hotel room.

        Second paragraph is not part of the description.

        Args:
            city: From the docstring (loses).
            nights (int): How many nights,
                counted from today.
            guests: Number of guests.

        Returns:
            A confirmation.
        """
        return ""

    t = Tool.from_function(book)
    assert t.description == "Book a hotel room."
    props = t.parameters["properties"]
    assert props["city"]["description"] == "From Annotated."
    assert props["nights"]["description"] == "How many nights, counted from today."
    assert props["guests"]["description"] == "Number of guests."
    assert "description" not in props["note"]


def test_parse_docstring_variants():
    assert parse_docstring(None) == ("", {})
    assert parse_docstring("One line.") == ("One line.", {})
    desc, params = parse_docstring("""Multi
        line summary.
        Args:
            a: first
        """)
    assert desc == "Multi line summary."
    assert params == {"a": "first"}
    desc, params = parse_docstring("""Sphinx style.

        :param city: The city.
        :param int count: How many
            of them.
        :returns: text
        """)
    assert desc == "Sphinx style."
    assert params == {"city": "The city.", "count": "How many of them."}


def test_description_override_and_empty_docstring():
    @tool(description="Custom text.")
    def f() -> str:
        """Ignored."""
        return ""

    def g() -> str:
        return ""

    assert Tool.from_function(f).description == "Custom text."
    assert Tool.from_function(g).description == ""


def test_unsupported_parameter_type_raises_type_error_naming_it():
    def f(ok: int, thing: Opaque) -> str:
        """F."""
        return ""

    with pytest.raises(TypeError, match="parameter 'thing'"):
        Tool.from_function(f)


def test_unresolvable_type_hint_raises_type_error():
    def f(x: NoSuchType) -> str:  # noqa: F821
        """F."""
        return ""

    with pytest.raises(TypeError, match="type hints"):
        Tool.from_function(f)


def test_clean_schema_folds_allof_and_keeps_top_level_object():
    raw = {
        "title": "x",
        "properties": {"a": {"allOf": [{"$ref": "#/$defs/A"}], "description": "d"}},
        "$defs": {"A": {"title": "A", "type": "object", "properties": {"n": {"type": "integer", "title": "N"}}}},
    }
    assert clean_schema(raw) == {
        "type": "object",
        "properties": {"a": {"type": "object", "description": "d", "properties": {"n": {"type": "integer"}}}},
    }


def test_cancel_parameter_is_hidden_from_the_model():
    def slow(n: int, cancel: threading.Event) -> str:
        """Slow."""
        return str(cancel.is_set())

    t = Tool.from_function(slow)
    assert t.accepts_cancel
    assert list(t.parameters["properties"]) == ["n"]
    registry = ToolRegistry()
    registry.register(slow)
    assert registry.dispatch("slow", {"n": 1}).content == "False"


# ---------------------------------------------------------------------------------------------- registry


def _greet(name: str) -> str:
    """Greet."""
    return f"hi {name}"


def test_register_duplicate_name_raises_value_error_naming_it():
    registry = ToolRegistry()
    registry.register(_greet, source="shipped")

    def other(name: str) -> str:
        return name

    with pytest.raises(ValueError, match=r"'_greet'.*shipped"):
        registry.register(tool(name="_greet")(other))
    assert len(registry) == 1


def test_registry_accessors_keep_registration_order():
    registry = ToolRegistry()

    def b() -> str:
        """B."""
        return "b"

    def a() -> str:
        """A."""
        return "a"

    tb = registry.register(b)
    registry.register(Tool(a, source="x"))
    assert registry.names() == ["b", "a"]
    assert [t.name for t in registry] == ["b", "a"]
    assert registry.get("b") is tb and registry.get("zzz") is None
    assert "a" in registry and len(registry) == 2
    assert [s["function"]["name"] for s in registry.schemas()] == ["b", "a"]
    # schemas are copies
    registry.schemas()[0]["function"]["parameters"]["properties"]["x"] = {}
    assert registry.get("b").parameters["properties"] == {}


# ---------------------------------------------------------------------------------------------- dispatch


@pytest.fixture
def registry():
    reg = ToolRegistry(timeout_s=5)

    @tool
    def get_weather(city: str) -> str:
        """Weather."""
        return f"sunny in {city}"

    @tool
    def get_time() -> str:
        """Time."""
        return "noon"

    reg.register(get_weather)
    reg.register(get_time)
    return reg


@pytest.mark.parametrize("arguments", ['{"city": "Paris"}', {"city": "Paris"}, ' {"city": "Paris"} ',
                                       '"{\\"city\\": \\"Paris\\"}"'])
def test_dispatch_accepts_json_text_dicts_and_double_encoded_text(registry, arguments):
    result = registry.dispatch("get_weather", arguments)
    assert result.ok and result.status == "ok"
    assert result.content == result.full == "sunny in Paris"
    assert result.arguments == {"city": "Paris"}
    assert result.error is None and result.duration_ms >= 0


@pytest.mark.parametrize("arguments", [None, "", "   ", {}])
def test_dispatch_no_arguments(registry, arguments):
    assert registry.dispatch("get_time", arguments).content == "noon"


def test_case_24_unknown_tool_lists_available_ones(registry):
    """shared case 24-agent-unknown-tool-name.json: a readable error listing the tools, never raise."""
    result = registry.dispatch("get_wether", '{"city": "Paris"}')
    assert not result.ok and result.status == "error"
    assert result.content.startswith(
        "Error: tool 'get_wether' does not exist. Available tools: get_weather, get_time")
    assert "Did you mean 'get_weather'?" in result.content
    assert result.error == result.content


def test_case_13_malformed_json_arguments_give_the_parse_error_and_do_not_run():
    """shared case 13-openai-malformed-args-json.json: unescaped inner quotes → error with the parse
    error; write_note is not run. Trailing text after a JSON object is recovered."""
    written = []

    def write_note(path: str, text: str) -> str:
        """Write."""
        written.append((path, text))
        return "ok"

    def get_weather(city: str) -> str:
        """Weather."""
        return city

    reg = ToolRegistry()
    reg.register(write_note)
    reg.register(get_weather)
    bad = reg.dispatch("write_note", '{"path": "notes/a.txt", "text": "He said "hi" then left"}')
    assert bad.status == "error" and not written
    assert "not valid JSON" in bad.content and "delimiter" in bad.content
    assert bad.arguments is None
    trailing = reg.dispatch("get_weather", '{"city": "Paris"} </tool_call>')
    assert trailing.ok and trailing.content == "Paris"


@pytest.mark.parametrize("arguments", ["[1, 2]", "42", [1, 2], 3.5])
def test_arguments_that_are_not_an_object_are_an_error(registry, arguments):
    result = registry.dispatch("get_weather", arguments)
    assert result.status == "error" and "JSON object" in result.content


def test_case_25_huge_output_is_capped_with_marker_and_full_kept():
    """shared case 25-agent-huge-tool-output.json: content capped with '[output truncated: 2,000,004
    characters total]'; the full output stays in the result for the UI."""

    def read_file(path: str) -> str:
        """Read."""
        return "x" * 2_000_000 + "\nEND"

    reg = ToolRegistry(output_cap=16_000)
    reg.register(read_file)
    result = reg.dispatch("read_file", '{"path": "big.log"}')
    assert result.ok
    assert len(result.content) <= 16_000
    assert result.content.endswith("[output truncated: 2,000,004 characters total]")
    assert result.content.startswith("x" * 1000)
    assert len(result.full) == 2_000_004 and result.full.endswith("\nEND")


def test_cap_text_edges():
    assert cap_text("short", 100) == "short"
    assert cap_text("y" * 50, None) == "y" * 50
    assert cap_text("y" * 50, 0) == "y" * 50
    capped = cap_text("y" * 200, 100)
    assert len(capped) == 100 and capped.endswith("[output truncated: 200 characters total]")


def test_case_26_unicode_results_and_escaped_arguments():
    """shared case 26-agent-unicode-args-and-results.json: '北京' reaches the tool in both the literal
    and the \\u-escaped argument variants, and the result text has no \\u escapes."""
    got = []

    def get_weather(city: str) -> dict:
        """Weather."""
        got.append(city)
        return {"city": city, "desc": "晴，气温 21°C"}

    reg = ToolRegistry()
    reg.register(get_weather)
    for raw in ('{"city": "北京"}', '{"city": "\\u5317\\u4eac"}', {"city": "北京"}):
        result = reg.dispatch("get_weather", raw)
        assert result.ok
        assert "晴，气温 21°C" in result.content and "北京" in result.content
        assert "\\u" not in result.content
        assert json.loads(result.content) == {"city": "北京", "desc": "晴，气温 21°C"}
    assert got == ["北京", "北京", "北京"]


def test_case_27_exception_becomes_error_result_without_traceback():
    """shared case 27-agent-tool-raises.json: 'Error: ValueError: customer 42 not found', no traceback;
    the bad-type variant is rejected by validation before the function is called."""
    calls = []

    def lookup_customer(customer_id: int) -> str:
        """Look up a customer."""
        calls.append(customer_id)
        raise ValueError("customer 42 not found")

    reg = ToolRegistry()
    reg.register(lookup_customer)
    result = reg.dispatch("lookup_customer", '{"customer_id": 42}')
    assert result.status == "error" and not result.ok
    assert result.content == "Error: ValueError: customer 42 not found"
    assert result.error == result.content
    assert "Traceback" not in result.full and "File " not in result.full
    assert calls == [42]

    bad = reg.dispatch("lookup_customer", {"customer_id": "forty-two"})
    assert bad.status == "error"
    assert bad.content.startswith("Error: invalid arguments for tool 'lookup_customer': customer_id:")
    assert "'forty-two'" in bad.content and "errors.pydantic.dev" not in bad.content
    assert calls == [42]  # never called with the bad value

    missing = reg.dispatch("lookup_customer", {})
    assert "customer_id: missing" in missing.content
    assert calls == [42]


def test_tool_error_message_is_sent_alone_and_other_exceptions_are_named():
    def a() -> str:
        """A."""
        raise ToolError("the service is down")

    def b() -> str:
        """B."""
        raise KeyError("k")

    def c() -> str:
        """C."""
        raise SystemExit(3)

    reg = ToolRegistry()
    for f in (a, b, c):
        reg.register(f)
    assert reg.dispatch("a", None).content == "Error: the service is down"
    assert reg.dispatch("b", None).content == "Error: KeyError: 'k'"
    assert reg.dispatch("c", None).content == "Error: SystemExit: 3"


def test_case_28_hung_tool_times_out_and_its_thread_is_an_abandoned_daemon():
    """shared case 28-agent-tool-hangs.json: a tool that never returns is abandoned after its timeout
    with a readable 'timed out after N s' result; the worker thread is a daemon so exit is clean, and
    the tool's cancel event is set so a cooperative tool can stop."""
    release = threading.Event()
    tool_cancel: list[threading.Event] = []

    @tool(timeout_s=0.5)
    def run_tests(cancel: threading.Event) -> str:
        """Run the tests."""
        tool_cancel.append(cancel)
        release.wait(60)  # "hangs" until the test releases it
        return "done"

    reg = ToolRegistry(timeout_s=30)
    reg.register(run_tests)
    try:
        result = reg.dispatch("run_tests", "{}")
        assert result.status == "timeout" and not result.ok
        assert result.content == "Error: tool 'run_tests' timed out after 0.5 s"
        assert result.duration_ms >= 500
        workers = [t for t in threading.enumerate() if t.name == "tool:run_tests"]
        assert workers and all(t.daemon for t in workers)
        assert tool_cancel and tool_cancel[0].is_set()
    finally:
        release.set()


def test_registry_default_timeout_applies_to_tools_without_their_own():
    release = threading.Event()

    def stuck() -> str:
        """Stuck."""
        release.wait(60)
        return ""

    reg = ToolRegistry(timeout_s=0.3)
    reg.register(stuck)
    try:
        result = reg.dispatch("stuck", None)
        assert result.status == "timeout"
        assert result.content == "Error: tool 'stuck' timed out after 0.3 s"
    finally:
        release.set()


def test_cancel_while_tool_runs_returns_cancelled_and_tells_the_tool():
    started = threading.Event()
    seen: list[threading.Event] = []

    def long_job(cancel: threading.Event) -> str:
        """Long."""
        seen.append(cancel)
        started.set()
        cancel.wait(60)
        return "stopped" if cancel.is_set() else "finished"

    reg = ToolRegistry(timeout_s=30)
    reg.register(long_job)
    user_stop = threading.Event()

    def press_stop():
        started.wait(10)
        time.sleep(0.1)
        user_stop.set()

    threading.Thread(target=press_stop, daemon=True).start()
    result = reg.dispatch("long_job", None, cancel=user_stop)
    assert result.status == "cancelled" and not result.ok
    assert "cancelled" in result.content
    assert seen[0].is_set()
    assert result.duration_ms < 10_000  # generous: it returns on Stop, not at the 30 s timeout


def test_cancel_set_before_dispatch_does_not_run_the_tool():
    ran = []

    def f() -> str:
        """F."""
        ran.append(1)
        return ""

    reg = ToolRegistry()
    reg.register(f)
    stop = threading.Event()
    stop.set()
    assert reg.dispatch("f", None, cancel=stop).status == "cancelled"
    assert ran == []


def test_approval_required():
    """An "ask" tool asks the chat's asker; without one it is denied (the function never runs); an asker that
    fails has not allowed. (Was: the registry's approver; now the permission engine inside dispatch.)"""
    ran = []
    asked = []

    @tool(requires_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file."""
        ran.append(path)
        return "deleted"

    no_approver = ToolRegistry()
    no_approver.register(delete_file)
    result = no_approver.dispatch("delete_file", {"path": "a"})
    assert result.status == "denied" and ran == []
    assert result.decision.by == "default" and "approval" in result.content

    def asker(request):
        asked.append((request.tool.name, request.arguments))
        return Answer("once") if request.arguments["path"] == "ok.txt" else Answer("deny", reason="not that one")

    reg = ToolRegistry()
    reg.register(delete_file)
    chat = ChatPermissions("c1", asker)
    denied = reg.dispatch("delete_file", {"path": "secret"}, chat=chat)
    assert denied.status == "denied" and "not that one" in denied.content
    assert reg.dispatch("delete_file", {"path": "ok.txt"}, chat=chat).content == "deleted"
    assert asked == [("delete_file", {"path": "secret"}), ("delete_file", {"path": "ok.txt"})]
    assert ran == ["ok.txt"]

    def broken(request):
        raise RuntimeError("dialog closed")

    assert reg.dispatch("delete_file", {"path": "ok.txt"}, chat=ChatPermissions("c1", broken)).status == "denied"
    assert ran == ["ok.txt"]


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Reading(BaseModel):
    sensor: str
    value: float


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain text", "plain text"),
        (42, "42"),
        (None, "null"),
        ([1, "二"], '[1, "二"]'),
        (Point(1, 2), '{"x": 1, "y": 2}'),
        (Reading(sensor="t", value=1.5), '{"sensor": "t", "value": 1.5}'),
        (
            {"when": __import__("datetime").date(2024, 2, 29), "color": Color.RED},
            '{"when": "2024-02-29", "color": "red"}',
        ),
        ({"tags": {"b", "a"}}, '{"tags": ["a", "b"]}'),
    ],
)
def test_results_are_text_or_json_without_ascii_escapes(value, expected):
    def produce() -> object:
        """Produce."""
        return value

    reg = ToolRegistry()
    reg.register(produce)
    assert reg.dispatch("produce", None).content == expected


def test_arbitrary_object_result_falls_back_to_str():
    class Thing:
        def __str__(self):
            return "a thing"

    def produce() -> object:
        """Produce."""
        return {"t": Thing()}

    reg = ToolRegistry()
    reg.register(produce)
    assert reg.dispatch("produce", None).content == '{"t": "a thing"}'


def test_async_tool_and_positional_only_parameters():
    async def fetch(url: str) -> str:
        """Fetch."""
        await asyncio.sleep(0)
        return "got " + url

    def power(base: int, exp: int = 2, /) -> int:
        """Power."""
        return base**exp

    reg = ToolRegistry()
    reg.register(fetch)
    reg.register(power)
    assert reg.dispatch("fetch", {"url": "x"}).content == "got x"
    assert reg.dispatch("power", {"base": 3}).content == "9"
    assert reg.dispatch("power", {"base": 2, "exp": 10}).content == "1024"


def test_lenient_validation_extra_arguments_ignored_numbers_coerced():
    got = []

    def f(name: str, count: int = 1) -> str:
        """F."""
        got.append((name, count))
        return "ok"

    reg = ToolRegistry()
    reg.register(f)
    assert reg.dispatch("f", {"name": 12345, "count": "3", "unexpected": True}).ok
    assert got == [("12345", 3)]


def test_unregistered_marked_function_keeps_defaults_when_registered_plain():
    def plain(x: int) -> int:
        """Plain."""
        return x * 2

    reg = ToolRegistry()
    t = reg.register(plain, source="inline")
    assert t.source == "inline" and t.timeout_s is None and not t.requires_approval
    assert reg.dispatch("plain", {"x": 4}).content == "8"


def test_tool_result_failure_helper():
    r = ToolResult.failure("t", "bad thing", status="denied")
    assert (r.ok, r.status, r.content, r.error) == (False, "denied", "Error: bad thing", "Error: bad thing")
    assert not r.truncated


def test_an_expected_tool_error_logs_one_line(caplog):
    """A tool's own refusal (ToolError) is an expected outcome: one log line, no traceback."""
    import logging

    from desktop_agent import ToolError, tool
    from desktop_agent.core.tools.registry import ToolRegistry

    @tool
    def pick(city: str) -> str:
        """Pick a city."""
        raise ToolError(f"no such city: {city}")

    registry = ToolRegistry()
    registry.register(pick)
    with caplog.at_level(logging.DEBUG, logger="desktop_agent"):
        result = registry.dispatch("pick", {"city": "Atlantis"})
    assert result.status == "error" and "no such city" in (result.error or result.content)
    records = [r for r in caplog.records if "pick" in r.getMessage()]
    assert len(records) == 1 and records[0].exc_info is None
