"""The Settings dialog's Appearance page: the colour theme (light, dark, or the desktop's), applied by the
window as soon as the settings are saved, and the window's language (the system's, English, Simplified
Chinese), applied at the next start."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QButtonGroup, QComboBox, QFormLayout, QRadioButton, QVBoxLayout

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.settings import Settings
from desktop_agent.ui import i18n
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import SettingsPage, form_row, hint_label, note_label, show

#: the theme choices: ``appearance.theme`` → the radio button's text (translated where shown)
THEMES: tuple[tuple[str, str], ...] = (
    ("light", QT_TRANSLATE_NOOP("AppearancePage", "&Light")),
    ("dark", QT_TRANSLATE_NOOP("AppearancePage", "&Dark")),
    ("system", QT_TRANSLATE_NOOP("AppearancePage", "S&ystem (follow the desktop)")),
)

#: the language choices: ``appearance.language`` → the choice's text. A language is named in itself (a user who
#: cannot read the current language still finds their own); "Follow the system" is translated.
LANGUAGES: tuple[tuple[str, str], ...] = (
    ("system", QT_TRANSLATE_NOOP("AppearancePage", "Follow the system")),
    ("en", "English"),
    ("zh_CN", "简体中文"),
)


def theme_override_note(value: str) -> str | None:
    """The note saying ``DESKTOP_AGENT_THEME`` is set (to ``value``) and wins over the choice (None when it is
    not set)."""
    value = value.strip()
    if not value:
        return None
    return translate("AppearancePage",
                     "`DESKTOP_AGENT_THEME` is set ({value}): it wins over this choice while it is set."
                     ).format(value=value)


class AppearancePage(SettingsPage):
    """``appearance.theme`` as three radio buttons, ``appearance.language`` as a list. ``theme_override``: the
    value of ``DESKTOP_AGENT_THEME`` ("" when it is not set), shown in a note."""

    def __init__(self, theme_override: str = "") -> None:
        super().__init__()
        self._theme_override = theme_override
        self._loaded_language = "system"
        outer = QVBoxLayout(self)
        form = QFormLayout()
        outer.addLayout(form)
        outer.addStretch(1)

        self.theme_group = QButtonGroup(self)
        self.theme_buttons: dict[str, QRadioButton] = {}
        box = QVBoxLayout()
        for value, source in THEMES:
            text = translate("AppearancePage", source)
            button = QRadioButton(text)
            button.setAccessibleName(translate("AppearancePage", "Theme: {name}").format(name=text.replace("&", "")))
            self.theme_group.addButton(button)
            self.theme_buttons[value] = button
            box.addWidget(button)
            button.toggled.connect(self.changed)
        self.override_note = note_label(translate("AppearancePage", "Theme override note"))
        form_row(form, translate("AppearancePage", "Theme:"), box,
                 hint_label(translate("AppearancePage", "applied as soon as you save")), self.override_note,
                 buddy=self.theme_buttons["light"])

        self.language = QComboBox()
        self.language.setAccessibleName(translate("AppearancePage", "Language"))
        self.language.setMaximumWidth(260)
        for value, source in LANGUAGES:
            self.language.addItem(translate("AppearancePage", source) if value == "system" else source, value)
        self.language.currentIndexChanged.connect(self.changed)
        self.language.currentIndexChanged.connect(self._show_restart_note)
        self.restart_note = note_label(translate("AppearancePage", "Language note"))
        form_row(form, translate("AppearancePage", "&Language:"), self.language,
                 hint_label(translate("AppearancePage", "applies the next time the app starts")), self.restart_note)

    def load(self, settings: Settings) -> None:
        self.theme_buttons[settings.appearance.theme].setChecked(True)
        show(self.override_note, theme_override_note(self._theme_override), "info")
        self._loaded_language = settings.appearance.language
        self.language.setCurrentIndex(max(0, self.language.findData(settings.appearance.language)))
        self._show_restart_note()

    def values(self) -> dict[str, Any]:
        return {"appearance.theme": self.theme(), "appearance.language": self.language_choice()}

    def theme(self) -> str:
        """The theme chosen: ``"light"``, ``"dark"`` or ``"system"``."""
        return next((v for v, b in self.theme_buttons.items() if b.isChecked()), "system")

    def language_choice(self) -> str:
        """The language chosen: ``"system"``, ``"en"`` or ``"zh_CN"``."""
        return str(self.language.currentData() or "system")

    def _show_restart_note(self) -> None:
        """Say that a language other than the one the window speaks shows after a restart."""
        chosen = self.language_choice()
        differs = chosen != self._loaded_language and i18n.resolve(chosen) != i18n.current()
        show(self.restart_note, translate("AppearancePage", "Restart the app to see it in the language chosen.")
             if differs else None, "info")
