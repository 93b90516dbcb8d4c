"""What a message block offers for branches: the ``‹ 2/3 ›`` switcher between the versions of a message (other
answers to the same question, other versions of an edited question), and the message's actions menu
(Regenerate, Edit and resend, Fork from here, Delete this branch)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QToolButton, QWidget

from desktop_agent.core.messages import Message
from desktop_agent.ui import icons
from desktop_agent.ui.chat.context import ChatContext
from desktop_agent.ui.i18n import translate

#: the actions a block can ask for: (action, message) — ``regenerate`` (an answer again, from the same message),
#: ``edit`` (a user message, edited and sent again), ``fork`` (a new chat up to this message), ``delete`` (this
#: message and all that follows it, on every branch)
ACTIONS = ("regenerate", "edit", "fork", "delete")


class BranchSwitcher(QWidget):
    """``‹ 2/3 ›``: which version of a message is shown, and buttons to show the previous or next one. Hidden for a
    message without siblings."""

    #: show the branch through this message (id)
    switch_to = Signal(int)

    def __init__(self, ctx: ChatContext):
        super().__init__()
        self.setObjectName("branchSwitcher")
        self.ids: list[int] = []
        self.index = 0
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        self.prev = self._button("‹", translate("Branches", "Previous version"), -1)
        self.label = QLabel()
        self.label.setObjectName("branchPosition")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.next = self._button("›", translate("Branches", "Next version"), 1)
        row.addWidget(self.prev)
        row.addWidget(self.label)
        row.addWidget(self.next)
        self.setVisible(False)

    def _button(self, text: str, name: str, step: int) -> QToolButton:
        b = QToolButton()
        b.setObjectName("branchStep")
        b.setText(text)
        b.setAutoRaise(True)
        b.setToolTip(name)
        b.setAccessibleName(name)
        b.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        b.setCursor(Qt.CursorShape.PointingHandCursor)
        b.clicked.connect(lambda: self.step(step))
        return b

    def show_siblings(self, ids: list[int] | None, current: int | None) -> None:
        """The versions (ids, oldest first) of the message ``current``; none or one: hidden."""
        if not ids or len(ids) < 2 or current not in ids:
            self.ids = []
            self.setVisible(False)
            return
        self.ids, self.index = list(ids), ids.index(current)
        n, i = len(ids), self.index + 1
        self.label.setText(f"{i}/{n}")
        where = translate("Branches", "Version {i} of {n}").format(i=i, n=n)
        self.label.setAccessibleName(where)
        self.setAccessibleName(where)
        self.setToolTip(where)
        self.prev.setEnabled(self.index > 0)
        self.next.setEnabled(self.index < n - 1)
        self.setVisible(True)

    def step(self, by: int) -> None:
        """Show the previous (-1) or next (+1) version."""
        k = self.index + by
        if self.ids and 0 <= k < len(self.ids):
            self.switch_to.emit(self.ids[k])


class ActionsButton(QToolButton):
    """The ``⋯`` button of a message: its menu is built when it opens, from ``entries()`` — (label, action,
    message) triples, None for a separator."""

    #: an entry was chosen: (action, message)
    chosen = Signal(str, object)

    def __init__(self, ctx: ChatContext, entries: Callable[[], list[tuple[str, str, Message] | None]]):
        super().__init__()
        self.setObjectName("messageActions")
        self.entries = entries
        self.setAutoRaise(True)
        self.setIcon(icons.icon("more", ctx.theme.muted))
        self.setIconSize(QSize(15, 15))
        self.setText("⋯")
        name = translate("Branches", "Message actions")
        self.setToolTip(name)
        self.setAccessibleName(name)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu_ = QMenu(self)
        self.menu_.aboutToShow.connect(self.fill)
        self.setMenu(self.menu_)

    def fill(self) -> None:
        self.menu_.clear()
        for entry in self.entries():
            if entry is None:
                self.menu_.addSeparator()
                continue
            label, action, message = entry
            act = self.menu_.addAction(label)
            act.setEnabled(message.id is not None)
            act.triggered.connect(lambda _=False, a=action, m=message: self.chosen.emit(a, m))

    def popup_at(self, pos: QPoint) -> None:
        """Open the menu at ``pos`` (global), as a right-click does."""
        self.menu_.popup(pos)

    def restyle(self, ctx: ChatContext) -> None:
        self.setIcon(icons.icon("more", ctx.theme.muted))


def user_entries(message: Message) -> list[tuple[str, str, Message] | None]:
    """The actions menu of a user message."""
    return [(translate("Branches", "Edit and resend…"), "edit", message),
            (translate("Branches", "Fork from here"), "fork", message),
            None,
            (translate("Branches", "Delete this branch…"), "delete", message)]


def answer_entries(messages: list[Message]) -> list[tuple[str, str, Message] | None]:
    """The actions menu of an answer (its assistant and tool messages)."""
    if not messages:
        return []
    out: list[tuple[str, str, Message] | None] = [
        (translate("Branches", "Regenerate"), "regenerate", messages[0]),
        (translate("Branches", "Fork from here"), "fork", messages[-1]),
    ]
    for m in messages:
        if m.role == "tool":
            out.append((translate("Branches", "Fork from the result of {tool}").format(tool=m.tool_name or "?"),
                        "fork", m))
    out += [None, (translate("Branches", "Delete this branch…"), "delete", messages[0])]
    return out
