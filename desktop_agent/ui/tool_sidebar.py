"""The tool-activity sidebar: one row per tool call of the current chat.

Columns: status (running / ok / error / timed out / cancelled / denied), tool name, short arguments,
duration (live while running, from a 100 ms timer that only runs while a call is running). Selecting a
row shows the permission decision (allowed / denied, by rule, user or default), the pretty-printed arguments
and the full (uncapped) result or error below, read-only and copyable; a running call has a "Cancel" button
above them (Delete in the list does the same): that call alone is stopped and the turn goes on. A call that
reports progress (an MCP server's) shows it on its row, ``running — 3/5 · message`` (repainted with the duration,
at most every 100 ms); the images of a result show as thumbnails under it (:mod:`.attachment_strip`; they are not
sent to the model). Fed by :meth:`ToolSidebar.routes` with core events (routed by the chat controller's one table), or
:meth:`ToolSidebar.load` with a saved conversation (and its audited decisions).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.ui import icons, theme
from desktop_agent.ui.i18n import source_name, translate, translate_text

if TYPE_CHECKING:  # the event and message models (pydantic) load after the window's first frame; the Qt
    # types of the list and the details with them (PySide6 builds each type, and its enums, when first imported)
    from PySide6.QtWidgets import QPlainTextEdit, QSplitter, QTreeWidget, QTreeWidgetItem

    from desktop_agent.core.events import ToolCallFinished, ToolCallProgress, ToolCallStarted, ToolsOffered
    from desktop_agent.core.messages import Conversation
    from desktop_agent.core.tools.results import Attachment

log = logging.getLogger(__name__)

#: status → (icon name, label)
STATUS = {
    "running": ("running", QT_TRANSLATE_NOOP("ToolSidebar", "running")),
    "ok": ("ok", QT_TRANSLATE_NOOP("ToolSidebar", "ok")),
    "error": ("error", QT_TRANSLATE_NOOP("ToolSidebar", "error")),
    "timeout": ("timeout", QT_TRANSLATE_NOOP("ToolSidebar", "timed out")),
    "cancelled": ("cancelled", QT_TRANSLATE_NOOP("ToolSidebar", "cancelled")),
    "denied": ("denied", QT_TRANSLATE_NOOP("ToolSidebar", "denied")),
}


def status_color(status: str, th: theme.Theme | None = None) -> str:
    th = th or theme.current()
    return {
        "running": th.accent,
        "ok": th.ok,
        "error": th.err,
        "timeout": th.warn,
        "denied": th.warn,
        "cancelled": th.muted,
    }.get(status, th.muted)


def format_duration(ms: float | None) -> str:
    """``420 ms``, ``1.2 s``, ``12 s``, ``2 m 05 s``; empty for None."""
    if ms is None:
        return ""
    if ms < 1000:
        return translate("ToolSidebar", "{ms} ms").format(ms=max(0, round(ms)))
    s = ms / 1000
    if s < 10:
        return f"{s:.1f} s"
    if s < 60:
        return f"{round(s)} s"
    m, s = divmod(round(s), 60)
    return f"{m} m {s:02d} s"


def short_arguments(arguments: dict[str, Any] | None, limit: int = 60) -> str:
    """``location=Paris, unit="C"`` on one line, cut to ``limit`` characters with an ellipsis."""
    if not arguments:
        return ""
    parts = []
    for k, v in arguments.items():
        value = v if isinstance(v, str) and v and " " not in v and len(v) < 40 else json.dumps(v, ensure_ascii=False)
        parts.append(f"{k}={value}")
    text = " ".join(", ".join(parts).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def pretty_json(value: Any) -> str:
    """Pretty-print JSON (or JSON text); other text is returned as is."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, TypeError):
            return value
        if isinstance(value, str):
            return value
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


@dataclass
class ToolRun:
    call_id: str
    name: str
    arguments: dict[str, Any]
    status: str = "running"
    result: str = ""
    error: str | None = None
    duration_ms: float | None = None
    started: float = 0.0  # time.monotonic() when it started (live duration)
    decision: str = ""  # "allowed by rule #3", "denied by user: …"; empty when the call never reached the check
    cancelling: bool = False  # the user asked to cancel it; its result has not come yet
    output: str = ""  # what the tool printed
    progress: str = ""  # "3/5 · message" while it runs and reports progress
    attachments: tuple[Attachment, ...] = ()  # images of its result, shown under it
    source: str = ""  # where the tool comes from: "shipped", a tools folder, "MCP server time"


