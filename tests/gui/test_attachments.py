"""Attachments in the window, against the local Ollama protocol server (which decodes the images it gets and
echoes the text): drop and paste files into the compose box, their chips, the no-vision warning before sending,
the sent message's chips, the image bigger on a click, and the chips again when the chat is reopened."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication

from desktop_agent.ui.chat.turn import UserBubble
from desktop_agent.ui.file_chips import FileChip, ImagePreview
from tests.helpers.files import pdf_bytes, png_bytes, write
from tests.helpers.gui import last_turn_text, wait_idle

VISION = (8192, ["completion", "tools", "vision"])
NO_VISION = (8192, ["completion", "tools"])


def drop_files(widget, paths: list[Path]) -> None:
    """Drop files on the compose box as a file manager does (drag enter, then drop, on its viewport)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    target = widget.viewport()
    enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted(), "the compose box refused the drag"
    assert widget.parentWidget().property("dropping") is True  # the box's frame shows it takes the files
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, drop)


def paste_image(qtbot, w, width: int = 4, height: int = 3) -> None:
    image = QImage.fromData(png_bytes(width, height))
    QApplication.clipboard().setImage(image)
    w.input.setFocus()
    qtbot.keyClick(w.input, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)


def chips(w) -> list[FileChip]:
    return list(w.composer.tray.chips)


def read_all(qtbot, w, n: int) -> None:
    qtbot.waitUntil(lambda: len(chips(w)) == n and not w.composer.tray.reading(), timeout=10_000)


def window_for(qtbot, make_window, ollama_server, ollama_settings, facts):
    ollama_server.model_facts["llama3.2"] = facts
    ollama_server.model_facts["llama3.2:latest"] = facts
    w = make_window(ollama_settings)
    w.refresh_models()
    qtbot.waitUntil(lambda: w.capabilities.facts.get(w.settings.model) is not None, timeout=10_000)
    return w


def test_drop_a_text_file_and_a_pdf_paste_an_image_and_the_model_gets_them(
        qtbot, make_window, ollama_server, ollama_settings, tmp_path):
    w = window_for(qtbot, make_window, ollama_server, ollama_settings, VISION)
    notes = write(tmp_path, "notes.txt", "Remember the milk.")
    report = write(tmp_path, "report.pdf", pdf_bytes("The secret word is pelican."))
    drop_files(w.input, [notes, report])
    assert not w.composer.property("dropping")
    paste_image(qtbot, w, 4, 3)
    read_all(qtbot, w, 3)
    assert w.input.toPlainText() == ""  # files became chips, not paths typed into the text
    names = [c.name for c in chips(w)]
    assert names[:2] == ["notes.txt", "report.pdf"] and names[2].endswith(".png")
    assert [c.detail.text() for c in chips(w)][:2] == ["18 B · text", f"{report.stat().st_size} B · PDF"]
    image_chip = chips(w)[2]
    assert image_chip.image is not None and image_chip.thumb.pixmap() is not None
    assert image_chip.accessibleName().startswith("Attached file pasted image 1.png, ")
    assert not w.composer.tray.warning.isVisible()

    w.input.setPlainText("What are these?")
    qtbot.keyClick(w.input, Qt.Key.Key_Return)
    wait_idle(qtbot, w, 15_000)
    sent = ollama_server.chat_requests[-1]["messages"][-1]
    assert sent["content"].startswith("What are these?\n\n--- file: notes.txt ---\nRemember the milk.")
    assert "--- file: report.pdf ---\nThe secret word is pelican." in sent["content"]
    assert len(sent["images"]) == 1 and QImage.fromData(ollama_server.images[0]).size().toTuple() == (4, 3)
    assert last_turn_text(w).startswith("I see a PNG image of 4×3 pixels.")
    assert w.composer.tray.chips == [] and not w.composer.tray.isVisible()

    bubble = next(b for b in w.chat.blocks if isinstance(b, UserBubble))
    assert bubble.files is not None and [c.name for c in bubble.files.chips][:2] == ["notes.txt", "report.pdf"]
    shown = bubble.files.chips[2]
    qtbot.mouseClick(shown, Qt.MouseButton.LeftButton)  # the image, bigger
    preview = next(d for d in QApplication.topLevelWidgets() if isinstance(d, ImagePreview) and d.isVisible())
    assert preview.label.pixmap().size().toTuple() == (4, 3)
    preview.close()

    chat_id = w.conversation.id
    w.new_chat()
    w.open_conversation(chat_id)  # reopened: the chips come back from the store
    qtbot.waitUntil(lambda: any(isinstance(b, UserBubble) for b in w.chat.blocks), timeout=5000)
    bubble = next(b for b in w.chat.blocks if isinstance(b, UserBubble))
    assert bubble.files is not None
    qtbot.waitUntil(lambda: bubble.files.chips[2].image is not None, timeout=5000)  # made off the window's thread
    kinds = [(c.name, c.attachment.kind) for c in bubble.files.chips if c.attachment is not None]
    assert kinds[:2] == [("notes.txt", "text"), ("report.pdf", "pdf")]
    assert bubble.files.chips[2].image is not None


