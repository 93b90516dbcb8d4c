"""Child process of tests/unit/test_store_tree_migration.py: opens (and so migrates) a chat history and SIGKILLs
itself at a chosen point.

``python -m tests.unit.migration_killer DB N [progress]``: with ``N`` > 0 the process kills itself just before
its ``N``-th SQL statement (every statement the store's connection runs, the FTS5 index upkeep they trigger
included: ``set_trace_callback``) — or, with ``progress``, after ``N`` × :data:`STEP` SQLite virtual-machine
instructions (in the middle of a statement). When it gets through, it prints (JSON) how many statements ran,
the numbers of our own (not FTS5's) statements and how many progress steps, and exits 0.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
from pathlib import Path

from desktop_agent.core.store import opening
from desktop_agent.core.store.database import StoreDatabase

#: SQLite virtual-machine instructions per progress step
STEP = 50


def main() -> None:
    db, n = Path(sys.argv[1]), int(sys.argv[2])
    mid_statement = len(sys.argv) > 3 and sys.argv[3] == "progress"
    statements: list[str] = []
    steps = [0]
    real_connect = opening.connect

    def on_statement(sql: str) -> None:
        statements.append(sql)
        if n and not mid_statement and len(statements) == n:
            os.kill(os.getpid(), signal.SIGKILL)

    def on_progress() -> int:
        steps[0] += 1
        if n and mid_statement and steps[0] == n:
            os.kill(os.getpid(), signal.SIGKILL)
        return 0

    def connect(path: Path, busy_timeout_s: float) -> sqlite3.Connection:
        conn = real_connect(path, busy_timeout_s)
        conn.set_trace_callback(on_statement)
        conn.set_progress_handler(on_progress, STEP)
        return conn

    opening.connect = connect  # type: ignore[assignment]
    store = StoreDatabase(db)
    store.close()
    # (statement numbers that are our own statements, not the FTS5 index upkeep they trigger)
    top = [i for i, sql in enumerate(statements, 1) if not sql.startswith("--")]
    print(json.dumps({"statements": len(statements), "top": top, "steps": steps[0]}), flush=True)


if __name__ == "__main__":
    main()
