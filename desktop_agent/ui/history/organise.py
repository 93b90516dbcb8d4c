"""Organising the history panel's chats: pin and tag them, and filter the list by tag, model and date.

- :class:`LabelActions`: *Pin to top* (checkable) and a *Tags* menu (the tags in use, ticked on the selected chat's;
  *New tag…*) for the panel's context menu and its Chat button — changes are saved at once and the list follows;
- :class:`HistoryFilter`: the row under the search box: a *Filter* button whose menu picks a tag, a model (those of
  the saved chats, with how many chats) and a time range, and a line saying what is filtered, with *Clear*.

Both read and write through the store (:mod:`desktop_agent.core.store.labels`); the list itself is the panel's model,
which asks the store for the filtered page (:meth:`~desktop_agent.ui.history.models.ChatListModel.set_filter`).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QHBoxLayout, QInputDialog, QLabel, QMenu, QSizePolicy, QToolButton, QWidget

from desktop_agent.core.errors import StoreError
from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.store.labels import ChatFilter
from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:
    from desktop_agent.ui.history.panel import HistoryPanel

#: the time ranges of the filter: key, label
PERIODS = (("any", QT_TRANSLATE_NOOP("HistoryFilter", "Any time")),
           ("today", QT_TRANSLATE_NOOP("HistoryFilter", "Today")),
           ("week", QT_TRANSLATE_NOOP("HistoryFilter", "Last 7 days")),
           ("month", QT_TRANSLATE_NOOP("HistoryFilter", "Last 30 days")),
           ("older", QT_TRANSLATE_NOOP("HistoryFilter", "Older than 30 days")))


def period_range(key: str, today: _dt.date) -> tuple[float | None, float | None]:
    """(since, until) in epoch seconds (local days) for a time range of :data:`PERIODS`."""
    def start(day: _dt.date) -> float:
        return _dt.datetime.combine(day, _dt.time()).timestamp()

    if key == "today":
        return start(today), None
    if key == "week":
        return start(today - _dt.timedelta(days=6)), None
    if key == "month":
        return start(today - _dt.timedelta(days=29)), None
    if key == "older":
        return None, start(today - _dt.timedelta(days=29))
    return None, None


class LabelActions(QObject):
    """Pin and tag the panel's selected chat (see the module docstring)."""

    def __init__(self, panel: HistoryPanel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.pin_action = QAction(translate("HistoryLabels", "&Pin to top"), panel)
        self.pin_action.setCheckable(True)
        self.pin_action.setToolTip(translate("HistoryLabels", "Keep this chat at the top of the list"))
        self.pin_action.triggered.connect(self._pin)
        self.tags_menu = QMenu(translate("HistoryLabels", "&Tags"), panel)
        self.tags_menu.setObjectName("historyTagsMenu")
        self.tags_menu.aboutToShow.connect(self.fill_tags)

    def update(self) -> None:
        """Follow the selected chat (its pin)."""
        cid = self.panel.current_id()
        s = self.panel.model.summary(self.panel.list.currentIndex().row()) if cid else None
        self.pin_action.setEnabled(s is not None)
        self.tags_menu.setEnabled(s is not None)
        self.pin_action.setChecked(bool(s and s.pinned))
        self.pin_action.setText(translate("HistoryLabels", "Un&pin") if s and s.pinned
                                else translate("HistoryLabels", "&Pin to top"))

    def fill_tags(self) -> None:
        """The Tags menu for the selected chat: each tag in use (ticked: the chat has it), then New tag…."""
        self.tags_menu.clear()
        from desktop_agent.core.store.labels import tag_key

        cid = self.panel.current_id()
        if cid is None:
            return
        try:
            mine = {tag_key(t) for t in self.panel.store.chat_tags(cid)}
            tags = self.panel.store.all_tags()
        except StoreError as exc:
            self.panel.show_error(str(exc))
            return
        for tag, _count in tags:
            action = self.tags_menu.addAction(tag)
            action.setCheckable(True)
            action.setChecked(tag_key(tag) in mine)
            action.triggered.connect(lambda on, t=tag, c=cid: self.set_tag(c, t, on))
        if tags:
            self.tags_menu.addSeparator()
        new = self.tags_menu.addAction(translate("HistoryLabels", "&New tag…"))
        new.triggered.connect(lambda: self.ask_new_tag(cid))

    def ask_new_tag(self, conversation_id: str) -> None:
        text, ok = QInputDialog.getText(self.panel, translate("HistoryLabels", "New tag"),
                                        translate("HistoryLabels", "Tag this chat with:"))
        if ok and text.strip():
            self.set_tag(conversation_id, text, True)

    def set_tag(self, conversation_id: str, tag: str, on: bool) -> bool:
        """Tag the chat (``on``) or take the tag off; the list shows it. False (and a line in the panel) when the
        store could not."""
        try:
            if on:
                tag = self.panel.store.add_tag(conversation_id, tag)
            else:
                self.panel.store.remove_tag(conversation_id, tag)
        except (StoreError, ValueError) as exc:
            self.panel.show_error(str(exc))
            return False
        self.panel.refresh()
        done = translate("HistoryLabels", "Tagged “{tag}”.") if on else translate("HistoryLabels",
                                                                                    "Tag “{tag}” removed.")
        self.panel.status_message.emit(done.format(tag=tag))
        return True

    def set_pinned(self, conversation_id: str, pinned: bool) -> bool:
        try:
            self.panel.store.set_pinned(conversation_id, pinned)
        except StoreError as exc:
            self.panel.show_error(str(exc))
            return False
        self.panel.refresh()
        self.panel.select(conversation_id, fetch=False)
        return True

    def _pin(self, on: bool) -> None:
        cid = self.panel.current_id()
        if cid is not None:
            self.set_pinned(cid, on)


class _ElidedLabel(QLabel):
    """A one-line label that ends in "…" when its text does not fit (the whole text is its tooltip)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setMinimumWidth(20)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._elide()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        self.setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(0, self.width())))


class HistoryFilter(QWidget):
    """The filter row (see the module docstring). ``changed`` carries the new :class:`ChatFilter`."""

    changed = Signal(object)

    def __init__(self, store, today: Callable[[], _dt.date], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyFilter")
        self.store = store
        self._today = today
        self.tag: str | None = None
        self.model: str | None = None
        self.period = "any"
        self.button = QToolButton(self)
        self.button.setObjectName("historyFilterButton")
        self.button.setText(translate("HistoryFilter", "Filter"))
        self.button.setAccessibleName(translate("HistoryFilter", "Filter the chats"))
        self.button.setToolTip(translate("HistoryFilter", "Show only the chats with a tag, of a model or from a time"))
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.button.setAutoRaise(True)
        self.menu = QMenu(self)
        self.menu.aboutToShow.connect(self.fill_menu)
        self.button.setMenu(self.menu)
        self.label = _ElidedLabel(self)
        self.label.setObjectName("historyFilterText")
        self.label.setAccessibleName(translate("HistoryFilter", "Filtered by"))
        self.clear_button = QToolButton(self)
        self.clear_button.setObjectName("historyFilterClear")
        self.clear_button.setText(translate("HistoryFilter", "Clear"))
        self.clear_button.setAccessibleName(translate("HistoryFilter", "Clear the filter"))
        self.clear_button.setAutoRaise(True)
        self.clear_button.clicked.connect(self.clear)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 0, 6, 0)
        lay.setSpacing(4)
        lay.addWidget(self.button)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.clear_button)
        self.setStyleSheet(
            "QToolButton#historyFilterButton { padding: 2px 14px 2px 4px; }"
            "QToolButton#historyFilterButton::menu-indicator { subcontrol-origin: padding;"
            " subcontrol-position: right center; right: 2px; }")
        self._show()

    def current(self) -> ChatFilter:
        since, until = period_range(self.period, self._today())
        return ChatFilter(tag=self.tag, model=self.model, since=since, until=until)

    def set_filter(self, **changes: str | None) -> None:
        """Change what is filtered: ``tag``, ``model`` (None: any), ``period`` (a key of :data:`PERIODS`); what is
        left out stays as it is."""
        for key in ("tag", "model"):
            if key in changes:
                setattr(self, key, changes[key])
        if "period" in changes:
            self.period = changes["period"] or "any"
        self._show()
        self.changed.emit(self.current())

    def clear(self) -> None:
        self.set_filter(tag=None, model=None, period="any")

    def fill_menu(self) -> None:
        """Tag ▸, Model ▸ and Date ▸, each with Any first and the current choice ticked."""
        self.menu.clear()
        try:
            tags, models = self.store.all_tags(), self.store.all_models()
        except StoreError:
            tags, models = [], []
        any_text = translate("HistoryFilter", "Any")
        for title, items, now, apply in (
                (translate("HistoryFilter", "&Tag"), tags, self.tag, lambda v: self.set_filter(tag=v)),
                (translate("HistoryFilter", "&Model"), models, self.model, lambda v: self.set_filter(model=v))):
            sub = self.menu.addMenu(title)
            group = QActionGroup(sub)
            for value, label in [(None, any_text), *((v, f"{v} ({n})") for v, n in items)]:
                action = sub.addAction(label)
                action.setCheckable(True)
                action.setChecked(value == now)
                group.addAction(action)
                action.triggered.connect(lambda _=False, v=value, f=apply: f(v))
            sub.setEnabled(bool(items) or now is not None)
        sub = self.menu.addMenu(translate("HistoryFilter", "&Date"))
        group = QActionGroup(sub)
        for key, label in PERIODS:
            action = sub.addAction(translate("HistoryFilter", label))
            action.setCheckable(True)
            action.setChecked(key == self.period)
            group.addAction(action)
            action.triggered.connect(lambda _=False, k=key: self.set_filter(period=k))

    def _show(self) -> None:
        parts = []
        if self.tag is not None:
            parts.append(f"#{self.tag}")
        if self.model is not None:
            parts.append(self.model)
        if self.period != "any":
            parts.append(translate("HistoryFilter", dict(PERIODS)[self.period]))
        self.label.set_full_text(" · ".join(parts))
        self.clear_button.setVisible(bool(parts))
        self.button.setText(translate("HistoryFilter", "Filter:") if parts else translate("HistoryFilter", "Filter"))
