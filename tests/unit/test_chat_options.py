"""A chat's own options: setting overrides limited to a few keys, applied per turn (ChatSession.effective), tools
left out by name (ToolRegistry.subset / without, build_agent), saved by the store (schema 4), exported and
imported with the chat."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from desktop_agent.core.assembly import Assembly, build_agent
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.session import ChatSession
from desktop_agent.core.settings import CHAT_OPTION_KEYS, Settings, chat_options
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store import schema as store_schema
from desktop_agent.core.tools.permissions import PermissionEngine
from desktop_agent.core.tools.registry import ToolRegistry
from tests.helpers.store_versions import messages_sql, schema_of_version, tables_before_7

from .scripted import ScriptedBackend, text

# ------------------------------------------------------------------------------------------- settings


def test_tools_disabled_is_a_tool_setting_defaulting_to_none():
    assert Settings().tools.disabled == []
    assert Settings().updated({"tools.disabled": ["calculator"]}).tools.disabled == ["calculator"]


def test_chat_options_keep_only_the_allowed_keys_and_valid_values():
    assert CHAT_OPTION_KEYS == ("tools.enabled", "tools.disabled", "tools.offer_anyway", "generation.temperature",
                                "generation.think", "generation.format", "backend", "ollama.model", "openai.model",
                                "loop.system_prompt")
    given = {
        "generation.temperature": 1,  # normalised to a float
        "generation.think": None,  # "the model's default" is an override too (Settings may say on)
        "tools.disabled": ["a", "b", "a"],
        "ollama.host": "http://evil.example",  # never from a chat: where requests go
        "openai.base_url": "http://evil.example/v1",
        "loop.system_prompt": "Answer in French.",  # a chat's own prompt (and model) it keeps
        "backend": "llamacpp",  # not a backend the settings know
        "generation.format": "xml",  # not a value the settings accept
    }
    assert chat_options(given) == {"tools.disabled": ["a", "b"], "generation.temperature": 1.0,
                                   "generation.think": None, "loop.system_prompt": "Answer in French."}
    assert chat_options(None) == {} and chat_options(["tools.enabled"]) == {}  # type: ignore[arg-type]
    assert chat_options({"generation.temperature": 5}) == {}  # out of range
    assert Conversation(options=given).options == chat_options(given)


def test_effective_settings_are_the_defaults_with_the_chat_options():
    defaults = Settings(temperature=0.2, think=True)
    session = ChatSession(Conversation())
    assert session.effective(defaults) is defaults  # a new chat starts from the defaults
    session.conversation.options = {"generation.temperature": 0.7, "generation.think": None,
                                    "tools.enabled": False, "ollama.model": "other", "ollama.host": "http://x:1"}
    eff = session.effective(defaults)
    assert eff.generation.temperature == 0.7 and eff.generation.think is None and not eff.tools.enabled
    assert eff.ollama.model == "other"  # the chat's own model
    assert eff.ollama.host == defaults.ollama.host  # not a chat option: ignored
    assert defaults.generation.temperature == 0.2  # unchanged


def test_a_saved_chat_without_a_model_of_its_own_keeps_the_one_that_answered_in_it():
    defaults = Settings(backend="ollama", ollama_model="llama3.2")
    unanswered = Conversation(backend="openai", model="gpt-4o", messages=[Message(role="user", content="hi")])
    assert ChatSession(unanswered).effective(defaults) is defaults  # (its first turn failed: the settings apply)
    answered = Conversation(backend="openai", model="gpt-4o", messages=[
        Message(role="user", content="hi"), Message(role="assistant", content="hello", model="gpt-4o")])
    eff = ChatSession(answered).effective(defaults)
    assert (eff.backend, eff.openai.model) == ("openai", "gpt-4o")
    answered.options = {"backend": "ollama", "ollama.model": "qwen3"}  # chosen later: the choice wins
    eff = ChatSession(answered).effective(defaults)
    assert (eff.backend, eff.model) == ("ollama", "qwen3")
    assert ChatSession(Conversation(backend="openai", model="gpt-4o")).effective(defaults) is defaults  # no message


# ------------------------------------------------------------------------------------------- registry


def _registry() -> ToolRegistry:
    reg = ToolRegistry(timeout_s=3.0, output_cap=500, permissions=PermissionEngine())

    def alpha() -> str:
        """First."""
        return "a"

    def beta() -> str:
        """Second."""
        return "b"

    def gamma() -> str:
        """Third."""
        return "c"

    for fn in (alpha, beta, gamma):
        reg.register(fn)
    return reg


def test_subset_and_without_share_the_tools_and_the_limits():
    reg = _registry()
    sub = reg.subset(["gamma", "alpha", "nope"])
    assert sub.names() == ["alpha", "gamma"]  # the registry's order; unknown names ignored
    assert sub.get("alpha") is reg.get("alpha") and sub.get("gamma") is reg.get("gamma")  # same objects
    assert (sub.timeout_s, sub.output_cap, sub.permissions) == (reg.timeout_s, reg.output_cap, reg.permissions)
    rest = reg.without(["beta"])
    assert rest.names() == ["alpha", "gamma"] and rest.get("gamma") is reg.get("gamma")
    assert reg.names() == ["alpha", "beta", "gamma"]  # the original is untouched
    assert reg.without([]).names() == reg.names() and len(reg.subset([])) == 0
    assert rest.dispatch("alpha", {}).ok
    left_out = rest.dispatch("beta", {})  # a model calling a tool it was not offered gets an error
    assert not left_out.ok and "beta" in left_out.content
    rest.unregister("alpha")
    assert "alpha" in reg  # the copies have their own table


def test_build_agent_leaves_out_the_disabled_tools():
    reg = _registry()
    agent = build_agent(Settings(tools={"disabled": ["beta"]}), ScriptedBackend(), reg)
    assert agent.registry.names() == ["alpha", "gamma"]
    agent = build_agent(Settings(tools={"disabled": ["alpha", "beta", "gamma"]}), ScriptedBackend(), reg)
    assert agent.registry is None  # none left: no tools, and the prompt does not speak of them
    assert "call tools" not in agent.system_prompt
    assert build_agent(Settings(), ScriptedBackend(), reg).registry is reg


def test_the_registry_is_not_loaded_again_when_only_the_tools_left_out_change(monkeypatch):
    import desktop_agent.core.assembly as assembly

    builds = []
    real = assembly.build_registry

    def counting(*args, **kwargs):
        builds.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(assembly, "build_registry", counting)
    a = Assembly(backend_factory=lambda _s, _k: ScriptedBackend(text("hi")))
    first = a.registry(Settings())
    assert a.registry(Settings(tools={"disabled": ["calculator"]})) is first
    names = [t.name for t in a.available_tools(Settings(tools={"enabled": False, "disabled": ["today"]}))]
    assert names == first.names() and "calculator" in names and "today" in names
    agent = a.agent(Settings(tools={"disabled": ["calculator"]}))
    assert "calculator" not in agent.registry.names() and agent.registry.get("today") is first.get("today")
    assert len(builds) == 1
    a.registry(Settings(tools={"timeout_s": 5}))
    assert len(builds) == 2


def test_a_turn_uses_the_chat_options():
    backend = ScriptedBackend(text("ok"))
    reg = _registry()
    conv = Conversation(options={"tools.disabled": ["alpha"]})
    session = ChatSession(conv)
    session.agent = build_agent(session.effective(Settings()), backend, reg)
    list(session.run_turn("hello"))
    assert [t["function"]["name"] for t in backend.requests[0].tools] == ["beta", "gamma"]


# ------------------------------------------------------------------------------------------- store


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "conversations.sqlite3"


def _chat(store: ConversationStore, conv: Conversation | None = None, n: int = 2) -> Conversation:
    conv = conv or Conversation()
    for i in range(n):
        m = Message(role="user" if i % 2 == 0 else "assistant", content=f"message {i}")
        conv.messages.append(m)
        store.add_message(conv, m)
    return conv


def test_a_new_chat_options_are_saved_with_its_first_message_then_set_options(db):
    with ConversationStore(db) as store:
        conv = Conversation(options={"generation.temperature": 0.7, "tools.enabled": False})
        assert store.set_options(conv.id, {"generation.think": True}) is False  # not saved yet: nothing
        _chat(store, conv)
        assert store.load(conv.id).options == {"tools.enabled": False, "generation.temperature": 0.7}
        before = store.summary(conv.id).updated_at
        assert store.set_options(conv.id, {"generation.format": "json", "loop.max_steps": 1}) is True
        assert store.load(conv.id).options == {"generation.format": "json"}
        assert store.summary(conv.id).updated_at == before  # not a change of the chat's place in the list
        assert store.set_options(conv.id, {}) is True
        assert store.load(conv.id).options == {}
        plain = _chat(store)
        assert store.load(plain.id).options == {}
        store.set_options(conv.id, {"tools.disabled": ["calculator"]})
    with ConversationStore(db) as store:  # a restart
        assert store.load(conv.id).options == {"tools.disabled": ["calculator"]}
        store.delete(conv.id)
        assert store.set_options(conv.id, {"tools.enabled": False}) is False
        assert store.conn.execute("SELECT count(*) FROM chat_options").fetchone() == (0,)


def test_damaged_saved_options_cost_only_the_options(db):
    with ConversationStore(db) as store:
        conv = _chat(store, Conversation(options={"tools.enabled": False}))
        store.conn.execute("UPDATE chat_options SET options = '{not json'")
        loaded = store.load(conv.id)
        assert loaded.options == {} and len(loaded.messages) == 2


def test_options_are_exported_and_imported_with_the_chat(db, tmp_path):
    with ConversationStore(db) as store:
        conv = _chat(store, Conversation(options={"generation.think": False, "tools.disabled": ["today"]}))
        text_ = store.export(conv.id, "json")
        data = json.loads(text_)
        assert data["options"] == {"tools.disabled": ["today"], "generation.think": False}
        data["options"]["ollama.host"] = "http://elsewhere:11434"  # a chat file may not change where requests go
        path = tmp_path / "chat.json"
        path.write_text(json.dumps(data), encoding="utf-8")
    with ConversationStore(tmp_path / "other.sqlite3") as other:
        new_id = other.import_file(path).chat_ids[0]
        assert new_id == conv.id
        assert other.load(new_id).options == {"tools.disabled": ["today"], "generation.think": False}
        del data["options"]  # an export from before chats had options
        data["id"] = "another-chat"
        path.write_text(json.dumps(data), encoding="utf-8")
        assert other.load(other.import_file(path).chat_ids[0]).options == {}


def test_migrating_a_version_3_database_keeps_everything(db, monkeypatch, tmp_path):
    """A history written by schema 3 (before chat options): backed up, migrated in place; every chat, message,
    failure, import record and search entry kept; options can be saved from then on."""
    with schema_of_version(monkeypatch, 3), ConversationStore(db) as old:
        first = _chat(old, n=4)
        second = _chat(old, Conversation(title="Kept title"), n=2)
        old.rename(second.id, "Renamed")
        old.set_failure(first.id, "BackendError", "boom")
        imported = _chat(old, n=2).id  # imported as version 3 did: a chat and its imports row
        with old.write() as conn:
            conn.execute("INSERT INTO imports (conversation_id, file_sha256, source_id, imported_at) "
                         "VALUES (?, 'abc', NULL, 1.0)", (imported,))
        listed = old.list()
        assert old.conn.execute("PRAGMA user_version").fetchone() == (3,)
    tables = {t: f"SELECT * FROM {t} ORDER BY 1" for t in ("turn_failures",)}
    tables["imports"] = "SELECT conversation_id, file_sha256, source_id, imported_at FROM imports ORDER BY 1"
    tables.update(tables_before_7())  # schema 7 added columns to these
    tables["messages"] = messages_sql(3)  # schema 5 added columns
    conn = sqlite3.connect(db)
    before = {t: conn.execute(sql).fetchall() for t, sql in tables.items()}
    conn.close()
    with ConversationStore(db) as s:
        assert s.warnings == []
        assert s.backup_path is not None and s.backup_path.name.startswith("conversations.sqlite3.v3-backup-")
        backup = sqlite3.connect(s.backup_path)
        assert backup.execute("SELECT count(*) FROM messages").fetchone() == (8,)
        assert backup.execute("PRAGMA user_version").fetchone() == (3,)
        backup.close()
        assert s.conn.execute("PRAGMA user_version").fetchone() == (store_schema.schema_version(),)
        for t, sql in tables.items():
            assert s.conn.execute(sql).fetchall() == before[t]
        assert s.list() == listed
        loaded = s.load(first.id)
        assert [m.content for m in loaded.messages] == [m.content for m in first.messages]
        assert loaded.last_failure.text == "boom" and loaded.options == {}
        assert s.title_is_custom(second.id) and s.load(second.id).title == "Renamed"
        assert {h.conversation_id for h in s.search("message 3")} == {first.id}
        assert s.conn.execute("SELECT conversation_id FROM imports").fetchall() == [(imported,)]
        assert [{k: v for k, v in m.items() if k not in ("id", "parent")}
                for m in json.loads(s.export(second.id, "json"))["messages"]] == [
            m.model_dump(mode="json", exclude={"id", "parent_id"}) for m in second.messages]
        assert s.set_options(first.id, {"generation.temperature": 0.7})
        assert s.load(first.id).options == {"generation.temperature": 0.7}
