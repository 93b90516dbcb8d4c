"""The migration to the tree (schema 7) cannot lose a chat.

A realistic history written by the previous version (schema 6: many chats, tool calls and results, summaries,
failed turns, chat options, imports, renamed titles, every script) is opened by a child process that SIGKILLs
itself before its n-th SQL statement — for every n from the first statement of the opening to the last of the
migration — and in the middle of statements; after each kill the next open migrates, and every chat's content
is identical to what it was (a hash per chat of all its messages and settings, computed from the old rows the
old way and from the migrated store's ``load``). An older app opening the newer store says so and changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from desktop_agent.core.messages import Conversation, Message, ToolCall
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store import schema as store_schema
from desktop_agent.core.store.schema import MESSAGE_COLUMNS
from tests.helpers.store_versions import schema_of_version

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX only")

WORDS = ["Zażółć gęślą jaźń", "Ἀθῆναι καὶ Σπάρτη", "Привет, ёжик", "İstanbul ılık", "天气很好", "café " * 3,
         unicodedata.normalize("NFD", "crème brûlée"), "مرحبا بالعالم", "emoji 🎉👩‍💻", "plain ASCII text"]


def _write_old_history(db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A schema-6 history as the previous version wrote it."""
    with schema_of_version(monkeypatch, 6), ConversationStore(db) as old:
        for i in range(36):
            conv = Conversation(model="llama3.2", backend="ollama")
            word = WORDS[i % len(WORDS)]

            def say(m: Message, conv: Conversation = conv) -> Message:
                conv.messages.append(m)
                old.add_message(conv, m)
                return m

            for turn in range(1 + i % 4):
                say(Message(role="user", content=f"{word} question {turn} of chat {i}"))
                if i % 3 == 0:
                    call = ToolCall(id=f"c{i}{turn}", name="read_file", arguments={"path": f"/tmp/{word}.txt"})
                    say(Message(role="assistant", thinking="let me look", tool_calls=[call], model="llama3.2"))
                    say(Message(role="tool", content=f"{word} " * 40, tool_call_id=call.id, tool_name="read_file",
                                tool_status="ok" if turn % 2 else "error", duration_ms=12.5,
                                full_content=(f"{word} " * 400) if turn == 0 else None))
                status = "stopped" if (i + turn) % 7 == 0 else "complete"
                say(Message(role="assistant", content=f"answer {turn}: {word}", model="llama3.2", backend="ollama",
                            status=status))
            if i % 5 == 0:
                say(Message(role="system", kind="summary", covers=2, content=f"summary of {word}"))
                say(Message(role="user", content="after the summary"))
            if i % 4 == 1:
                old.set_failure(conv.id, "BackendError", f"the server said no ({word})")
            if i % 6 == 2:
                old.set_options(conv.id, {"generation.temperature": 0.2, "tools.enabled": False})
            if i % 7 == 3:
                old.rename(conv.id, f"Renamed {word}")
        imported = Conversation(model="llama3.2")  # an imported chat, as version 6 saved one
        for m in (Message(role="user", content="imported ółw"), Message(role="assistant", content="ok")):
            imported.messages.append(m)
            old.add_message(imported, m)
        with old.write() as conn:
            conn.execute("INSERT INTO imports (conversation_id, file_sha256, source_id, imported_at) "
                         "VALUES (?, ?, NULL, ?)", (imported.id, "ab" * 32, 1.0))
        assert old.conn.execute("PRAGMA user_version").fetchone() == (6,)


def _old_hashes(db: Path) -> dict[str, str]:
    """Per chat, a hash of everything it holds, read from the schema-6 rows the way version 6 read them."""
    conn = sqlite3.connect(db)
    try:
        out = {}
        for cid, title, custom, backend, model, created, updated in conn.execute(
            "SELECT id, title, title_is_custom, backend, model, created_at, updated_at FROM conversations"
        ):
            rows = conn.execute(f"SELECT id, {MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY id",
                                (cid,)).fetchall()
            messages = [ConversationStore._message_from_row(r) for r in rows]
            options = conn.execute("SELECT options FROM chat_options WHERE conversation_id = ?", (cid,)).fetchone()
            failure = conn.execute("SELECT kind, text, failed_at FROM turn_failures WHERE conversation_id = ?",
                                   (cid,)).fetchone()
            out[cid] = _hash(title, bool(custom), backend, model, created, updated, messages,
                             json.loads(options[0]) if options else {}, list(failure) if failure else None)
        return out
    finally:
        conn.close()


def _new_hashes(store: ConversationStore) -> dict[str, str]:
    out = {}
    for s in store.list(limit=1000):
        c = store.load(s.id)
        failure = [c.last_failure.kind, c.last_failure.text, c.last_failure.failed_at] if c.last_failure else None
        out[c.id] = _hash(c.title, store.title_is_custom(c.id), c.backend, c.model, c.created_at, c.updated_at,
                          c.messages, c.options, failure)
    return out


def _hash(*fields: object) -> str:
    def plain(x: object) -> object:
        if isinstance(x, list):
            return [plain(v) for v in x]
        if isinstance(x, Message):
            return x.model_dump(mode="json", exclude={"parent_id"})
        return x

    return hashlib.sha256(json.dumps([plain(f) for f in fields], ensure_ascii=False).encode()).hexdigest()


