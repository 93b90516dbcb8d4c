"""What saving the MCP servers page changes in the keyring (desktop_agent.core.mcp.secret_changes)."""

from __future__ import annotations

from desktop_agent.core.mcp.secret_changes import secret_keys, secret_writes
from desktop_agent.core.settings import McpServerSettings


def server(name: str, env: list[str] = (), headers: list[str] = (), **kw) -> McpServerSettings:
    return McpServerSettings(name=name, command="x", secret_env=list(env), secret_headers=list(headers), **kw)


def test_secret_keys_name_each_env_and_header_secret():
    s = McpServerSettings(name="gh", url="https://h.example/mcp", secret_headers=["Authorization"])
    assert secret_keys(s) == [("mcp:gh:header:Authorization", "header", "Authorization")]
    assert secret_keys(server("a", ["T"])) == [("mcp:a:env:T", "env", "T")]


def test_typed_values_are_written_and_cleared_ones_deleted():
    before = [server("a", ["T", "U"])]
    writes, copies = secret_writes(before, before, {"a": "a"}, {"mcp:a:env:T": "new", "mcp:a:env:U": None})
    assert writes == {"mcp:a:env:T": "new", "mcp:a:env:U": None} and copies == {}


def test_a_removed_server_or_row_loses_its_secrets_and_a_value_typed_for_it_is_not_written():
    before = [server("a", ["T"]), server("b", ["K", "L"])]
    after = [server("b", ["K"])]
    writes, copies = secret_writes(before, after, {"b": "b"}, {"mcp:a:env:T": "typed-then-removed"})
    assert writes == {"mcp:a:env:T": None, "mcp:b:env:L": None} and copies == {}


def test_a_renamed_server_takes_its_secrets_along_unless_a_new_value_was_typed():
    before = [server("a", ["T", "U"])]
    after = [server("b", ["T", "U"])]
    writes, copies = secret_writes(before, after, {"b": "a"}, {"mcp:b:env:U": "typed"})
    assert copies == {"mcp:b:env:T": "mcp:a:env:T"}
    assert writes == {"mcp:b:env:U": "typed", "mcp:a:env:T": None, "mcp:a:env:U": None}


def test_a_new_server_copies_nothing():
    writes, copies = secret_writes([], [server("n", ["T"])], {"n": ""}, {})
    assert writes == {} and copies == {}
