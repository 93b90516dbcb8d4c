"""The context meter: how much of the model's context window the chat's last request used (per chat), a
"Summarise" button, and the warning before a message that cannot fit is sent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:  # the message models (pydantic) load after the window's first frame; the meter is in it
    from desktop_agent.core.events import ContextUsage


def tokens_text(n: int) -> str:
    """``950``, ``1.2k``, ``128k``."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{round(n / 1000)}k"


def meter_text(usage: ContextUsage) -> str:
    """``1.2k / 4k``; ``1.2k / 8.2k (assumed)`` when the server did not say its window."""
    text = f"{tokens_text(usage.used)} / {tokens_text(usage.window or 0)}"
    return translate("ContextMeter", "{usage} (assumed)").format(usage=text) if usage.assumed else text


def meter_tooltip(usage: ContextUsage) -> str:
    how = translate("ContextMeter", "as the server counted them") if usage.reported else translate("ContextMeter",
            "estimated")
    lines = [translate("ContextMeter",
            "The last request used {used:,} of the model's {window:,}-token context window ({how}).").format(
                    used=usage.used, window=usage.window or 0, how=how)]
    if usage.assumed:
        lines.append(translate("ContextMeter",
                "The server does not say its window, so this one is assumed (Settings: “Context window if "
                     "unknown”); the real one is learned when the server refuses a request as too long."))
    if left_out := usage.left_out:
        lines.append(translate("ContextMeter", "%n earlier message did not fit and was not sent.", None, left_out)
                     if left_out == 1 else
                     translate("ContextMeter", "%n earlier messages did not fit and were not sent.", None, left_out))
    if trimmed := usage.trimmed:
        lines.append(translate("ContextMeter", "%n earlier tool result was sent trimmed.", None, trimmed)
                     if trimmed == 1 else
                     translate("ContextMeter", "%n earlier tool results were sent trimmed.", None, trimmed))
    lines.append(translate("ContextMeter", "Summarise earlier messages to keep more of the chat in view."))
    return "\n".join(lines)


class ContextMeter(QWidget):
    """``used / window`` of the shown chat's last request; hidden until a request reported it."""

    compact_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAccessibleName(translate("ContextMeter", "Context window used"))
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        self.caption = QLabel(translate("ContextMeter", "Context"))
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.bar.setFixedSize(80, 10)
        self.bar.setAccessibleName(translate("ContextMeter", "Context window used"))
        self.label = QLabel()
        self.compact = QToolButton()
        self.compact.setText(translate("ContextMeter", "Summarise"))
        self.compact.setToolTip(translate("ContextMeter",
                "Summarise earlier messages: the model gets a summary instead of them"))
        self.compact.setAccessibleName(translate("ContextMeter", "Summarise earlier messages"))
        self.compact.clicked.connect(self.compact_requested)
        for w in (self.caption, self.bar, self.label, self.compact):
            lay.addWidget(w)
        self.usage: ContextUsage | None = None
        self._by_chat: dict[str, ContextUsage] = {}
        self._chat: str | None = None
        self.show_usage(None)

    def show_usage(self, usage: ContextUsage | None) -> None:
        self.usage = usage
        self.setVisible(usage is not None and bool(usage.window))
        if usage is None or not usage.window:
            return
        self.bar.setRange(0, usage.window)
        self.bar.setValue(min(usage.used, usage.window))
        from desktop_agent.core.context import budget_for

        full = usage.used >= budget_for(usage.window) or usage.left_out > 0
        self.bar.setStyleSheet("QProgressBar::chunk { background: #c0392b; }" if full else "")
        self.label.setText(meter_text(usage))
        tip = meter_tooltip(usage)
        for w in (self, self.bar, self.label, self.caption):
            w.setToolTip(tip)

    # per chat
    def note(self, chat_id: str, usage: ContextUsage) -> None:
        """A request of chat ``chat_id`` reported ``usage``; shown when that chat is on screen."""
        self._by_chat[chat_id] = usage
        if chat_id == self._chat:
            self.show_usage(usage)

    def show_chat(self, chat_id: str) -> None:
        self._chat = chat_id
        self.show_usage(self._by_chat.get(chat_id))

    def window_tokens(self) -> int | None:
        return self.usage.window if self.usage is not None else None


def oversized(text: str, system_prompt: str, window: int | None) -> int | None:
    """The estimated tokens of a new message (with the system prompt) when it cannot fit ``window``, else None."""
    if not window:
        return None
    from desktop_agent.core.context import budget_for
    from desktop_agent.core.tokens import estimate_text

    tokens = estimate_text(text) + estimate_text(system_prompt) + 8
    return tokens if tokens > budget_for(window) else None


def confirm_oversized(parent: QWidget, tokens: int, window: int) -> bool:
    """Ask before sending a message that cannot fit: True = send anyway."""
    from PySide6.QtWidgets import QMessageBox  # (its type is built on first use: not for the first frame)

    box = QMessageBox(QMessageBox.Icon.Warning, translate("ContextMeter", "Message too long for the model"),
                      translate("ContextMeter",
                              "This message is about {tokens:,} tokens; the model's context window holds {window:,} "
                              "(with room for the answer). The model would miss part of it.").format(tokens=tokens,
                                      window=window), parent=parent)
    box.setInformativeText(translate("ContextMeter",
            "Send it anyway, or shorten it (or pick a model with a larger window)."))
    send = box.addButton(translate("ContextMeter", "Send anyway"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is send