def _run(db: Path, n: int, mode: str = "statement") -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "tests.unit.migration_killer", str(db), str(n)]
    if mode == "progress":
        args.append("progress")
    return subprocess.run(args, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def old_history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], dict]:
    """The schema-6 history, its per-chat hashes, and what opening (= migrating) it runs (see migration_killer)."""
    tmp = tmp_path_factory.mktemp("old")
    db = tmp / "conversations.sqlite3"
    with pytest.MonkeyPatch.context() as mp:
        _write_old_history(db, mp, tmp)
    hashes = _old_hashes(db)
    assert len(hashes) == 37
    probe = tmp / "probe" / db.name
    probe.parent.mkdir()
    shutil.copy(db, probe)
    done = _run(probe, 0)
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    assert counts["statements"] > 100 and len(counts["top"]) > 20
    return db, hashes, counts


def _check_after_kill(copy: Path, hashes: dict[str, str]) -> None:
    with ConversationStore(copy) as store:
        assert store.warnings == []
        assert store.conn.execute("PRAGMA user_version").fetchone() == (store_schema.schema_version(),)
        assert store.conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        store.conn.execute("INSERT INTO message_fts (message_fts) VALUES ('integrity-check')")
        assert _new_hashes(store) == hashes
        assert len({h.conversation_id for h in store.search("ZAZOLC")}) == 4  # searchable, folded
        assert store.conn.execute("SELECT count(*) FROM messages WHERE parent_id IS NULL").fetchone() == (37,)


def test_migration_killed_before_every_statement_loses_nothing(old_history, tmp_path):
    """Killed before each of our statements (opening, backup, every step of the migration, the commit) and before
    every 12th statement of the index rebuild's upkeep."""
    db, hashes, counts = old_history
    points = sorted(set(counts["top"]) | set(range(1, counts["statements"] + 1, 12)))
    killed = 0
    for n in points:
        copy = tmp_path / f"n{n}" / db.name
        copy.parent.mkdir()
        shutil.copy(db, copy)
        run = _run(copy, n)
        assert run.returncode in (-signal.SIGKILL, 0), run.stderr
        killed += run.returncode == -signal.SIGKILL
        _check_after_kill(copy, hashes)
        shutil.rmtree(copy.parent)
    assert killed == len(points)


def test_migration_killed_mid_statement_and_again_and_again_loses_nothing(old_history, tmp_path):
    """Kills in the middle of statements (the big UPDATEs, the index rebuild): each on a fresh copy, then several
    in a row on one file."""
    db, hashes, counts = old_history
    steps = counts["steps"]
    points = [max(1, steps * k // 12) for k in range(1, 12)]
    for n in points:
        copy = tmp_path / f"p{n}" / db.name
        copy.parent.mkdir()
        shutil.copy(db, copy)
        run = _run(copy, n, "progress")
        assert run.returncode == -signal.SIGKILL, run.stderr
        _check_after_kill(copy, hashes)
    copy = tmp_path / db.name
    shutil.copy(db, copy)
    for n in points[::3]:  # each run starts over (the killed migration was rolled back), and is killed again
        assert _run(copy, n, "progress").returncode == -signal.SIGKILL
    _check_after_kill(copy, hashes)


def test_an_older_version_opening_the_newer_store_says_so_and_changes_nothing(old_history, tmp_path, monkeypatch):
    db, hashes, _ = old_history
    new = tmp_path / db.name
    shutil.copy(db, new)
    ConversationStore(new).close()  # migrated to the tree
    before = new.read_bytes()
    with schema_of_version(monkeypatch, 6), ConversationStore(new) as old:
        assert len(old.warnings) == 1 and "newer version" in old.warnings[0]
        assert old.count() == 0  # it started an empty history instead of reading what it cannot
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(db.name + ".newer-")
             and not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 1 and aside[0].read_bytes() == before
    assert str(aside[0]) in old.warnings[0]
    shutil.copy(aside[0], tmp_path / "back.sqlite3")
    with ConversationStore(tmp_path / "back.sqlite3") as store:  # this version still reads it all
        assert _new_hashes(store) == hashes


def test_a_history_an_older_version_set_aside_is_found_and_imported_back(old_history, tmp_path, monkeypatch):
    """Forward, back to the older version, forward again: the newer version says where the history went and
    imports it back whole (the file is not changed; a second import adds nothing)."""
    db, hashes, _ = old_history
    new = tmp_path / db.name
    shutil.copy(db, new)
    ConversationStore(new).close()
    with schema_of_version(monkeypatch, 6), ConversationStore(new) as old:  # the older version sets it aside
        old.add_message(Conversation(), Message(role="user", content="said in the older version"))
    aside = next(p for p in tmp_path.iterdir() if p.name.startswith(db.name + ".newer-")
                 and not p.name.endswith(("-wal", "-shm")))
    before = aside.read_bytes()
    with ConversationStore(new) as store:
        told = [w for w in store.warnings if str(aside) in w]
        assert len(told) == 1 and "Import chats" in told[0] and "history import" in told[0]
        assert store.count() == 1
        result = store.import_file(aside)
        assert result.new_chats == len(hashes)
        shutil.copy(aside, tmp_path / "kept.sqlite3")
        with ConversationStore(tmp_path / "kept.sqlite3") as kept:  # what the set-aside file holds
            assert [_content(kept, cid) for cid in sorted(hashes)] == [_content(store, cid) for cid in sorted(hashes)]
        assert store.import_file(aside).new_messages == 0
    assert aside.read_bytes() == before


def _content(store: ConversationStore, cid: str) -> str:
    """A chat's content as an import keeps it: everything but the messages' row ids and the last turn's failure
    (an export does not carry it)."""
    c = store.load(cid)
    messages = [m.model_dump(mode="json", exclude={"id", "parent_id"}) for m in c.messages]
    return _hash(c.title, store.title_is_custom(cid), c.backend, c.model, c.created_at, c.updated_at, messages,
                 c.options)
