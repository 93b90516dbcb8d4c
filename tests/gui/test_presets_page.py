"""Settings → Presets in the real dialog: the shipped presets are listed, one can be added, edited, duplicated and
deleted; an edited shipped preset can be reset; Save writes them to the settings file (only the edits and the user's
own presets), and a nameless or repeated name blocks Save with a message."""

from __future__ import annotations

import pytest

from desktop_agent.core import presets
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from desktop_agent.ui.settings.dialog import SettingsDialog
from tests.helpers.keyrings import DictKeyring

WAIT_MS = 10_000


@pytest.fixture
def dialog(qtbot):
    d = SettingsDialog(Settings(), SecretStore(keyring_backend=DictKeyring()), auto_refresh=False)
    qtbot.addWidget(d)
    d.show()
    qtbot.waitUntil(lambda: d.openai_page.keys.loaded, timeout=WAIT_MS)
    d.show_page("Presets")
    yield d
    d.close()


def names(page) -> list[str]:
    return [page.list.item(i).text() for i in range(page.list.count())]


def test_add_edit_duplicate_delete_and_reset_then_save(dialog, qtbot):
    page = dialog.presets_page
    assert dialog.tabs.tabText(dialog.tabs.currentIndex()) == "Presets"
    assert names(page) == ["Coder", "Writer", "Researcher"]
    assert page.state_note.text() == "Shipped with the app." and not page.reset_button.isEnabled()
    # edit a shipped one: marked, and Reset brings it back
    page.list.setCurrentRow(1)
    page.prompt_edit.setPlainText("Write like Hemingway.")
    assert names(page)[1] == "Writer (edited)" and page.reset_button.isEnabled()
    page.reset_button.click()
    assert names(page)[1] == "Writer" and page.prompt_edit.toPlainText() == presets.shipped("writer").system_prompt  # type: ignore[union-attr]
    page.prompt_edit.setPlainText("Write like Hemingway.")
    # add one of the user's own
    page.add_button.click()
    assert names(page)[-1] == "New preset" and page.name_edit.hasFocus()
    page.name_edit.setText("Translator")
    page.name_edit.textEdited.emit("Translator")
    page.prompt_edit.setPlainText("Translate the user's text into English.")
    page.model_edit.setText("qwen3:8b")
    page.model_edit.textEdited.emit("qwen3:8b")
    page.temp_box.setChecked(True)
    page.temp_spin.setValue(0.3)
    page.tools_combo.setCurrentIndex(2)  # Off
    page.duplicate_button.click()
    assert names(page)[-1] == "Translator copy"
    page.delete_button.click()
    assert names(page) == ["Coder", "Writer (edited)", "Researcher", "Translator"]
    page.list.setCurrentRow(2)
    page.delete_button.click()  # a shipped one: hidden, and Restore shipped presets offers it back
    assert "Researcher" not in names(page) and page.restore_button.isVisible()
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    s = saved.args[0]
    loaded, warnings = Settings.load()
    assert warnings == [] and loaded == s
    assert presets.names(s) == ["Coder", "Writer", "Translator"]
    assert s.presets.removed == ["researcher"] and [p.name for p in s.presets.items] == ["Writer", "Translator"]
    mine = presets.find(s, "translator")
    assert mine is not None and (mine.model, mine.temperature, mine.tools) == ("qwen3:8b", 0.3, False)
    assert mine.system_prompt == "Translate the user's text into English."
    assert presets.find(s, "writer").system_prompt == "Write like Hemingway."  # type: ignore[union-attr]


def test_a_preset_without_a_name_or_with_a_taken_name_blocks_save(dialog):
    page = dialog.presets_page
    page.list.setCurrentRow(0)
    page.name_edit.setText("")
    page.name_edit.textEdited.emit("")
    assert not dialog.save_button.isEnabled() and page.name_note.text().endswith("A preset needs a name.")
    page.name_edit.setText("writer")
    page.name_edit.textEdited.emit("writer")
    assert not dialog.save_button.isEnabled() and page.name_note.text().endswith("Two presets are named “Writer”.")
    page.name_edit.setText("Programmer")
    page.name_edit.textEdited.emit("Programmer")
    assert dialog.save_button.isEnabled() and not page.name_note.isVisible()
