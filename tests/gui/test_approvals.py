"""The approval card, in the window: each answer does what it says (Allow once · Allow for this chat · Always
allow · Deny with a reason), "always" survives a restart and can be revoked in Settings → Tools, a rule given
for one call applies to the calls waiting after it, the sidebar shows each call's decision, and the card is
reachable with the keyboard."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_agent.core.settings import Settings
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store.rules import ToolRules
from desktop_agent.core.store.toolcalls import ToolAudit
from tests.helpers.gui import cards, last_run, wait_idle, waiting_card
from tests.helpers.replies import tool_call_lines


@pytest.fixture
def ask_tools(tmp_path) -> Path:
    d = tmp_path / "ask_tools"
    d.mkdir()
    (d / "asking.py").write_text(textwrap.dedent('''
        from desktop_agent import tool

        @tool(requires_approval=True)
        def launch(target: str) -> str:
            """Launch something (needs the user's approval)."""
            return f"launched {target}"

        @tool(destructive=True)
        def write_note(path: str, content: str) -> str:
            """Write a note file."""
            return f"wrote {path}"
        '''), encoding="utf-8")
    return d


def two_calls(name: str, first: dict, second: dict) -> list[dict]:
    return [
        {"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": name, "arguments": first}}, {"function": {"name": name, "arguments": second}}]},
         "done": False},
        {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"},
    ]


def settings(server, tools: Path) -> Settings:
    return Settings(ollama_host=server.url, tools_dirs=[str(tools)])


def turn(qtbot, w, server, lines, text="go") -> None:
    server.script(lines)
    w.send(text)


def test_allow_once_runs_and_the_next_call_asks_again(qtbot, make_window, ollama_server, ask_tools):
    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "moon"}))
    card = waiting_card(qtbot, w)
    assert "launch" in card.accessibleName() and "Launch something" in card.description.text()
    assert '"target": "moon"' in card.details.toPlainText() and "From: " in card.source.text()
    card.allow.click()
    wait_idle(qtbot, w)
    run = last_run(w)
    assert run.status == "ok" and "launched moon" in run.result and run.decision == "allowed by user (once)"
    assert card.result.text() == "Allowed by user (once)"
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "mars"}))
    waiting_card(qtbot, w).deny.click()
    wait_idle(qtbot, w)
    assert last_run(w).status == "denied"


def test_allow_for_this_chat_lasts_for_the_chat_only(qtbot, make_window, ollama_server, ask_tools):
    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "moon"}))
    waiting_card(qtbot, w).allow_chat.click()
    wait_idle(qtbot, w)
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "venus"}))
    wait_idle(qtbot, w)
    assert not any(not c.request.answered for c in w.chat.blocks[-1].approvals)
    run = last_run(w)
    assert run.status == "ok" and run.decision == "allowed by user (for this chat)"
    w.new_chat(ask=False)
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "pluto"}))
    waiting_card(qtbot, w).deny.click()  # a new chat asks again
    wait_idle(qtbot, w)
    assert last_run(w).status == "denied"
    assert ToolRules(w.store).all() == []  # nothing was saved


def test_deny_with_a_reason_tells_the_model(qtbot, make_window, ollama_server, ask_tools):
    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "moon"}))
    card = waiting_card(qtbot, w)
    card.reason.setText("not on a Friday")
    card.deny.click()
    wait_idle(qtbot, w)
    run = last_run(w)
    assert run.status == "denied" and run.decision == "denied by user: not on a Friday"
    sent = ollama_server.chat_requests[-1]["messages"][-1]
    assert sent["role"] == "tool" and "denied" in sent["content"] and "not on a Friday" in sent["content"]
    (audited,) = ToolAudit(w.store).calls(w.conversation.id)
    assert (audited.tool, audited.decision, audited.decided_by, audited.status) == ("launch", "deny", "user", "denied")
    assert audited.arguments == {"target": "moon"} and audited.reason == "not on a Friday"


def test_always_survives_a_restart_and_can_be_revoked(qtbot, make_window, ollama_server, ask_tools):
    from desktop_agent.ui.settings.rules_box import RulesBox

    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "moon"}))
    waiting_card(qtbot, w).allow_always.click()
    wait_idle(qtbot, w)
    assert last_run(w).status == "ok"
    w.close()
    # a restart: a new window, a new store on the same file
    w2 = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w2, ollama_server, tool_call_lines("launch", {"target": "saturn"}))
    wait_idle(qtbot, w2)
    assert cards(w2) == [] and not w2.chat.blocks[-1].approvals
    run = last_run(w2)
    assert run.status == "ok" and run.decision.startswith("allowed by rule #")
    box = RulesBox(w2.assembly.permissions.rules)
    qtbot.addWidget(box)
    box.show()
    assert box.toggle.text() == "Permission rules (1)" and not box.body.isVisible()  # folded at first
    box.toggle.click()
    assert box.body.isVisible()
    assert box.table.rowCount() == 1 and box.table.item(0, 0).text() == "launch"
    assert box.table.item(0, 4).text() != "never"  # last used just now
    box.table.selectRow(0)
    box.revoke_button.click()
    assert box.table.rowCount() == 0 and ToolRules(w2.store).all() == []
    turn(qtbot, w2, ollama_server, tool_call_lines("launch", {"target": "saturn"}))
    waiting_card(qtbot, w2).deny.click()  # asks again
    wait_idle(qtbot, w2)
    assert last_run(w2).status == "denied"


def test_always_applies_to_the_calls_waiting_in_the_same_turn(qtbot, make_window, ollama_server, ask_tools):
    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, two_calls("launch", {"target": "a"}, {"target": "b"}))
    waiting_card(qtbot, w).allow_always.click()
    wait_idle(qtbot, w)
    runs = list(w.sidebar.runs.values())
    assert [r.status for r in runs] == ["ok", "ok"]
    assert len(w.chat.blocks[-1].approvals) == 1  # the second call was not asked about
    assert runs[1].decision.startswith("allowed by rule #")


def test_a_file_write_shows_the_diff_and_always_covers_only_that_folder(qtbot, make_window, ollama_server,
                                                                          ask_tools, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    target = notes / "todo.txt"
    target.write_text("milk\neggs\n", encoding="utf-8")
    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, tool_call_lines("write_note", {"path": str(target), "content": "milk\nbread\n"}))
    card = waiting_card(qtbot, w)
    text = card.details.toPlainText()
    assert "-eggs" in text and "+bread" in text and "destructive" in card.source.text()
    labels = [card.scope.itemText(i) for i in range(card.scope.count())]
    assert labels[0] == f"paths under {notes}" and not any(lab.startswith("any call") for lab in labels)
    card.allow_always.click()
    wait_idle(qtbot, w)
    (rule,) = ToolRules(w.store).all()
    assert (rule.scope.kind, rule.scope.value) == ("path", str(notes))
    turn(qtbot, w, ollama_server, tool_call_lines("write_note", {"path": str(tmp_path / "elsewhere.txt"),
                                                                 "content": "x"}))
    waiting_card(qtbot, w).deny.click()  # outside the folder: asked again
    wait_idle(qtbot, w)


def test_the_card_is_reachable_with_the_keyboard(qtbot, make_window, ollama_server, ask_tools):
    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "moon"}))
    card = waiting_card(qtbot, w)
    card.scope.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is card.scope, timeout=2000)
    seen = []
    for _ in range(6):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        seen.append(QApplication.focusWidget())
    assert seen[:5] == [card.reason, card.allow, card.allow_chat, card.allow_always, card.deny]
    card.allow.setFocus()
    qtbot.keyClick(card.allow, Qt.Key.Key_Space)
    wait_idle(qtbot, w)
    assert last_run(w).status == "ok"


def test_stop_while_a_card_waits_denies_the_call(qtbot, make_window, ollama_server, ask_tools):
    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "moon"}))
    card = waiting_card(qtbot, w)
    w.stop()
    wait_idle(qtbot, w)
    assert not card.allow.isEnabled() and card.result.text().startswith("Denied")
    msgs = ConversationStore().load(w.conversation.id).messages
    assert msgs[-1].role == "tool" and msgs[-1].tool_status in ("denied", "cancelled")


def test_alt_shortcuts_answer_the_waiting_card(qtbot, make_window, ollama_server, ask_tools):
    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "moon"}))
    card = waiting_card(qtbot, w)
    w.activateWindow()
    qtbot.keyClick(w, Qt.Key.Key_T, Qt.KeyboardModifier.AltModifier)  # Allow for this cha&t
    wait_idle(qtbot, w)
    assert card.request.answered and last_run(w).decision == "allowed by user (for this chat)"


def test_a_rule_policy_edited_in_settings_decides_the_next_call(qtbot, make_window, ollama_server, ask_tools):
    from desktop_agent.ui.settings.rules_box import RulesBox

    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "moon"}))
    waiting_card(qtbot, w).allow_always.click()
    wait_idle(qtbot, w)
    box = RulesBox(w.assembly.permissions.rules)
    qtbot.addWidget(box)
    box.table.cellWidget(0, 2).setCurrentText("deny")
    assert ToolRules(w.store).all()[0].policy == "deny"
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "moon"}))
    wait_idle(qtbot, w)
    run = last_run(w)
    assert run.status == "denied" and run.decision.startswith("denied by rule #")
    assert not w.chat.blocks[-1].approvals  # decided by the rule: nobody asked


def test_the_sidebar_shows_decisions_live_and_for_a_reopened_chat(qtbot, make_window, ollama_server, ask_tools):
    w = make_window(settings(ollama_server, ask_tools))
    turn(qtbot, w, ollama_server, tool_call_lines("launch", {"target": "moon"}))
    waiting_card(qtbot, w).allow.click()
    wait_idle(qtbot, w)
    call_id = last_run(w).call_id
    w.sidebar.select_call(call_id)
    # (session 4: the label also says where the tool comes from — its tools folder here)
    assert w.sidebar.decision_label.text() == f"From: {ask_tools}\nPermission: allowed by user (once)"
    chat_id = w.conversation.id
    w.new_chat(ask=False)
    w.open_conversation(chat_id)
    qtbot.waitUntil(lambda: call_id in w.sidebar.runs, timeout=5000)
    assert w.sidebar.runs[call_id].decision == "allowed by user (once)"
