"""Branches in the real window, against the local Ollama protocol server: regenerate twice and flip between the
three answers with ‹ 2/3 ›, edit an early message and continue the new branch, fork from a tool result (the model
answers from it), delete a branch (asked first), and a search hit on another branch opens that branch."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMessageBox

from desktop_agent.core.store import ConversationStore
from desktop_agent.ui.chat.turn import AssistantTurn, UserBubble
from desktop_agent.ui.history.models import KindRole
from tests.helpers.gui import last_turn_text, wait_idle
from tests.helpers.replies import text_lines, tool_call_lines
from tests.servers.ollama import Pause


def _send(qtbot, w, text: str) -> None:
    w.send(text)
    wait_idle(qtbot, w)


def _turns(w) -> list[AssistantTurn]:
    return [b for b in w.chat.blocks if isinstance(b, AssistantTurn)]


def _bubbles(w) -> list[UserBubble]:
    return [b for b in w.chat.blocks if isinstance(b, UserBubble)]


def _choose(qtbot, block, label: str) -> None:
    """Open a message's actions menu (as a click on ⋯ does) and pick ``label``."""
    button = block.menu_button
    button.fill()
    actions = {a.text(): a for a in button.menu_.actions()}
    assert label in actions, list(actions)
    assert actions[label].isEnabled()
    actions[label].trigger()


def _shot(qtbot, w, path: str) -> None:
    """A screenshot of the window once what changed is laid out and painted (to look at)."""
    qtbot.wait(300)
    w.grab().save(path)


def _texts(w) -> list[str]:
    return [m.content for m in w.conversation.messages]


def test_regenerate_twice_and_flip_between_the_three_answers(make_window, qtbot, ollama_server, ollama_settings,
                                                            monkeypatch):
    w = make_window(ollama_settings)
    ollama_server.script(text_lines(["First ", "answer."]), text_lines(["Second answer."]),
                         text_lines(["Third answer."]))
    _send(qtbot, w, "Tell me something")
    assert last_turn_text(w) == "First answer."
    _choose(qtbot, _turns(w)[-1], "Regenerate")
    wait_idle(qtbot, w)
    _choose(qtbot, _turns(w)[-1], "Regenerate")
    wait_idle(qtbot, w)
    assert last_turn_text(w) == "Third answer." and len(_turns(w)) == 1
    # the same question each time: the model was asked the history up to it, not the earlier answers
    asked = [[m["content"] for m in r["messages"] if m["role"] != "system"] for r in ollama_server.chat_requests]
    assert asked[-1] == asked[-2] == asked[-3] == ["Tell me something"]
    switcher = _turns(w)[-1].switcher
    qtbot.waitUntil(switcher.isVisible, timeout=5000)
    assert switcher.label.text() == "3/3" and switcher.label.accessibleName() == "Version 3 of 3"
    assert switcher.prev.accessibleName() == "Previous version" and not switcher.next.isEnabled()
    _shot(qtbot, w, "/tmp/branches-3of3.png")
    switcher.prev.click()
    qtbot.waitUntil(lambda: last_turn_text(w) == "Second answer.", timeout=5000)
    switcher = _turns(w)[-1].switcher
    assert switcher.label.text() == "2/3" and switcher.next.isEnabled() and switcher.prev.isEnabled()
    _shot(qtbot, w, "/tmp/branches-2of3.png")
    switcher.prev.click()
    qtbot.waitUntil(lambda: last_turn_text(w) == "First answer.", timeout=5000)
    assert _turns(w)[-1].switcher.label.text() == "1/3" and not _turns(w)[-1].switcher.prev.isEnabled()
    # keyboard: the switcher's buttons take the focus; Space on › shows the next version
    qtbot.waitUntil(lambda: w.focusWidget() is _turns(w)[-1].switcher.next, timeout=5000)
    qtbot.keyClick(_turns(w)[-1].switcher.next, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: last_turn_text(w) == "Second answer.", timeout=5000)
    # the branch shown is the one continued, and the one reopened
    ollama_server.script(text_lines(["More on the second."]))
    _send(qtbot, w, "Go on")
    assert _texts(w) == ["Tell me something", "Second answer.", "Go on", "More on the second."]
    assert [m["content"] for m in ollama_server.chat_requests[-1]["messages"] if m["role"] != "system"] == [
        "Tell me something", "Second answer.", "Go on"]
    saved = w.controller.store.load(w.conversation.id)
    assert [m.content for m in saved.messages] == _texts(w)
    # edit the first message, then flip back to its first version: the branch continued there (answer 2/3 and
    # what followed it), not the newest answer 3/3 with nothing after it
    ollama_server.script(text_lines(["Something else."]))
    monkeypatch.setattr(QInputDialog, "getMultiLineText", staticmethod(lambda *a: ("Tell me more", True)))
    _choose(qtbot, _bubbles(w)[0], "Edit and resend…")
    wait_idle(qtbot, w)
    assert _texts(w) == ["Tell me more", "Something else."]
    qtbot.waitUntil(lambda: _bubbles(w)[0].switcher.isVisible(), timeout=5000)
    _bubbles(w)[0].switcher.prev.click()
    qtbot.waitUntil(lambda: _texts(w) == ["Tell me something", "Second answer.", "Go on", "More on the second."],
                    timeout=5000)
    assert _bubbles(w)[0].switcher.label.text() == "1/2" and _turns(w)[0].switcher.label.text() == "2/3"
    _shot(qtbot, w, "/tmp/branches-flip-back.png")


