"""Schema 6: the tool-call audit also holds calls from no chat (an MCP client of ``desktop-agent mcp serve``),
marked with their source; a schema-5 store keeps its audited chat calls through the migration."""

from __future__ import annotations

import sqlite3
import time

from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store import schema as store_schema
from desktop_agent.core.store.toolcalls import CHAT, MCP_CLIENT, AuditedCall, ToolAudit
from tests.helpers.store_versions import schema_of_version


def _call(tool: str, source: str = CHAT) -> AuditedCall:
    return AuditedCall("c1", tool, {"a": 1}, "allow", "default", None, None, "ok", 2.0, time.time(), source=source)


def test_a_call_from_an_mcp_client_is_audited_without_a_chat(tmp_path):
    with ConversationStore(tmp_path / "s.sqlite3") as store:
        conv = Conversation()
        store.add_message(conv, Message(role="user", content="hi"))
        audit = ToolAudit(store)
        audit.record(conv.id, _call("in_chat"))
        audit.record(None, _call("from_client", MCP_CLIENT))
        assert [c.tool for c in audit.calls(conv.id)] == ["in_chat"]
        [client] = audit.calls_from(MCP_CLIENT)
        assert client.tool == "from_client" and client.source == MCP_CLIENT
        store.delete(conv.id)  # a chat's rows go with it; the client's stay
        assert [c.tool for c in audit.calls_from(MCP_CLIENT)] == ["from_client"]


def test_a_schema_5_store_keeps_its_audit(tmp_path, monkeypatch):
    db = tmp_path / "s.sqlite3"
    with schema_of_version(monkeypatch, 5), ConversationStore(db) as old:
        conv = Conversation()
        old.add_message(conv, Message(role="user", content="hi"))
        with old.write() as conn:
            conn.execute("INSERT INTO tool_calls (conversation_id, call_id, tool, arguments, decision, decided_by, "
                         "rule_id, reason, status, duration_ms, started_at) VALUES (?, 'c1', 'fetch', '{}', 'deny', "
                         "'user', NULL, 'no', 'denied', 1.0, 5.0)", (conv.id,))
        assert old.conn.execute("PRAGMA user_version").fetchone() == (5,)
    with ConversationStore(db) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone() == (store_schema.schema_version(),)
        [row] = ToolAudit(store).calls(conv.id)
        assert (row.tool, row.decision, row.reason, row.source) == ("fetch", "deny", "no", CHAT)
        ToolAudit(store).record(None, _call("x", MCP_CLIENT))
        store.delete(conv.id)  # the foreign key survived the rebuild
        assert ToolAudit(store).calls(conv.id) == []
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM tool_calls").fetchone() == (1,)
    conn.close()
