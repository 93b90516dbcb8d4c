"""The chat on screen as a tree, for the window's controller: regenerate, edit and resend, fork, switch and delete
a branch (a mixin of :class:`~desktop_agent.ui.controller.Controller`, kept in a module of its own)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from desktop_agent.core.errors import StoreError
from desktop_agent.core.messages import Message
from desktop_agent.core.tools.remembered import audited_decisions
from desktop_agent.ui.i18n import number, translate

if TYPE_CHECKING:
    from desktop_agent.core.messages import Conversation


class Branching:
    """Branch actions of the controller (see the module docstring)."""

    if TYPE_CHECKING:  # the controller's
        store: Any
        session: Any
        settings: Any
        status: Any
        chat_opened: Any
        chat_saved: Any
        siblings_changed: Any
        _branching: bool
        _regenerated_from: tuple[str, int | None] | None
        _refused: Callable[[], bool]
        _start: Callable[..., Any]
        new_chat: Callable[..., Any]
        open_conversation: Callable[[str], bool]

        @property
        def conversation(self) -> Conversation: ...

    def _index(self, message: Message) -> int | None:
        return next((i for i, m in enumerate(self.conversation.messages) if m is message or
                     (message.id is not None and m.id == message.id)), None)

    def _reshow(self) -> None:
        """The chat on screen changed branch: shown again (its tool calls in the sidebar too)."""
        self.chat_opened.emit(self.conversation, audited_decisions(self.store, self.conversation.id))

    def _refresh_siblings(self) -> None:
        if not self.store:
            return
        try:
            self.conversation.siblings = self.store.load(self.conversation.id).siblings
        except StoreError:
            return
        self.siblings_changed.emit(self.conversation.siblings)

    def _show_kept_answer(self) -> bool:
        """After a regenerate that saved nothing (stopped or failed before its first word): the chat shows the
        answer it had again (the store still shows it), with the failure if there was one. True when it did."""
        before, self._regenerated_from = self._regenerated_from, None
        if before is None or not self.store or before[0] != self.conversation.id:
            return False
        try:
            if self.store.leaf_id(before[0]) != before[1]:
                return False  # the new answer was (partly) saved: it is a version of its own
        except StoreError:
            return False
        return self.open_conversation(before[0])

    def _say_if_same_answer(self) -> None:
        """A regenerated answer word for word like another version of it: say why (a low temperature makes the
        model answer the same way each time) and what gives other answers."""
        last = self.conversation.messages[-1] if self.conversation.messages else None
        if last is None or last.role != "assistant" or last.id is None or not last.content or not self.store:
            return
        others = set(self.conversation.siblings.get(last.id, [])) - {last.id}
        try:
            same = any(m.id in others and m.content == last.content for m in self.store.tree(self.conversation.id))
        except StoreError:
            return
        if same:
            temperature = self.session.effective(self.settings).generation.temperature
            self.status.emit(translate("Controller", "The same answer as before: at temperature {t} the model "
                                       "answers alike each time. A higher temperature (above the message box) gives "
                                       "other answers.").format(t=number(temperature)), 10_000)

    def _cut_at(self, index: int) -> None:
        """The chat on screen ends before its message ``index``: a new branch grows from there."""
        conv = self.conversation
        conv.messages = conv.messages[:index]
        conv.last_failure = None
        conv.siblings = {k: v for k, v in conv.siblings.items() if any(m.id == k for m in conv.messages)}
        self._reshow()

    def regenerate(self, message: Message) -> None:
        """Answer again from the message before ``message`` (the first message of an answer): the new answer is
        another version of it (``‹ 2/2 ›``), the old one is kept."""
        i = self._index(message)
        if self._refused() or not i:
            return
        try:  # the store goes on showing the answer until the new one is saved: a Stop or a quit before its first
            # word loses nothing (the new answer's parent is the question, whatever the store shows)
            self._regenerated_from = (self.conversation.id, self.store.leaf_id(self.conversation.id))
        except StoreError as exc:
            self.status.emit(translate("Controller", "Could not regenerate: {error}").format(error=exc), 8000)
            return
        self._cut_at(i)
        self._branching = True
        self._start(None, None)

    def edit_resend(self, message: Message, text: str) -> None:
        """Send ``text`` instead of the user message ``message``: a new version of it (the old one and what
        followed are kept), answered."""
        i = self._index(message)
        if self._refused() or i is None or not text.strip():
            return
        self._cut_at(i)
        self._branching = True
        self._start(text, None)

    def fork(self, message: Message) -> None:
        """A new chat holding this chat up to ``message``, shown; forked from a tool result (or a question), the
        model answers from it at once."""
        if self._refused() or message.id is None:
            return
        try:
            new_id = self.store.fork(message.id)
        except StoreError as exc:
            self.status.emit(translate("Controller", "Could not fork the chat: {error}").format(error=exc), 8000)
            return
        self.chat_saved.emit(new_id, False)
        if self.open_conversation(new_id):
            self.status.emit(translate("Controller", "Forked into a new chat."), 4000)
            if self.conversation.messages and self.conversation.messages[-1].role in ("tool", "user"):
                self._start(None, None)

    def switch_branch(self, message_id: int) -> None:
        """Show the branch through the message ``message_id`` (another version of a message): it is the one
        continued from now on."""
        if self._refused():
            return
        try:
            self.store.switch_branch(message_id)
            self.session.conversation = self.store.load(self.conversation.id)
        except StoreError as exc:
            self.status.emit(translate("Controller", "Could not show that version: {error}").format(error=exc), 8000)
            return
        self._reshow()

    def delete_branch(self, message: Message) -> None:
        """Delete ``message`` and everything after it on every branch (the caller asked the user); the chat shows
        another version of it, or ends before it. A chat left without messages is deleted."""
        if self._refused() or message.id is None:
            return
        cid = self.conversation.id
        try:
            self.store.delete_branch(message.id)
            conv = self.store.load(cid)
            if not conv.messages:
                self.store.delete(cid)
        except StoreError as exc:
            self.status.emit(translate("Controller", "Could not delete the branch: {error}").format(error=exc), 8000)
            return
        if not conv.messages:
            self.new_chat()
            return
        self.session.conversation = conv
        self.chat_saved.emit(cid, True)
        self._reshow()

