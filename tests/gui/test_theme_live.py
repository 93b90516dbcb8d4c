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
