"""Registry names of MCP tools (core/mcp/tools.py registry_name): the same server and tool always get the same
name whatever else is configured, so a rule kept by name never moves to another server's tool."""

from __future__ import annotations

import re
from types import SimpleNamespace

from desktop_agent.core.mcp.tools import McpTool, registry_name
from desktop_agent.core.tools.permissions import PermissionEngine, Scope

VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_two_servers_whose_names_join_alike_never_share_a_name():
    pairs = [("a", "b__c"), ("a__b", "c"), ("my.server", "x"), ("my_server", "x"), ("a_", "_b"), ("a", "__b"),
             ("a", "b"), ("srv", "read.file"), ("srv", "read_file")]
    names = [registry_name(server, tool) for server, tool in pairs]
    assert len(set(names)) == len(names)
    assert all(VALID.match(name) for name in names)


def test_a_name_does_not_depend_on_which_server_was_listed_first():
    first = registry_name("a__b", "c", taken={registry_name("a", "b__c")})
    alone = registry_name("a__b", "c")
    assert first == alone
    assert registry_name("a", "b__c", taken={alone}) == registry_name("a", "b__c")


def test_plain_names_stay_readable():
    assert registry_name("time", "get_current_time") == "time__get_current_time"
    assert registry_name("everything", "get-sum") == "everything__get-sum"
    assert registry_name("my-server", "x") == "my-server__x"


def test_unicode_and_very_long_tool_names_get_a_valid_distinct_name():
    names = {registry_name("s", "werkzeug_ü"), registry_name("s", "werkzeug_ö"), registry_name("s", "t" * 300),
             registry_name("s", "t" * 301), registry_name("s", "🙂"), registry_name("s", "🙃")}
    assert len(names) == 6 and all(VALID.match(n) for n in names)


def test_a_rule_for_one_servers_tool_does_not_decide_the_other_servers_tool():
    """Server ``a`` tool ``b__c`` approved "always"; with ``a`` down, server ``a__b`` tool ``c`` must still ask."""
    info = SimpleNamespace(name="c", description="", input_schema={"type": "object"}, annotations=None)
    other = McpTool(None, "a__b", info, registry_name("a__b", "c"))  # type: ignore[arg-type]
    engine = PermissionEngine()
    engine.rules.add(registry_name("a", "b__c"), Scope("tool"), "allow")
    decision = engine.check(other, {})
    assert not decision.allowed
