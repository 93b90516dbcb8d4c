"""Reading other apps' MCP server files: VS Code's mcp.json (servers, type, ${env:…}, ${input:…}), Cursor's and
Claude Desktop's mcpServers, Zed's context_servers — written with comments and trailing commas as those apps write
them. An entry that cannot be mapped is listed with why; the rest are read."""

from __future__ import annotations

import json

import pytest

from desktop_agent.core.mcp.config import McpConfigError, fill_inputs, parse, secret_name, with_secrets
from desktop_agent.core.mcp.formats import read_jsonc

VSCODE = """
// VS Code: .vscode/mcp.json
{
  "inputs": [
    {"type": "promptString", "id": "github-token", "description": "GitHub Personal Access Token", "password": true},
    /* not used by any server below */
    {"type": "promptString", "id": "unused", "description": "never asked"},
  ],
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {"Authorization": "Bearer ${input:github-token}"},
    },
    "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "env": {"LANG": "${env:DA_TEST_LANG}"}},
    "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${userHome}/notes",
              "--token=${input:github-token}"]},
    "workspace": {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/server.js"]},
    "legacy": {"type": "sse", "url": "http://localhost:3001/sse"},
    "with-env-file": {"type": "stdio", "command": "python", "envFile": "${workspaceFolder}/.env"},
    "keyed": {"command": "tool", "env": {"SOME_VALUE": "${env:DA_TEST_API_KEY}"}},
  },
}
"""


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("DA_TEST_LANG", "fr_FR.UTF-8")
    monkeypatch.setenv("DA_TEST_API_KEY", "value-of-a-key-123")
    monkeypatch.setenv("HOME", "/home/someone")


def test_vscode_mcp_json_with_comments_inputs_and_env():
    found = parse(VSCODE)
    assert found.app == "VS Code"
    servers = {s.name: s for s in found.servers}
    assert set(servers) == {"github", "fetch", "files", "keyed"}
    skipped = "\n".join(found.skipped)
    assert "workspace: it uses ${workspaceFolder}" in skipped
    assert "legacy: it uses the older SSE transport" in skipped
    assert "with-env-file: its variables are in an envFile" in skipped
    assert servers["fetch"].command == "uvx" and servers["fetch"].env == {"LANG": "fr_FR.UTF-8"}
    assert servers["files"].args[2] == "/home/someone/notes"
    assert servers["github"].url == "https://api.githubcopilot.com/mcp/"
    assert servers["github"].secret_headers == ["Authorization"] and servers["github"].headers == {}
    # a value from a variable named like a secret is one, whatever the variable it goes into is called
    assert servers["keyed"].secret_env == ["SOME_VALUE"]
    assert found.secrets[secret_name("keyed", "env", "SOME_VALUE")] == "value-of-a-key-123"
    # the inputs are asked for (only those used), and never kept with their placeholder
    assert [p.id for p in found.prompts] == ["github-token"]
    assert found.prompts[0].description == "GitHub Personal Access Token" and found.prompts[0].password
    assert not any("${input:" in v for v in found.secrets.values())
    assert servers["files"].args[3] == "--token=" and servers["files"].secret_args == [3]
    notes = fill_inputs(found, {"github-token": "ghp_typed_by_the_user"})
    assert notes == []
    assert found.secrets[secret_name("github", "header", "Authorization")] == "Bearer ghp_typed_by_the_user"
    started = with_secrets(servers["files"], found.secrets)
    assert started.args[3] == "--token=ghp_typed_by_the_user"


def test_an_input_not_answered_leaves_the_secret_unset_not_literal():
    found = parse(VSCODE)
    notes = fill_inputs(found, {"github-token": None})
    assert not any("${input:" in v for v in found.secrets.values())
    assert secret_name("github", "header", "Authorization") not in found.secrets
    assert any(n.startswith("the header Authorization of github is not set: 'github-token' (GitHub Personal Access "
                            "Token) was not given") for n in notes)
    dumped = json.dumps([s.model_dump() for s in found.servers])
    assert "${input:" not in dumped


def test_an_unset_env_variable_is_said():
    found = parse('{"servers": {"a": {"type": "stdio", "command": "x", "env": {"HOST": "${env:DA_NOT_SET_HERE}"}}}}')
    assert found.servers[0].env == {"HOST": ""}
    assert any("DA_NOT_SET_HERE" in n and "not set here" in n for n in found.notes)


