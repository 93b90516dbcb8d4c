"""The Settings dialog's Appearance page: the colour theme (light, dark, or the desktop's), applied by the
window as soon as the settings are saved."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QButtonGroup, QFormLayout, QRadioButton, QVBoxLayout

from desktop_agent.core.settings import Settings
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import SettingsPage, form_row, hint_label, note_label, show

#: the theme choices: ``appearance.theme`` → the radio button's text
THEMES: tuple[tuple[str, str], ...] = (
    ("light", "&Light"), ("dark", "&Dark"), ("system", "S&ystem (follow the desktop)"),
)


def theme_override_note(value: str) -> str | None:
    """The note saying ``DESKTOP_AGENT_THEME`` is set (to ``value``) and wins over the choice (None when it is
    not set)."""
    value = value.strip()
    if not value:
        return None
    return translate("AppearancePage",
            "`DESKTOP_AGENT_THEME` is set ({value}): it wins over this choice while it is set.").format(value=value)


class AppearancePage(SettingsPage):
    """``appearance.theme`` as three radio buttons. ``theme_override``: the value of ``DESKTOP_AGENT_THEME``
    ("" when it is not set), shown in a note."""

    def __init__(self, theme_override: str = "") -> None:
        super().__init__()
        self._theme_override = theme_override
        outer = QVBoxLayout(self)
        form = QFormLayout()
        outer.addLayout(form)
        outer.addStretch(1)

        self.theme_group = QButtonGroup(self)
        self.theme_buttons: dict[str, QRadioButton] = {}
        box = QVBoxLayout()
        for value, text in THEMES:
            button = QRadioButton(text)
            button.setAccessibleName(translate("AppearancePage", "Theme: {replace}").format(replace=text.replace('&',
                    '')))
            self.theme_group.addButton(button)
            self.theme_buttons[value] = button
            box.addWidget(button)
            button.toggled.connect(self.changed)
        self.override_note = note_label(translate("AppearancePage", "Theme override note"))
        form_row(form, translate("AppearancePage", "Theme:"), box, hint_label(translate("AppearancePage",
                "applied as soon as you save")), self.override_note,
                 buddy=self.theme_buttons["light"])

    def load(self, settings: Settings) -> None:
        self.theme_buttons[settings.appearance.theme].setChecked(True)
        show(self.override_note, theme_override_note(self._theme_override), "info")

    def values(self) -> dict[str, Any]:
        return {"appearance.theme": self.theme()}

    def theme(self) -> str:
        """The theme chosen: ``"light"``, ``"dark"`` or ``"system"``."""
        return next((v for v, b in self.theme_buttons.items() if b.isChecked()), "system")