def format_progress(progress: float, total: float | None, message: str | None, limit: int = 40) -> str:
    """``3/5 · copying``, ``40%`` of a total of 1 or 100, ``12`` without a total; the message cut to ``limit``."""
    def num(x: float) -> str:
        return f"{x:g}"

    if total and total > 0:
        text = f"{round(100 * progress / total)}%" if total in (1, 100) else f"{num(progress)}/{num(total)}"
    else:
        text = num(progress)
    message = " ".join((message or "").split())
    if message:
        text += " · " + (message if len(message) <= limit else message[: limit - 1] + "…")
    return text


class ToolSidebar(QWidget):
    """The sidebar widget (put in a dock by the main window)."""

    #: a row was selected (call id)
    selected = Signal(str)
    #: the user asked to cancel this running call (call id); the turn goes on
    cancel_requested = Signal(str)

    COLS = (QT_TRANSLATE_NOOP("ToolSidebar", "Status"), QT_TRANSLATE_NOOP("ToolSidebar", "Tool"),
            QT_TRANSLATE_NOOP("ToolSidebar", "Arguments"), QT_TRANSLATE_NOOP("ToolSidebar", "Duration"))

    def __init__(self, parent: QWidget | None = None, *, details_later: bool = False):
        """``details_later``: build only the empty sidebar now (what a new window shows) and the list and the
        details when :meth:`build_details` is called — the main window does, right after its first frame."""
        super().__init__(parent)
        self.setObjectName("toolSidebar")
        self.setAccessibleName(translate("ToolSidebar", "Tool activity"))
        self.runs: dict[str, ToolRun] = {}
        self._items: dict[str, QTreeWidgetItem] = {}
        #: calls of an opened chat whose rows are not built yet (see :meth:`load`), oldest first
        self._unbuilt: list[ToolRun] = []
        self._fill_timer = QTimer(self)
        self._fill_timer.setSingleShot(True)
        self._fill_timer.setInterval(0)
        self._fill_timer.timeout.connect(self._build_more)
        self._result_full = ""
        self._details_built = False

        self.empty = QLabel(
            translate("ToolSidebar",
                    "No tool calls yet.\n\nWhen the assistant uses a tool, the call shows up here with its "
            "arguments, result and duration.")
        )
        self.empty.setObjectName("toolEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setContentsMargins(24, 24, 24, 24)

        # empty: one friendly message; with calls: the list above the details
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        #: which tools the current message was offered, and why (ToolsOffered)
        self.offered = QLabel()
        self.offered.setObjectName("toolsOffered")
        self.offered.setWordWrap(True)
        self.offered.setVisible(False)
        self.offered.setAccessibleName(translate("ToolSidebar", "Tools offered to the model"))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 8)
        lay.addWidget(self.offered)
        lay.addWidget(self.stack)

        self._timer = QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._tick)

        if details_later:
            self._restyle_empty()
        else:
            self.build_details()

    def build_details(self) -> None:
        """The list of calls and the details below it (idempotent)."""
        if self._details_built:
            return
        self._details_built = True
        from PySide6.QtGui import QFontDatabase
        from PySide6.QtWidgets import QHeaderView, QPlainTextEdit, QSplitter, QTreeWidget

        from desktop_agent.ui.attachment_strip import AttachmentStrip

        self.tree: QTreeWidget = QTreeWidget()
        self.tree.setAccessibleName(translate("ToolSidebar", "Tool calls"))
        self.tree.setColumnCount(len(self.COLS))
        self.tree.setHeaderLabels([translate("ToolSidebar", c) for c in self.COLS])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setAllColumnsShowFocus(True)
        self.tree.setIconSize(QSize(16, 16))
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.currentItemChanged.connect(self._on_current)

        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.args_view: QPlainTextEdit = QPlainTextEdit()
        self.args_view.setReadOnly(True)
        self.args_view.setFont(mono)
        self.args_view.setAccessibleName(translate("ToolSidebar", "Tool call arguments"))
        self.args_view.setPlaceholderText(translate("ToolSidebar", "Select a tool call to see its arguments."))
        self.result_view: QPlainTextEdit = QPlainTextEdit()
        self.result_view.setReadOnly(True)
        self.result_view.setFont(mono)
        self.result_view.setAccessibleName(translate("ToolSidebar", "Tool call result"))
        self.result_view.setPlaceholderText(translate("ToolSidebar", RESULT_PLACEHOLDER))
        self.result_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.decision_label = QLabel()
        self.decision_label.setObjectName("toolDecision")
        self.decision_label.setWordWrap(True)
        self.decision_label.setAccessibleName(translate("ToolSidebar", "Permission decision"))
        self.decision_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.args_label = QLabel(translate("ToolSidebar", "Arguments"))
        self.result_label = QLabel(translate("ToolSidebar", "Result"))
        self.copy_args = self._copy_button(translate("ToolSidebar", "Copy arguments"), self.args_view.toPlainText)
        # the whole result, not the (possibly cut) text shown
        self.copy_result = self._copy_button(translate("ToolSidebar", "Copy result"), lambda: self._result_full)
        self.cancel_call = QPushButton(translate("ToolSidebar", "Cancel call"))
        self.cancel_call.setObjectName("cancelToolCall")
        self.cancel_call.setAccessibleName(translate("ToolSidebar", "Cancel this tool call"))
        self.cancel_call.setToolTip(translate("ToolSidebar",
                "Stop this tool call (Delete in the list); the assistant is told it was "
                                    "cancelled and goes on"))
        self.cancel_call.setVisible(False)
        self.cancel_call.clicked.connect(self._cancel_current)
        self._cancel_key = QShortcut(QKeySequence(Qt.Key.Key_Delete), self.tree)
        self._cancel_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        self._cancel_key.setWhatsThis(self.tr("Cancel the selected tool call"))
        self._cancel_key.activated.connect(self._cancel_current)

        details = QWidget()
        dl = QVBoxLayout(details)
        dl.setContentsMargins(0, 6, 0, 0)
        dl.setSpacing(4)
        dl.addWidget(self.decision_label)
        dl.addWidget(self.cancel_call, 0, Qt.AlignmentFlag.AlignLeft)
        dl.addLayout(self._section(self.args_label, self.copy_args))
        dl.addWidget(self.args_view, 1)
        dl.addLayout(self._section(self.result_label, self.copy_result))
        dl.addWidget(self.result_view, 3)
        self.attachments_view = AttachmentStrip()
        dl.addWidget(self.attachments_view)

        self.split: QSplitter = QSplitter(Qt.Orientation.Vertical)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(self.tree)
        self.split.addWidget(details)
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 3)
        self.tree.setMinimumHeight(90)
        self.stack.addWidget(self.split)

        self.restyle()

    # ---- building blocks
    def _section(self, label: QLabel, button: QToolButton) -> QHBoxLayout:
        label.setObjectName("sectionLabel")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(label)
        row.addStretch(1)
        row.addWidget(button)
        return row

    def _copy_button(self, name: str, text: Callable[[], str]) -> QToolButton:
        """A "Copy" button that puts ``text()`` on the clipboard."""
        b = QToolButton()
        b.setText(translate("ToolSidebar", "Copy"))
        b.setToolTip(name)
        b.setAccessibleName(name)
        b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        b.setAutoRaise(True)
        b.setEnabled(False)
        b.clicked.connect(lambda: QApplication.clipboard().setText(text()))
        return b

    def _restyle_empty(self) -> theme.Theme:
        th = theme.current()
        self.empty.setStyleSheet(f"color: {th.muted};")
        return th

    def restyle(self) -> None:
        th = self._restyle_empty()
        if not self._details_built:
            return
        # a soft selection keeps the coloured status readable
        sel = theme.mix(th.base, th.accent, 0.30 if th.dark else 0.16).name()
        self.tree.setStyleSheet(
            f"QTreeWidget::item:selected {{ background: {sel}; color: {th.text}; }}"
            f"QTreeWidget::item {{ padding: 2px 0px; }}"
        )
        for lab in (self.args_label, self.result_label):
            lab.setStyleSheet(f"color: {th.muted}; font-weight: 600;")
        for b in (self.copy_args, self.copy_result):
            b.setIcon(icons.icon("copy", th.muted))
        self.cancel_call.setIcon(icons.icon("stop", th.err))
        for run in self.runs.values():
            self._paint(run)

    # ---- events: each handler takes one event type (the controller's table routes them, see routes())
    def routes(self) -> dict[type, Callable[[Any], None]]:
        """Event type → the method that shows it (:class:`~desktop_agent.ui.event_table.EventTable`)."""
        from desktop_agent.core.events import (
            ToolCallFinished,
            ToolCallProgress,
            ToolCallStarted,
            ToolsOffered,
            TurnCancelled,
            TurnFailed,
        )

        return {ToolsOffered: self.on_offered, ToolCallStarted: self.on_started, ToolCallProgress: self.on_progress,
                ToolCallFinished: self.on_finished, TurnCancelled: self.on_turn_over, TurnFailed: self.on_turn_over}

    def on_offered(self, ev: ToolsOffered) -> None:
        self.show_offered(ev.names, ev.reason, ev.chosen)

    def on_started(self, ev: ToolCallStarted) -> None:
        self.started(ev.call_id, ev.name, ev.arguments, ev.source)

    def on_progress(self, ev: ToolCallProgress) -> None:
        self.progressed(ev.call_id, format_progress(ev.progress, ev.total, ev.message))

    def on_finished(self, ev: ToolCallFinished) -> None:
        status = ev.status or ("ok" if ev.ok else "error")
        decision = ev.decision.summary() if ev.decision is not None else ""
        self.finished(ev.call_id, ev.name, status, ev.result, ev.error, ev.duration_ms, ev.output, decision,
                      ev.attachments)

    def on_turn_over(self, _ev: object) -> None:
        """The turn was cancelled or failed: calls still shown as running are not any more."""
        self.end_running("cancelled")

    def show_offered(self, names: tuple[str, ...] | list[str], reason: str, chosen: str | None = None) -> None:
        """Say which tools the model is offered for the current message, and why."""
        reason = translate_text(reason)
        if names:
            text = translate("ToolSidebar", "Offered: ") + ", ".join(names) + f" — {reason}"
            if chosen:
                text += translate("ToolSidebar", "; asked to call {chosen}").format(chosen=chosen)
        else:
            text = translate("ToolSidebar", "No tools offered — {reason}").format(reason=reason)
        self.offered.setText(text)
        self.offered.setToolTip(text)
        self.offered.setVisible(True)

    def started(self, call_id: str, name: str, arguments: dict[str, Any] | None, source: str = "") -> None:
        run = ToolRun(call_id, name, dict(arguments or {}), started=time.monotonic(), source=source)
        self._add(run)
        self.tree.setCurrentItem(self._items[call_id])
        self._timer.start()

    def progressed(self, call_id: str, text: str) -> None:
        """A running call reported progress; its row shows it at the next tick (at most every 100 ms)."""
        run = self.runs.get(call_id)
        if run is not None and run.status == "running":
            run.progress = text

    def finished(
        self, call_id: str, name: str, status: str, result: str, error: str | None, duration_ms: float | None,
        output: str = "",
        decision: str = "",
        attachments: tuple[Attachment, ...] = (),
    ) -> None:
        run = self.runs.get(call_id)
        if run is None:
            run = ToolRun(call_id, name, {})
            self._add(run)
        run.status = status if status in STATUS else ("ok" if not error else "error")
        run.result, run.error, run.duration_ms, run.output = result or "", error, duration_ms, output or ""
        run.decision, run.attachments = decision, tuple(attachments)
        self._paint(run)
        if self.tree.currentItem() is self._items[call_id]:
            self._show(run)
        if not any(r.status == "running" for r in self.runs.values()):
            self._timer.stop()

    def end_running(self, status: str = "cancelled") -> None:
        """Rows still running when the turn ended (Stop, error, quit) become ``status``."""
        now = time.monotonic()
        for run in self.runs.values():
            if run.status == "running":
                run.status = status
                run.duration_ms = (now - run.started) * 1000
                self._paint(run)
        self._timer.stop()
        cur = self.tree.currentItem()
        if cur is not None:
            self._show(self.runs[cur.data(0, Qt.ItemDataRole.UserRole)])

    def clear(self) -> None:
        self._timer.stop()
        self.offered.clear()  # (another chat's offer is not this one's)
        self.offered.setVisible(False)
        self._fill_timer.stop()
        self._unbuilt = []
        self.tree.clear()
        self.runs.clear()
        self._items.clear()
        self.args_view.clear()
        self.result_view.clear()
        # not "… is running" of another chat's call
        self.result_view.setPlaceholderText(translate("ToolSidebar", RESULT_PLACEHOLDER))
        self.decision_label.clear()
        self._result_full = ""
        self.copy_args.setEnabled(False)
        self.copy_result.setEnabled(False)
        self.result_label.setText(translate("ToolSidebar", "Result"))
        self.attachments_view.show_attachments(())
        self.stack.setCurrentWidget(self.empty)

    #: rows built at once when a saved chat is opened: the sidebar's first screens (the list shows the oldest
    #: calls at its top); the rest follow, :data:`BUILD_SLICE` per event-loop turn, appended below
    FIRST_ROWS = 60
    BUILD_SLICE = 150

    def load(self, conversation: Conversation, decisions: dict[str, str] | None = None) -> None:
        """Show the tool calls of a saved conversation (tool messages give status and result; ``decisions``: call
        id → the audited permission decision). Opening a chat of 500 calls builds the rows the list shows now;
        the others come in the next turns of the event loop (all at once if one of them is asked for)."""
        self.clear()
        decisions = decisions or {}
        runs: list[ToolRun] = []
        results = {m.tool_call_id: m for m in conversation.messages if m.role == "tool" and m.tool_call_id}
        for m in conversation.messages:
            for call in m.tool_calls:
                res = results.get(call.id)
                run = ToolRun(call.id, call.name, dict(call.arguments), decision=decisions.get(call.id, ""))
                if res is None:
                    run.status = "cancelled"
                else:
                    run.status = res.tool_status or "ok"
                    full = res.full_content or res.content
                    if run.status == "ok":
                        run.result = full
                    else:
                        run.error = full
                    run.duration_ms = res.duration_ms
                    if res.attachments:  # its images, as the live turn showed (imported late: not in the first frame)
                        from desktop_agent.core.result_images import to_shown

                        run.attachments = to_shown(res)
                    else:
                        run.attachments = ()
                runs.append(run)
        for run in runs:
            self.runs[run.call_id] = run
        self._build_rows(runs[: self.FIRST_ROWS])
        self._unbuilt = runs[self.FIRST_ROWS :]
        if self._unbuilt:
            self._fill_timer.start()

    def _build_more(self, everything: bool = False) -> None:
        """The next slice of the opened chat's rows (``everything``: all that are left)."""
        n = len(self._unbuilt) if everything else self.BUILD_SLICE
        take, self._unbuilt = self._unbuilt[:n], self._unbuilt[n:]
        self._build_rows(take)
        if self._unbuilt:
            self._fill_timer.start()

    def _build_rows(self, runs: list[ToolRun]) -> None:
        if not runs:
            return
        from PySide6.QtWidgets import QTreeWidgetItem

        items = []
        for run in runs:
            item = QTreeWidgetItem()
            item.setData(0, Qt.ItemDataRole.UserRole, run.call_id)
            item.setTextAlignment(3, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self._items[run.call_id] = item
            items.append(item)
            self._paint(run)
        self.tree.addTopLevelItems(items)
        self.stack.setCurrentWidget(self.split)

    def select_call(self, call_id: str) -> None:
        if call_id not in self._items and any(r.call_id == call_id for r in self._unbuilt):
            self._fill_timer.stop()
            self._build_more(everything=True)
        item = self._items.get(call_id)
        if item is not None:
            self.tree.setCurrentItem(item)
            self.tree.scrollToItem(item)

    # ---- rows
    def _add(self, run: ToolRun) -> None:
        """A new call's row, below every other (the opened chat's rows not built yet come first)."""
        if self._unbuilt:
            self._fill_timer.stop()
            self._build_more(everything=True)
        self.runs[run.call_id] = run
        self._build_rows([run])

    def _paint(self, run: ToolRun) -> None:
        item = self._items.get(run.call_id)
        if item is None:
            return
        icon_name, label = STATUS.get(run.status, ("info", run.status))
        label = translate("ToolSidebar", label)
        color = status_color(run.status)
        item.setIcon(0, icons.icon(icon_name, color))
        item.setText(0, f"{label} — {run.progress}" if run.status == "running" and run.progress else label)
        item.setForeground(0, QColor(color))
        item.setText(1, run.name)
        item.setText(2, short_arguments(run.arguments, 48))
        item.setToolTip(2, short_arguments(run.arguments, 400))
        if run.status == "running":
            item.setText(3, format_duration((time.monotonic() - run.started) * 1000))
        else:
            item.setText(3, format_duration(run.duration_ms))
        decision = translate_text(run.decision)
        item.setToolTip(0, decision[:1].upper() + decision[1:] if decision else label)
        item.setData(0, Qt.ItemDataRole.AccessibleTextRole, f"{run.name}: {label} {item.text(3)}")

    def _tick(self) -> None:
        now = time.monotonic()
        running = False
        for run in self.runs.values():
            if run.status == "running":
                running = True
                item = self._items[run.call_id]
                item.setText(3, format_duration((now - run.started) * 1000))
                if run.progress:
                    item.setText(0, f"{translate('ToolSidebar', STATUS['running'][1])} — {run.progress}")
        if not running:
            self._timer.stop()

    def _on_current(self, item: QTreeWidgetItem | None, _prev=None) -> None:
        if item is None:
            return
        call_id = item.data(0, Qt.ItemDataRole.UserRole)
        self._show(self.runs[call_id])
        self.selected.emit(call_id)

    #: characters of a result shown in the detail view; laying out a multi-megabyte result (worse: one
    #: without spaces, wrapped anywhere) froze the window. "Copy result" still copies all of it.
    RESULT_VIEW_LIMIT = 100_000

    def _set_result(self, text: str) -> None:
        self._result_full = text
        if len(text) > self.RESULT_VIEW_LIMIT:
            more = len(text) - self.RESULT_VIEW_LIMIT
            text = (translate("ToolSidebar",
                    "{text}\n\n… {more:,} more characters not shown (too large to display); Copy copies the whole "
                    "result.").format(text=text[:self.RESULT_VIEW_LIMIT], more=more))
        self.result_view.setPlainText(text)

    def _cancel_current(self) -> None:
        """Ask to cancel the selected call, if it is running (the row says so until the result comes)."""
        item = self.tree.currentItem()
        run = self.runs.get(item.data(0, Qt.ItemDataRole.UserRole)) if item is not None else None
        if run is None or run.status != "running" or run.cancelling:
            return
        run.cancelling = True
        self._show(run)
        self.cancel_requested.emit(run.call_id)

    def _show(self, run: ToolRun) -> None:
        running = run.status == "running"
        self.cancel_call.setVisible(running)
        self.cancel_call.setEnabled(running and not run.cancelling)
        self.cancel_call.setText(translate("ToolSidebar", "Cancelling…") if running and run.cancelling else translate(
                "ToolSidebar", "Cancel {name}").format(name=run.name))
        self.args_view.setPlainText(pretty_json(run.arguments) if run.arguments else "{}")
        lines = []
        if run.source:
            lines.append(translate("ToolSidebar", "From: {source}").format(source=source_name(run.source)))
        if run.decision:
            lines.append(translate("ToolSidebar", "Permission: {decision}").format(
                decision=translate_text(run.decision)))
        self.decision_label.setText("\n".join(lines))
        self.decision_label.setVisible(bool(lines))
        self.result_view.setPlaceholderText(translate("ToolSidebar", "{name} is running…").format(
                name=run.name) if running else translate("ToolSidebar", RESULT_PLACEHOLDER))
        if running:
            self.result_label.setText(translate("ToolSidebar", "Result"))
            self._set_result("")
        elif run.error is not None and run.status != "ok":
            status = translate("ToolSidebar", STATUS.get(run.status, ("", run.status))[1])
            self.result_label.setText(translate("ToolSidebar", "Error ({status})").format(status=status))
            self._set_result(pretty_json(run.error) if run.error else run.result)
        else:
            self.result_label.setText(translate("ToolSidebar", "Result"))
            self._set_result(pretty_json(run.result))
        if run.output.strip() and not running:
            self._set_result(translate("ToolSidebar", "{result_full}\n\n── printed by the tool ──\n{output}").format(
                    result_full=self._result_full, output=run.output.rstrip()))
        self.attachments_view.show_attachments(() if running else run.attachments)
        self.copy_args.setEnabled(True)
        self.copy_result.setEnabled(bool(self._result_full))


#: what the result box says while no call is shown
RESULT_PLACEHOLDER = QT_TRANSLATE_NOOP("ToolSidebar", "The result or error appears here.")