def test_a_regenerate_stopped_before_its_first_word_shows_the_answer_again(make_window, qtbot, ollama_server,
                                                                           ollama_settings):
    """Stop (or quit) before the new answer's first word: nothing new was said, so the chat shows — and reopens
    with — the answer it had (it was never hidden in the store)."""
    w = make_window(ollama_settings)
    ollama_server.script(text_lines(["First answer."]), [Pause(30)], [Pause(30)])
    _send(qtbot, w, "Q1")
    _choose(qtbot, _turns(w)[-1], "Regenerate")
    qtbot.waitUntil(lambda: w.busy, timeout=5000)
    qtbot.waitUntil(lambda: len(ollama_server.chat_requests) == 2, timeout=10_000)
    w.stop()
    wait_idle(qtbot, w, 15_000)
    qtbot.waitUntil(lambda: _texts(w) == ["Q1", "First answer."], timeout=5000)
    assert last_turn_text(w) == "First answer."
    store, cid = w.controller.store, w.conversation.id
    assert [m.content for m in store.load(cid).messages] == ["Q1", "First answer."]
    # quitting at the same moment loses nothing either
    _choose(qtbot, _turns(w)[-1], "Regenerate")
    qtbot.waitUntil(lambda: len(ollama_server.chat_requests) == 3, timeout=10_000)
    w.close()
    again = ConversationStore(store.path)
    assert [m.content for m in again.load(cid).messages] == ["Q1", "First answer."]
    again.close()


def test_a_regenerated_answer_like_the_last_says_why(make_window, qtbot, ollama_server, ollama_settings):
    """Temperature 0 (the default) gives the same answer again: the status bar says why and what to change."""
    w = make_window(ollama_settings)
    ollama_server.script(text_lines(["One fruit is a banana."]), text_lines(["One fruit is a banana."]),
                         text_lines(["An apple."]))
    _send(qtbot, w, "Name one fruit.")
    _choose(qtbot, _turns(w)[-1], "Regenerate")
    wait_idle(qtbot, w)
    qtbot.waitUntil(lambda: "same answer" in w.statusBar().currentMessage(), timeout=5000)
    assert "temperature 0" in w.statusBar().currentMessage()
    w.statusBar().clearMessage()
    _choose(qtbot, _turns(w)[-1], "Regenerate")
    wait_idle(qtbot, w)
    assert last_turn_text(w) == "An apple." and "same answer" not in w.statusBar().currentMessage()


def test_edit_an_early_message_and_continue_the_new_branch(make_window, qtbot, ollama_server, ollama_settings,
                                                           monkeypatch):
    w = make_window(ollama_settings)
    ollama_server.script(text_lines(["Paris."]), text_lines(["About 2 million."]), text_lines(["Rome."]),
                         text_lines(["About 2.8 million."]))
    _send(qtbot, w, "Capital of France?")
    _send(qtbot, w, "Population?")
    asked = []

    def edit(parent, title, label, text):
        asked.append(text)
        return "Capital of Italy?", True

    monkeypatch.setattr(QInputDialog, "getMultiLineText", staticmethod(edit))
    _choose(qtbot, _bubbles(w)[0], "Edit and resend…")
    wait_idle(qtbot, w)
    assert asked == ["Capital of France?"]  # the dialog starts from the message
    assert _texts(w) == ["Capital of Italy?", "Rome."]
    qtbot.waitUntil(lambda: _bubbles(w)[0].switcher.isVisible(), timeout=5000)
    assert _bubbles(w)[0].switcher.label.text() == "2/2"
    _shot(qtbot, w, "/tmp/branches-edited.png")
    _send(qtbot, w, "Population?")
    assert _texts(w) == ["Capital of Italy?", "Rome.", "Population?", "About 2.8 million."]
    assert [m["content"] for m in ollama_server.chat_requests[-1]["messages"] if m["role"] != "system"] == [
        "Capital of Italy?", "Rome.", "Population?"]
    _bubbles(w)[0].switcher.prev.click()  # the first version, with all that followed it
    qtbot.waitUntil(lambda: _texts(w) == ["Capital of France?", "Paris.", "Population?", "About 2 million."],
                    timeout=5000)
    assert _bubbles(w)[0].switcher.label.text() == "1/2"


