"""The MCP server editor (ui/settings/mcp_server_editor.py) keeps secrets out of the settings: a token typed into a
plain field goes to the keyring like an imported one, and editing an imported server keeps its secret arguments
and URL credentials in the keyring instead of dropping them."""

from __future__ import annotations

import json

from desktop_agent.core.mcp.config import parse, secret_name, with_secrets
from desktop_agent.core.settings import McpServerSettings
from desktop_agent.ui.settings.mcp_server_editor import McpServerEditor

TOKEN = "ghp_" + "A" * 36


def _editor(qtbot, server):
    editor = McpServerEditor(server, taken=set(), stored=set())
    qtbot.addWidget(editor)
    return editor


def test_a_token_typed_into_the_arguments_or_an_unmarked_row_goes_to_the_keyring(qtbot):
    editor = _editor(qtbot, None)
    editor.name.setText("gh")
    editor.command.setText("npx")
    editor.args.setText(f"-y server --token={TOKEN} postgresql://me:hunter2@localhost/db")
    editor.env.add_row("GITHUB_TOKEN", TOKEN)
    server, secrets = editor.check()
    assert server is not None
    saved = server.model_dump_json()
    assert TOKEN not in saved and "hunter2" not in saved
    assert secrets[secret_name("gh", "env", "GITHUB_TOKEN")] == TOKEN
    started = with_secrets(server, secrets)
    assert started.args == ["-y", "server", f"--token={TOKEN}", "postgresql://me:hunter2@localhost/db"]
    assert started.env["GITHUB_TOKEN"] == TOKEN


def test_a_url_with_a_key_typed_in_settings_goes_to_the_keyring(qtbot):
    editor = _editor(qtbot, None)
    editor.name.setText("remote")
    editor.remote_radio.setChecked(True)
    editor.url.setText("https://mcp.example.com/mcp?api_key=s3cr3tvalue123")
    server, secrets = editor.check()
    assert server is not None and "s3cr3tvalue123" not in server.model_dump_json()
    assert with_secrets(server, secrets).url == "https://mcp.example.com/mcp?api_key=s3cr3tvalue123"


def test_editing_an_imported_server_keeps_its_secret_arguments_and_url(qtbot):
    imported = parse(json.dumps({"mcpServers": {"gh": {"command": "npx", "args": ["--token", TOKEN]},
                                                "web": {"url": "https://u:pw12345678@mcp.example.com/mcp"}}}))
    by_name = {s.name: s for s in imported.servers}
    gh, web = by_name["gh"], by_name["web"]
    assert gh.secret_args == [1] and web.secret_url
    server, _secrets = _editor(qtbot, gh).check()
    assert server is not None and server.secret_args == [1]
    assert with_secrets(server, imported.secrets).args == ["--token", TOKEN]
    server, _secrets = _editor(qtbot, web).check()
    assert server is not None and server.secret_url
    assert with_secrets(server, imported.secrets).url == "https://u:pw12345678@mcp.example.com/mcp"


def test_a_database_url_with_a_password_is_kept_out_of_an_imported_file():
    imported = parse('{"mcpServers": {"pg": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres",'
                     ' "postgresql://me:hunter2@localhost/db"], "env": {"DATABASE_URL": "postgres://a:pw9@h/db"}}}}')
    server = imported.servers[0]
    assert "hunter2" not in server.model_dump_json() and "pw9" not in server.model_dump_json()
    assert with_secrets(server, imported.secrets).env["DATABASE_URL"] == "postgres://a:pw9@h/db"
    assert isinstance(server, McpServerSettings)
