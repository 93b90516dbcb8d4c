"""Reliability: a process writing chats through ConversationStore is SIGKILLed at random moments.

After every kill the database must pass ``PRAGMA integrity_check`` (and FTS5's own integrity check)
and hold every message whose ``add_message``/``update_message`` had returned (the writer prints each
id only after the commit returned), with exactly the content it reported.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_agent.core.store import ConversationStore
from tests.unit.store_writer import digest

ROOT = Path(__file__).resolve().parents[2]
KILLS = 55

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX only")


def test_sigkill_at_random_moments_keeps_the_db_intact_and_every_committed_message(tmp_path):
    db = tmp_path / "conversations.sqlite3"
    seed = random.randrange(1 << 30)
    rnd = random.Random(seed)
    confirmed: dict[int, str] = {}  # message id -> digest of the content whose commit returned
    pending: dict[int, str] = {}  # an update was started but not confirmed: either content is fine
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    written_per_run = []
    for run in range(KILLS):
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.unit.store_writer", str(db), str(seed + run)],
            stdout=subprocess.PIPE, cwd=ROOT, env=env, text=True, encoding="utf-8",
        )
        lines = []
        try:
            if run % 9 == 0:
                time.sleep(rnd.uniform(0.0, 0.25))  # possibly while it opens / creates the database
            else:
                assert proc.stdout.readline() == "ready\n"
                first = proc.stdout.readline()  # it is writing now
                assert first.startswith("ok "), first
                lines = [first]
                time.sleep(rnd.uniform(0.0, 0.06))
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        assert proc.returncode == -signal.SIGKILL, f"writer ended by itself (seed {seed + run})"
        lines += proc.stdout.read().splitlines()
        proc.stdout.close()
        n = 0
        for line in lines:
            kind, *rest = line.split()
            if kind == "ok":
                mid, d = int(rest[0]), rest[1]
                confirmed[mid] = d
                pending.pop(mid, None)
                n += 1
            elif kind == "pending":
                pending[int(rest[0])] = rest[1]
        written_per_run.append(n)

    assert sum(1 for n in written_per_run if n > 0) >= KILLS * 8 // 9, written_per_run  # killed mid-writing
    # no writer start judged the database damaged and moved it aside
    assert sorted(p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name) == []
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.execute("INSERT INTO message_fts (message_fts) VALUES ('integrity-check')")
        rows = dict(conn.execute("SELECT id, content FROM messages").fetchall())
    finally:
        conn.close()
    missing = sorted(set(confirmed) - set(rows))
    assert missing == [], f"committed messages lost (seed {seed}): {missing[:10]}"
    wrong = [mid for mid, d in confirmed.items() if digest(rows[mid]) not in {d, pending.get(mid)}]
    assert wrong == [], f"messages with other content than committed (seed {seed}): {wrong[:10]}"
    with ConversationStore(db) as store:  # and the app starts normally on it
        assert store.warnings == []
        assert store.count() > 0
        assert store.search("weather")
