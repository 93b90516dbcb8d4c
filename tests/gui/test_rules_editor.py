"""Settings → Tools → Permissions can add, edit and remove rules (not only list those made from approval cards):
real widgets (offscreen), a real store, a real MCP server's tool (tests/mcp_servers/flaky.py) whose rule is kept
under its server's identity, and the permission engine deciding by the rule made here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog, QDialogButtonBox

from desktop_agent.core.mcp.manager import READY, McpManager
from desktop_agent.core.settings import McpServerSettings
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store.rules import ToolRules
from desktop_agent.core.tools.permissions import PermissionEngine, RuleBook, Scope
from desktop_agent.core.tools.rule_keys import rule_key
from desktop_agent.ui.settings.rule_editor import KnownTool
from desktop_agent.ui.settings.rules_box import RulesBox

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("SCREENSHOT_DIR", "/tmp"))


@pytest.fixture
def echo():
    manager = McpManager([McpServerSettings(name="flaky", command=sys.executable,
                                            args=["-m", "tests.mcp_servers.flaky"], cwd=str(ROOT))])
    manager.start()
    manager.wait_ready(60)
    assert manager.states()[0].state == READY
    yield {t.name: t for t in manager.tools()}["flaky__echo"]
    manager.close()


@pytest.fixture
def store(tmp_path):
    made = ConversationStore(tmp_path / "chats.sqlite3")
    yield made
    made.close()


def _ok(editor) -> None:
    editor.buttons.button(QDialogButtonBox.StandardButton.Ok).click()


def test_add_edit_and_remove_a_rule(qtbot, echo, store):
    book = RuleBook(ToolRules(store))
    known = [KnownTool("flaky__echo", rule_key(echo)), KnownTool("delete_files", "delete_files", destructive=True)]
    box = RulesBox(book, tools=lambda: known)
    qtbot.addWidget(box)
    box.set_expanded(True)
    box.show()
    assert not box.edit_button.isEnabled() and box.add_button.isEnabled()
    # add: allow any call of the MCP tool
    editor = box.editor()
    editor.tool.setCurrentText("flaky__echo")
    editor.policy.setCurrentIndex(editor.policy.findData("allow"))
    assert not editor.value.isEnabled()  # "any call" has no value
    editor.show()
    editor.grab().save(str(SHOTS / "rule-editor.png"))
    _ok(editor)
    assert editor.result() == QDialog.DialogCode.Accepted
    box.add_rule(editor)
    [saved] = ToolRules(store).all()
    assert saved.tool == rule_key(echo) and saved.tool.startswith("flaky__echo@") and saved.policy == "allow"
    assert box.table.item(0, 0).text() == "flaky__echo" and box.table.item(0, 1).text() == "any call of flaky__echo"
    engine = PermissionEngine(book)
    assert engine.preview(echo, {"text": "hi"})[0] == "allow"
    box.grab().save(str(SHOTS / "rules-box.png"))
    # edit: deny it for commands starting with git
    box.table.selectRow(0)
    assert box.edit_button.isEnabled()
    editor = box.editor(box.selected_rule())
    assert editor.tool.currentText() == "flaky__echo"
    editor.kind.setCurrentIndex(editor.kind.findData("command"))
    assert editor.value.isEnabled()
    editor.value.setText("git")
    editor.policy.setCurrentIndex(editor.policy.findData("deny"))
    _ok(editor)
    box.edit_selected(editor)
    [saved] = ToolRules(store).all()
    assert (saved.tool, saved.scope, saved.policy) == (rule_key(echo), Scope("command", "git"), "deny")
    assert box.table.item(0, 1).text() == "commands starting with git"
    assert box.selected_rule() is not None and box.selected_rule().id == saved.id
    # remove
    box.revoke_selected()
    assert ToolRules(store).all() == [] and box.table.rowCount() == 0
    assert engine.preview(echo, {"text": "hi"})[0] == "ask"


def test_the_editor_refuses_what_would_not_work(qtbot, store):
    known = [KnownTool("delete_files", "delete_files", destructive=True)]
    box = RulesBox(RuleBook(ToolRules(store)), tools=lambda: known)
    qtbot.addWidget(box)
    editor = box.editor()
    editor.show()
    editor.tool.setCurrentText("delete_files")
    editor.policy.setCurrentIndex(editor.policy.findData("allow"))
    _ok(editor)
    assert editor.result() != QDialog.DialogCode.Accepted
    assert "never allowed for any call" in editor.error.text()
    editor.kind.setCurrentIndex(editor.kind.findData("path"))
    editor.value.setText("notes")
    _ok(editor)
    assert editor.result() != QDialog.DialogCode.Accepted and "full path" in editor.error.text()
    editor.value.setText("~/notes")
    _ok(editor)
    assert editor.result() == QDialog.DialogCode.Accepted
    box.add_rule(editor)
    [saved] = ToolRules(store).all()
    assert saved.scope == Scope("path", os.path.expanduser("~/notes")) and saved.tool == "delete_files"
