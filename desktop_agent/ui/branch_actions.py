"""The window's side of branches: a message's actions (Regenerate, Edit and resend…, Fork from here, Delete this
branch…) and its ``‹ 2/3 ›`` reach the controller; editing asks for the new text, deleting asks first; the
version switched to is shown where it was."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QInputDialog, QMessageBox

from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:
    from desktop_agent.core.messages import Message


class BranchActions(QObject):
    """Connects the chat view's branch requests of ``window`` (a :class:`~desktop_agent.ui.main_window.MainWindow`)
    to its controller."""

    def __init__(self, window: Any):
        super().__init__(window)
        self.window = window
        chat, ctl = window.chat, window.controller
        chat.branch_action.connect(self.perform)
        chat.switch_branch.connect(self.switch)
        ctl.siblings_changed.connect(chat.show_siblings)
        ctl.turn_ended.connect(lambda: chat.adopt_messages(ctl.conversation))

    def perform(self, action: str, message: Message) -> None:
        """One of a message's actions (see :data:`~desktop_agent.ui.chat.branch_bar.ACTIONS`)."""
        ctl = self.window.controller
        if action == "regenerate":
            ctl.regenerate(message)
        elif action == "edit":
            self.edit(message)
        elif action == "fork":
            ctl.fork(message)
        elif action == "delete":
            self.delete(message)

    def edit(self, message: Message) -> None:
        """Ask for the message's new text (the old one to start from), then send it as a new version."""
        text, ok = QInputDialog.getMultiLineText(
            self.window, translate("Branches", "Edit and resend"),
            translate("Branches", "Your message (the earlier version and its answers are kept):"), message.content)
        if ok and text.strip() and text != message.content:
            self.window.controller.edit_resend(message, text)

    def delete(self, message: Message) -> None:
        """Ask, then delete the message and everything after it, on every branch."""
        ctl = self.window.controller
        n = len(ctl.conversation.siblings.get(message.id or -1, []))
        text = (translate("Branches", "Delete this version of the message and everything that follows it? "
                                      "The other versions are kept.") if n > 1 else
                translate("Branches", "Delete this message and everything that follows it, on every branch?"))
        answer = QMessageBox.question(
            self.window, translate("Branches", "Delete this branch"), text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
        if answer != QMessageBox.StandardButton.Yes:
            return
        ctl.delete_branch(message)
        self.window.history.refresh(ctl.conversation.id if ctl.conversation.messages else None)

    def switch(self, message_id: int) -> None:
        """Show another version of a message, in place: the view stays at that message."""
        ctl = self.window.controller
        ctl.switch_branch(message_id)
        if any(m.id == message_id for m in ctl.conversation.messages):
            QTimer.singleShot(0, lambda: self._focus(message_id))

    def _focus(self, message_id: int) -> None:
        block = self.window.chat.scroll_to_message(message_id)
        switcher = getattr(block, "switcher", None)
        if switcher is not None and switcher.isVisible():  # the keyboard stays on ‹ ›, to flip on
            target = switcher.next if switcher.next.isEnabled() else switcher.prev
            target.setFocus()