def test_fork_from_a_tool_result_reruns_the_model_from_it(make_window, qtbot, ollama_server, ollama_settings):
    w = make_window(ollama_settings.updated({"tools.only_relevant": False}))
    ollama_server.script(tool_call_lines("calculator", {"expression": "6*7"}), text_lines(["It is 42."]),
                         text_lines(["Forty-two, again."]))
    _send(qtbot, w, "What is 6 times 7?")
    original = w.conversation.id
    assert [m.role for m in w.conversation.messages] == ["user", "assistant", "tool", "assistant"]
    _choose(qtbot, _turns(w)[-1], "Fork from the result of calculator")
    wait_idle(qtbot, w)
    assert w.conversation.id != original
    assert [m.role for m in w.conversation.messages] == ["user", "assistant", "tool", "assistant"]
    assert w.conversation.messages[2].content == "42" and last_turn_text(w) == "Forty-two, again."
    last = [m for m in ollama_server.chat_requests[-1]["messages"] if m["role"] != "system"]
    assert last[-1]["role"] == "tool" and last[-1]["content"] == "42"  # the model answered from the tool result
    # the sidebar shows this branch's call
    assert len(w.sidebar.runs) == 1
    store = w.controller.store
    assert [m.content for m in store.load(original).messages][-1] == "It is 42."  # the original is unchanged
    # the history tells the two apart
    assert store.summary(w.conversation.id).title == store.summary(original).title + " (fork)"
    qtbot.waitUntil(lambda: w.history_panel is not None, timeout=10_000)
    model = w.history_panel.model

    def titles() -> list[str]:
        return sorted(model.index(r).data() for r in range(model.rowCount()) if model.index(r).data(KindRole) == "chat")

    qtbot.waitUntil(lambda: titles() == ["What is 6 times 7?", "What is 6 times 7? (fork)"], timeout=10_000)
    _shot(qtbot, w, "/tmp/branches-fork.png")


def test_deleting_a_branch_asks_first(make_window, qtbot, ollama_server, ollama_settings, monkeypatch):
    w = make_window(ollama_settings)
    ollama_server.script(text_lines(["One."]), text_lines(["Two."]))
    _send(qtbot, w, "Count")
    _choose(qtbot, _turns(w)[-1], "Regenerate")
    wait_idle(qtbot, w)
    questions = []
    answers = [QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Yes]

    def question(parent, title, text, buttons, default):
        questions.append(text)
        return answers.pop(0)

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    _choose(qtbot, _turns(w)[-1], "Delete this branch…")
    assert len(questions) == 1 and "other versions are kept" in questions[0]
    assert last_turn_text(w) == "Two."  # declined: nothing deleted
    assert len(w.controller.store.tree(w.conversation.id)) == 3
    _choose(qtbot, _turns(w)[-1], "Delete this branch…")
    qtbot.waitUntil(lambda: last_turn_text(w) == "One.", timeout=5000)
    assert not _turns(w)[-1].switcher.isVisible()
    assert [m.content for m in w.controller.store.tree(w.conversation.id)] == ["Count", "One."]


def test_a_search_hit_on_another_branch_opens_that_branch_at_the_message(make_window, qtbot, ollama_server,
                                                                         ollama_settings):
    w = make_window(ollama_settings)
    ollama_server.script(text_lines(["Żółw means turtle."]), text_lines(["A different answer."]))
    _send(qtbot, w, "Translate żółw")
    _choose(qtbot, _turns(w)[-1], "Regenerate")
    wait_idle(qtbot, w)
    chat_id = w.conversation.id
    w.new_chat()
    hits = [h for h in w.controller.store.search("ZOLW MEANS") if not h.in_title]
    assert len(hits) == 1
    w.open_conversation(hits[0].conversation_id, hits[0].message_id)
    qtbot.waitUntil(lambda: w.conversation.id == chat_id and last_turn_text(w) == "Żółw means turtle.",
                    timeout=5000)
    assert _turns(w)[-1].switcher.label.text() == "1/2"


def test_right_click_on_a_message_opens_its_actions(make_window, qtbot, ollama_server, ollama_settings):
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication

    w = make_window(ollama_settings)
    ollama_server.script(text_lines(["Hello."]))
    _send(qtbot, w, "Hi")
    for block, first in ((_turns(w)[-1], "Regenerate"), (_bubbles(w)[-1], "Edit and resend…")):
        menu = block.menu_button.menu_
        QApplication.sendEvent(block, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, QPoint(4, 4),
                                                        block.mapToGlobal(QPoint(4, 4))))
        qtbot.waitUntil(menu.isVisible, timeout=5000)
        assert menu.actions()[0].text() == first and all(a.isEnabled() for a in menu.actions() if a.text())
        assert block.menu_button.accessibleName() == "Message actions"
        menu.close()
