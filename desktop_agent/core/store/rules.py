"""The permission rules the user made, in the store's ``tool_rules`` table (the
:class:`~desktop_agent.core.tools.permissions.RuleStorage` a :class:`~desktop_agent.core.tools.permissions.RuleBook`
keeps its user rules in, so that "always allow" survives a restart)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from desktop_agent.core.store.database import StoreDatabase
from desktop_agent.core.tools.permissions import Rule, Scope

R = TypeVar("R")
_COLUMNS = "id, tool, scope, value, policy, source, created_at, last_used_at"


def _rule(r: tuple) -> Rule:
    return Rule(r[0], r[1], Scope(r[2], r[3]), r[4], r[5], r[6], r[7])


class ToolRules:
    """The ``tool_rules`` of an open store (``db``: the ConversationStore). Every method raises StoreError."""

    def __init__(self, db: StoreDatabase) -> None:
        self.db = db

    def all(self) -> list[Rule]:
        return self._guard(lambda: [_rule(r) for r in self.db.read(f"SELECT {_COLUMNS} FROM tool_rules ORDER BY id")])

    def save(self, rule: Rule) -> Rule:
        """Insert ``rule`` (or update the policy of the one for the same tool and scope); returns it with its id."""
        def go() -> Rule:
            with self.db.write() as conn:
                row = conn.execute(
                    "SELECT id FROM tool_rules WHERE tool = ? AND scope = ? AND IFNULL(value, '') = IFNULL(?, '')",
                    (rule.tool, rule.scope.kind, rule.scope.value),
                ).fetchone()
                if row is not None:
                    conn.execute("UPDATE tool_rules SET policy = ?, source = ? WHERE id = ?",
                                 (rule.policy, rule.source, row[0]))
                    rule_id = int(row[0])
                else:
                    cur = conn.execute(
                        "INSERT INTO tool_rules (tool, scope, value, policy, source, created_at, last_used_at) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (rule.tool, rule.scope.kind, rule.scope.value, rule.policy, rule.source, rule.created_at,
                         rule.last_used_at),
                    )
                    rule_id = int(cur.lastrowid or 0)
            return Rule(rule_id, rule.tool, rule.scope, rule.policy, rule.source, rule.created_at, rule.last_used_at)

        return self._guard(go)

    def delete(self, rule_id: int) -> None:
        def go() -> None:
            with self.db.write() as conn:
                conn.execute("DELETE FROM tool_rules WHERE id = ?", (rule_id,))

        self._guard(go)

    def set_policy(self, rule_id: int, policy: str) -> None:
        def go() -> None:
            with self.db.write() as conn:
                conn.execute("UPDATE tool_rules SET policy = ? WHERE id = ?", (policy, rule_id))

        self._guard(go)

    def touch(self, rule_id: int, when: float) -> None:
        def go() -> None:
            with self.db.write() as conn:
                conn.execute("UPDATE tool_rules SET last_used_at = ? WHERE id = ?", (when, rule_id))

        self._guard(go)

    def _guard(self, fn: Callable[[], R]) -> R:
        try:
            return fn()
        except sqlite3.Error as exc:
            raise self.db.translate(exc) from exc
