"""Settings → Tools: "Offer at most N tools" (``tools.max_offered``, issue 13) is shown and saved; 0 reads "all"."""

from __future__ import annotations

import pytest

from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from tests.helpers.keyrings import DictKeyring


@pytest.fixture
def dialog(qtbot, clean_keyring_state):
    from desktop_agent.ui.settings.dialog import SettingsDialog

    made = SettingsDialog(Settings(), SecretStore(keyring_backend=DictKeyring()), auto_refresh=False)
    qtbot.addWidget(made)
    made.show()
    qtbot.waitUntil(lambda: made.openai_page.keys.loaded, timeout=10_000)
    yield made
    made.shutdown()
    made.close()


def test_max_offered_round_trips_and_zero_reads_all(qtbot, dialog):
    page = dialog.tools_page
    assert page.max_offered.value() == 12
    page.max_offered.setValue(0)
    assert page.max_offered.text() == "all"
    dialog.tabs.setCurrentIndex(3)  # Tools
    dialog.grab().save("/tmp/tools-page.png")
    page.max_offered.setValue(8)
    with qtbot.waitSignal(dialog.settings_saved, timeout=10_000) as saved:
        dialog.save_button.click()
    assert saved.args[0].tools.max_offered == 8
    assert Settings.load()[0].tools.max_offered == 8
