"""What an empty chat shows: a greeting, the presets to start it with, and a few prompts to try."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.ui import icons
from desktop_agent.ui.i18n import translate


class EmptyState(QWidget):
    """The greeting of a new chat, with suggestion buttons."""

    #: a suggestion was clicked (its text)
    suggestion = Signal(str)
    #: a preset was chosen for this chat (its id; "" for none: the plain chat)
    preset_chosen = Signal(str)

    #: prompts the shipped tools answer (the date, the weather, arithmetic)
    TOOL_SUGGESTIONS = (
        QT_TRANSLATE_NOOP("EmptyState", "What day of the week is it today?"),
        QT_TRANSLATE_NOOP("EmptyState", "What's the weather in Paris right now?"),
        QT_TRANSLATE_NOOP("EmptyState", "What is 17.5% of 2,340?"),
    )
    #: prompts a model answers on its own
    PLAIN_SUGGESTIONS = (
        QT_TRANSLATE_NOOP("EmptyState", "Explain Python's GIL in three bullet points"),
        QT_TRANSLATE_NOOP("EmptyState", "Write a shell one-liner that finds the largest files"),
        QT_TRANSLATE_NOOP("EmptyState", "Suggest five names for a hiking club"),
    )
    TOOL_HINT = QT_TRANSLATE_NOOP("EmptyState",
                                  "Ask anything. The assistant can use tools — you'll see each call in the sidebar.")
    PLAIN_HINT = QT_TRANSLATE_NOOP("EmptyState",
            "Ask anything. Tools are off: the assistant answers from the model alone.")

    def __init__(self):
        super().__init__()
        self.setObjectName("emptyState")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(10)
        lay.addStretch(3)
        logo = QLabel()
        logo.setPixmap(icons.pixmap("desktop-agent", 72, None, self.devicePixelRatioF()))
        logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(logo)
        title = QLabel(translate("EmptyState", "How can I help?"))
        title.setObjectName("emptyTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(title)
        self.hint = QLabel(translate("EmptyState", self.TOOL_HINT))
        self.hint.setObjectName("emptyHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        lay.addWidget(self.hint)
        self.preset_row = QHBoxLayout()
        self.preset_row.setSpacing(6)
        lay.addLayout(self.preset_row)
        self.preset_buttons: dict[str, QPushButton] = {}
        self._pool: list[QPushButton] = []
        self._start_label: QLabel | None = None
        lay.addSpacing(8)
        self.buttons: list[QPushButton] = []
        for _ in self.TOOL_SUGGESTIONS:
            b = QPushButton()
            b.setObjectName("suggestion")
            b.setCursor(Qt.CursorShape.PointingHandCursor)
            b.clicked.connect(lambda _=False, b=b: self.suggestion.emit(b.text()))
            row = QHBoxLayout()
            row.addStretch(1)
            row.addWidget(b)
            row.addStretch(1)
            lay.addLayout(row)
            self.buttons.append(b)
        self.tools_on = True
        self.set_tools(True)
        lay.addStretch(4)

    def set_presets(self, presets: list[tuple[str, str]], active: str = "") -> None:
        """The presets a new chat can start with: (id, name) — as a row of buttons, ``active``
        (an id) checked; "Plain" (id "") is the chat without a preset. Buttons are reused, never deleted (deleting
        widgets was seen to invalidate other wrappers the window holds, with PySide 6.11)."""
        choices = [("", translate("EmptyState", "Plain")), *presets] if presets else []
        if not self._pool:
            self.preset_row.addStretch(1)
            self._start_label = QLabel(translate("EmptyState", "Start as:"))
            self._start_label.setObjectName("emptyHint")
            self.preset_row.addWidget(self._start_label)
            self.preset_row.addStretch(1)
        while len(self._pool) < len(choices):
            b = QPushButton()
            b.setObjectName("presetChoice")
            b.setCheckable(True)
            b.setCursor(Qt.CursorShape.PointingHandCursor)
            b.clicked.connect(lambda _=False, b=b: self.preset_chosen.emit(str(b.property("presetId"))))
            self.preset_row.insertWidget(self.preset_row.count() - 1, b)
            self._pool.append(b)
        self.preset_buttons = {}
        for i, b in enumerate(self._pool):
            if i >= len(choices):
                b.hide()
                continue
            pid, name = choices[i]
            b.setProperty("presetId", pid)
            b.setText(name)
            b.setChecked(pid == active)
            b.setToolTip(translate("EmptyState", "This chat with the system prompt, model and tools of {name}").format(
                    name=name) if pid else translate("EmptyState", "This chat with the system prompt of Settings"))
            b.setAccessibleName(translate("EmptyState", "Start as {name}").format(name=name))
            b.show()
            self.preset_buttons[pid] = b
        if self._start_label is not None:
            self._start_label.setVisible(bool(choices))

    def set_tools(self, on: bool) -> None:
        """Suggest what the assistant can do: prompts for the tools when they are on, others when off."""
        self.tools_on = on
        self.hint.setText(translate("EmptyState", self.TOOL_HINT if on else self.PLAIN_HINT))
        for b, source in zip(self.buttons, self.TOOL_SUGGESTIONS if on else self.PLAIN_SUGGESTIONS, strict=True):
            text = translate("EmptyState", source)
            b.setText(text)
            b.setAccessibleName(translate("EmptyState", "Ask: {text}").format(text=text))