def test_a_model_without_vision_is_told_before_sending_and_nothing_goes(
        qtbot, make_window, ollama_server, ollama_settings):
    w = window_for(qtbot, make_window, ollama_server, ollama_settings, NO_VISION)
    paste_image(qtbot, w)
    read_all(qtbot, w, 1)
    tray = w.composer.tray
    qtbot.waitUntil(tray.warning.isVisible, timeout=3000)
    assert "llama3.2:latest cannot see images" in tray.warning.text()
    w.input.setPlainText("what is it?")
    before = len(ollama_server.chat_requests)
    qtbot.keyClick(w.input, Qt.Key.Key_Return)
    assert not w.busy and len(ollama_server.chat_requests) == before
    assert w.input.toPlainText() == "what is it?"  # nothing lost
    assert "cannot see images" in w.statusBar().currentMessage()

    chip = chips(w)[0]
    w.input.setFocus()  # keyboard only: Shift+Tab from the text reaches Attach files, then the file
    qtbot.keyClick(w.input, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.focusWidget() is w.composer.attach
    qtbot.keyClick(w.composer.attach, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.focusWidget() is tray  # the row of files: one stop, its name says which file
    assert tray.accessibleName() == f"Attached files: {chip.accessibleName()} (1 of 1)"
    assert chip.property("current") is True  # the file the keyboard is on has a ring
    qtbot.keyClick(tray, Qt.Key.Key_Delete)  # Delete removes it
    assert tray.chips == [] and not tray.warning.isVisible()
    w.input.setFocus()
    qtbot.keyClick(w.input, Qt.Key.Key_Return)
    wait_idle(qtbot, w, 15_000)
    assert ollama_server.chat_requests[-1]["messages"][-1] == {"role": "user", "content": "what is it?"}


def test_files_dropped_on_the_chat_are_attached_too(qtbot, make_window, ollama_server, ollama_settings, tmp_path):
    w = window_for(qtbot, make_window, ollama_server, ollama_settings, VISION)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(write(tmp_path, "dropped.csv", "a,b\n1,2\n")))])
    target = w.chat.viewport()
    enter = QDragEnterEvent(QPoint(40, 40), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted() and w.composer.property("dropping") is True
    QApplication.sendEvent(target, QDropEvent(QPointF(40, 40), Qt.DropAction.CopyAction, mime,
                                              Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))
    read_all(qtbot, w, 1)
    assert chips(w)[0].name == "dropped.csv" and not w.composer.property("dropping")


def test_a_file_that_cannot_be_read_says_so_on_its_chip_and_sends_nothing_of_it(
        qtbot, make_window, ollama_server, ollama_settings, tmp_path):
    w = window_for(qtbot, make_window, ollama_server, ollama_settings, VISION)
    pdf = pdf_bytes("pelican")
    drop_files(w.input, [write(tmp_path, "tool.bin", bytes(range(256)) * 8),
                         write(tmp_path, "broken.pdf", pdf[: len(pdf) // 3])])
    read_all(qtbot, w, 2)
    assert [c.detail.text() for c in chips(w)] == ["not a text file, PDF or image — not sent",
                                                    "damaged or protected — not sent"]
    assert chips(w)[0].accessibleName() == "tool.bin, cannot be used: not a text file, PDF or image — not sent"
    assert chips(w)[0].remove is not None and chips(w)[0].remove.accessibleName() == "Remove tool.bin"
    tray = w.composer.tray
    tray.setFocus()  # the keyboard in the row of files: Right to the second, Delete removes it, then the first
    qtbot.keyClick(tray, Qt.Key.Key_Right)
    assert tray.accessibleName().startswith("Attached files: broken.pdf, ") and tray.accessibleName().endswith(
        "(2 of 2)")
    qtbot.keyClick(tray, Qt.Key.Key_Delete)
    assert [c.name for c in chips(w)] == ["tool.bin"] and tray.accessibleName().endswith("(1 of 1)")
    w.input.setPlainText("hi")
    qtbot.keyClick(w.input, Qt.Key.Key_Return)
    wait_idle(qtbot, w, 15_000)
    assert ollama_server.chat_requests[-1]["messages"][-1] == {"role": "user", "content": "hi"}


def test_attach_button_and_shortcut_open_the_file_dialog(qtbot, make_window, ollama_server, ollama_settings,
                                                         tmp_path):
    w = window_for(qtbot, make_window, ollama_server, ollama_settings, VISION)
    w.input.setFocus()
    qtbot.keyClick(w.input, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: getattr(w.composer, "file_dialog", None) is not None
                    and w.composer.file_dialog.isVisible(), timeout=5000)
    dialog = w.composer.file_dialog
    dialog.filesSelected.emit([str(write(tmp_path, "a.py", "print('hi')\n"))])
    dialog.close()
    read_all(qtbot, w, 1)
    assert chips(w)[0].detail.text() == "12 B · text"
    assert w.composer.attach.accessibleName() == "Attach files"


def test_an_image_alone_is_a_message_and_its_bubble_has_no_empty_text(
        qtbot, make_window, ollama_server, ollama_settings):
    w = window_for(qtbot, make_window, ollama_server, ollama_settings, VISION)
    paste_image(qtbot, w, 2, 2)
    read_all(qtbot, w, 1)
    qtbot.keyClick(w.input, Qt.Key.Key_Return)  # an empty box with a file: sent
    wait_idle(qtbot, w, 15_000)
    assert ollama_server.chat_requests[-1]["messages"][-1]["content"] == ""
    assert last_turn_text(w).startswith("I see a PNG image of 2×2 pixels.")
    bubble = next(b for b in w.chat.blocks if isinstance(b, UserBubble))
    assert bubble.files is not None and bubble.files.isVisible() and not bubble.text.isVisible()
    assert w.isActiveWindow()  # no part of the bubble became a window of its own


def test_files_no_chat_uses_are_swept_at_start_up_off_the_window_thread(qtbot, make_window, ollama_settings):
    import os
    import time

    from desktop_agent.core.attachments import attach_bytes
    from desktop_agent.core.messages import Conversation, Message
    from desktop_agent.core.store import ConversationStore
    from desktop_agent.core.store.attachments import ORPHAN_GRACE_S

    store = ConversationStore()  # the default store, the one the window opens
    kept = attach_bytes("kept.txt", b"still used")
    store.add_message(Conversation(), Message(role="user", content="x", attachments=[kept]))
    stray = store.files.write("c" * 64, b"left behind by a crash")
    past = time.time() - ORPHAN_GRACE_S - 60
    os.utime(stray, (past, past))
    kept_path = store.files.path_of(kept.sha256)
    store.close()
    make_window(ollama_settings)
    qtbot.waitUntil(lambda: not stray.exists(), timeout=10_000)
    assert kept_path.exists()


def test_a_sent_image_whose_stored_copy_is_gone_says_so_on_its_chip(qtbot, make_window, ollama_settings):
    from desktop_agent.core.attachments import attach_bytes
    from desktop_agent.core.messages import Conversation, Message
    from desktop_agent.core.store import ConversationStore

    store = ConversationStore()
    conv = Conversation()
    image = attach_bytes("gone.png", png_bytes(9, 9))
    store.add_message(conv, Message(role="user", content="look", attachments=[image]))
    store.add_message(conv, Message(role="assistant", content="a picture"))
    store.files.path_of(image.sha256).unlink()
    store.close()
    w = make_window(ollama_settings)
    w.open_conversation(conv.id)
    qtbot.waitUntil(lambda: any(isinstance(b, UserBubble) for b in w.chat.blocks), timeout=5000)
    bubble = next(b for b in w.chat.blocks if isinstance(b, UserBubble))
    assert bubble.files is not None
    assert bubble.files.chips[0].detail.text() == "its stored copy is gone"


def test_a_model_whose_server_says_nothing_is_warned_before_sending_and_the_second_send_sends(
        qtbot, make_window, openai_server, tmp_path):
    """llama.cpp's OpenAI-compatible server (the README's ``smollm2``) lists no capabilities: the tray warns
    before sending that the model may not see images; the first Send is held (told in the status bar, nothing
    lost), the second sends the image anyway."""
    from desktop_agent.core.settings import Settings

    openai_server.models = ["smollm2", "qwen2.5vl:7b"]
    w = make_window(Settings(backend="openai", openai_base_url=openai_server.url, openai_model="smollm2",
                             openai_needs_key=False, tools_enabled=False))
    paste_image(qtbot, w, 3, 2)
    read_all(qtbot, w, 1)
    tray = w.composer.tray
    qtbot.waitUntil(tray.warning.isVisible, timeout=5000)
    assert tray.warning.text().startswith("⚠ smollm2 may not see images: its server does not say")
    w.grab().save(str(tmp_path / "maybe.png"))
    w.input.setPlainText("what is it?")
    qtbot.keyClick(w.input, Qt.Key.Key_Return)
    assert not w.busy and openai_server.chat_requests == [] and len(tray.chips) == 1
    assert w.input.toPlainText() == "what is it?"
    assert "may not see images" in w.statusBar().currentMessage()
    qtbot.keyClick(w.input, Qt.Key.Key_Return)  # the user's explicit choice: send anyway
    wait_idle(qtbot, w, 15_000)
    assert len(openai_server.images) == 1 and QImage.fromData(openai_server.images[0]).size().toTuple() == (3, 2)



def test_a_damaged_image_says_so_on_its_chip_and_a_whole_huge_one_is_never_called_damaged(
        qtbot, make_window, ollama_server, ollama_settings, tmp_path):
    from desktop_agent.core.attachments import attach_file
    from desktop_agent.ui.file_chips import SentFiles
    from tests.helpers.files import huge_png

    w = window_for(qtbot, make_window, ollama_server, ollama_settings, VISION)
    png = png_bytes(4, 3)
    drop_files(w.input, [write(tmp_path, "cut.png", png[: len(png) - 20]),
                         write(tmp_path, "junk.png", b"\x89PNG\r\n\x1a\n" + b"junk" * 100)])
    read_all(qtbot, w, 2)
    assert [c.detail.text() for c in chips(w)] == ["damaged — not sent", "damaged — not sent"]
    assert w.composer.tray.attachments() == []  # nothing of them goes
    huge = attach_file(write(tmp_path, "huge.png", huge_png()))
    sent = SentFiles([huge])  # Qt will not decode 30000×30000 pixels: a file icon, not "damaged"
    qtbot.addWidget(sent)
    chip = sent.chips[0]
    from desktop_agent.ui.file_chips import thumbnails

    qtbot.waitUntil(lambda: huge.sha256 in thumbnails().kept, timeout=30_000)  # Qt tried, and gave up
    assert thumbnails().kept[huge.sha256].isNull() and chip.image is None
    assert huge.problem is None and chip.detail.text().endswith(" KB · image"), chip.detail.text()
    assert "damaged" not in chip.accessibleName()
