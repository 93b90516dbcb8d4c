"""A theme switched live (Settings → Appearance) reaches every widget that styles itself from the palette —
the history panel too — without a restart."""

from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from desktop_agent.core.settings import Settings
from desktop_agent.ui import theme


def test_a_theme_switched_live_restyles_every_widget(make_window, qtbot, monkeypatch):
    monkeypatch.delenv("DESKTOP_AGENT_THEME", raising=False)
    monkeypatch.setenv("QT_STYLE_OVERRIDE", "fusion")  # keep the test session's style as it is
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = QPalette(app.palette())
    try:
        app.setPalette(theme.light_palette())
        w = make_window(Settings().updated({"appearance.theme": "light"}), saved=Settings())
        assert w.history_panel is not None
        # each widget's own style sheet, and a colour of the theme it must show
        styled = {"history panel": (w.history_panel, "base"), "chat": (w.chat.content, "base"),
                  "central area": (w.central, "base"), "options strip": (w.chat_options, "muted")}

        def stale() -> list[str]:
            th = theme.current()
            return [name for name, (widget, colour) in styled.items() if getattr(th, colour) not in widget.styleSheet()]

        assert stale() == []
        for choice in ("dark", "light"):
            w.apply_settings(Settings().updated({"appearance.theme": choice}))  # the dialog's Save
            qtbot.waitUntil(lambda: not stale(), timeout=3000)
            assert stale() == []
    finally:
        app.setPalette(before)


def test_a_theme_another_window_saved_reaches_this_one_when_it_gets_the_focus(make_window, qtbot, monkeypatch):
    """Two windows open: Settings → Appearance → Dark saved in one; the other, on its next focus-in, follows the
    file (issue 21) — its theme too, not only the settings it keeps for the next turn."""
    from desktop_agent.core.services import Services

    monkeypatch.delenv("DESKTOP_AGENT_THEME", raising=False)
    monkeypatch.setenv("QT_STYLE_OVERRIDE", "fusion")
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = QPalette(app.palette())
    try:
        app.setPalette(theme.light_palette())
        Services(environ={}).update_settings({"appearance.theme": "light"})
        layered = Services(environ={}).layered
        w = make_window(layered.effective, saved=layered.saved)
        Services(environ={}).update_settings({"appearance.theme": "dark"})  # the other window's Save
        w.controller.check_outside_changes()  # this window's focus-in
        assert w.settings.appearance.theme == "dark"
        qtbot.waitUntil(lambda: app.palette().color(QPalette.ColorRole.Base)
                        == theme.dark_palette().color(QPalette.ColorRole.Base), timeout=3000)
    finally:
        app.setPalette(before)
