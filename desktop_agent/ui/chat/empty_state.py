"""What an empty chat shows: a greeting and a few prompts to try."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_agent.ui import icons


class EmptyState(QWidget):
    """The greeting of a new chat, with suggestion buttons."""

    #: a suggestion was clicked (its text)
    suggestion = Signal(str)

    SUGGESTIONS = (
        "What day of the week is it today?",
        "Explain Python's GIL in three bullet points",
        "Write a shell one-liner that finds the largest files",
    )

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
        title = QLabel("How can I help?")
        title.setObjectName("emptyTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(title)
        self.hint = QLabel(
            "Ask anything. The assistant can use tools — you'll see each call in the sidebar."
        )
        self.hint.setObjectName("emptyHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        lay.addWidget(self.hint)
        lay.addSpacing(8)
        for text in self.SUGGESTIONS:
            b = QPushButton(text)
            b.setObjectName("suggestion")
            b.setCursor(Qt.CursorShape.PointingHandCursor)
            b.setAccessibleName(f"Ask: {text}")
            b.clicked.connect(lambda _=False, t=text: self.suggestion.emit(t))
            row = QHBoxLayout()
            row.addStretch(1)
            row.addWidget(b)
            row.addStretch(1)
            lay.addLayout(row)
        lay.addStretch(4)