def test_cursor_and_claude_desktop_mcpservers():
    text = """{
      // Cursor: ~/.cursor/mcp.json
      "mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"],},
        "remote": {"url": "https://mcp.example.com/mcp", "headers": {"API_KEY": "${env:DA_TEST_API_KEY}"}},
        "old": {"type": "sse", "url": "https://mcp.example.com/sse"},
      },
    }"""
    found = parse(text)
    assert found.app == "Claude Desktop / Cursor"
    assert [s.name for s in found.servers] == ["time", "remote"]
    assert found.servers[1].secret_headers == ["API_KEY"]
    assert found.secrets[secret_name("remote", "header", "API_KEY")] == "value-of-a-key-123"
    assert found.skipped and found.skipped[0].startswith("old: it uses the older SSE transport")


def test_zed_context_servers_both_shapes_and_an_extension():
    text = """// Zed settings
    {
      "theme": "One Dark",
      "context_servers": {
        "postgres": {"command": {"path": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres"],
                                 "env": {"PGPASSWORD": "hunter22"}}},
        "git": {"source": "custom", "command": "uvx", "args": ["mcp-server-git"], "env": {}},
        "from-extension": {"source": "extension", "settings": {"token": "x"}},
      },
    }"""
    found = parse(text)
    assert found.app == "Zed"
    servers = {s.name: s for s in found.servers}
    assert servers["postgres"].command == "npx" and servers["postgres"].secret_env == ["PGPASSWORD"]
    assert servers["git"].args == ["mcp-server-git"]
    assert found.skipped == ["from-extension: a Zed extension provides it (its command is inside the extension): add "
                             "the server by hand"]


def test_jsonc_keeps_strings_with_comment_marks_and_says_where_an_error_is():
    assert read_jsonc('{"url": "http://x/y", "a": "/* no */", "b": [1, 2,], // c\n}') == {
        "url": "http://x/y", "a": "/* no */", "b": [1, 2]}
    assert read_jsonc('{"q": "say \\"hi\\", // not a comment"}') == {"q": 'say "hi", // not a comment'}
    with pytest.raises(McpConfigError, match="line 3"):
        parse('{\n  // a comment\n  "servers": {"a": {"command": "x"} oops}\n}')
    with pytest.raises(McpConfigError, match='no "mcpServers", "servers" or "context_servers"'):
        parse('{"theme": "dark"}')


def test_an_input_that_is_not_a_password_goes_into_the_plain_values_once_answered():
    found = parse("""{"inputs": [{"id": "dir", "password": false}, {"id": "tok", "description": "Token"}],
      "servers": {"s": {"command": "srv", "args": ["--root", "${input:dir}", "--token", "${input:tok}"],
                        "env": {"ROOT_DIR": "${input:dir}/x"}},
                  "t": {"command": "srv", "args": ["${input:dir}"]}}}""")
    s = next(x for x in found.servers if x.name == "s")
    assert s.secret_args == [3] and s.secret_env == [] and s.env == {"ROOT_DIR": "${input:dir}/x"}
    assert list(found.pending) == ["mcp:s:arg:3"]
    notes = fill_inputs(found, {"dir": "/data", "tok": None})
    s, t = found.servers
    assert s.args[:2] == ["--root", "/data"] and s.env == {"ROOT_DIR": "/data/x"} and t.args == ["/data"]
    assert found.secrets == {} and any("tok" in n and "not set" in n for n in notes)
    found = parse('{"inputs": [{"id": "dir", "password": false}], "servers": {"t": {"command": "srv", '
                  '"args": ["${input:dir}"]}}}')
    notes = fill_inputs(found, {})
    assert found.servers[0].args == [""] and any("'dir'" in n and "left empty in t" in n for n in notes)


def test_names_alike_once_cleaned_are_both_kept_and_accented_letters_stay_letters():
    found = parse('{"mcpServers": {"a b": {"command": "one"}, "a-b": {"command": "two"}, "a_b": {"command": "x"},'
                  ' "ünïcode": {"command": "three", "env": {"API_TOKEN": "tok-1234-abcd"}}, "Straße": '
                  '{"command": "four"}, "a  b": {"command": "five"}}}')
    names = {s.command: s.name for s in found.servers}
    assert names == {"one": "a-b", "two": "a-b-2", "x": "a_b", "three": "unicode", "four": "Strasse",
                     "five": "a-b-3"}
    assert "'a-b' is saved as 'a-b-2': 'a b' has the name 'a-b'" in found.notes
    assert "'ünïcode' is saved as 'unicode': a server's name is letters, digits, '.', '_' and '-'" in found.notes
    assert list(found.secrets) == ["mcp:unicode:env:API_TOKEN"]  # the secret follows the saved name
