"""The approval card in the chat: a tool call the permission engine asks the user about — the tool, its
description, where it comes from and exactly what it would do (the command line, a file write's diff, or the
arguments as pretty JSON) — with Allow once · Allow for this chat · Always allow (with the scope: every call,
these arguments, this folder / command / host) · Deny (with an optional reason sent to the model).

Every control is reachable with Tab; Alt+O / Alt+T / Alt+W / Alt+D press the buttons of the card that waits
(answered cards are disabled, so only the waiting one answers), Alt+I goes to the scope.
The card answers its :class:`~desktop_agent.core.tools.permissions.PermissionRequest`; :meth:`ApprovalCard.settle`
shows how the call was decided (also when a rule or Stop decided it first).
"""

from __future__ import annotations

import html
from typing import ClassVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.tools.permissions import Answer, PermissionRequest
from desktop_agent.core.tools.preview import CallPreview, preview_call
from desktop_agent.ui.chat.context import ChatContext
from desktop_agent.ui.i18n import source_name, translate, translate_text
from desktop_agent.ui.theme import Theme

#: lines of the preview shown before it scrolls
PREVIEW_LINES = 14


class DiffHighlighter(QSyntaxHighlighter):
    """Added lines green, removed lines red, hunk headers in the accent colour."""

    def __init__(self, document: QTextDocument, th: Theme) -> None:
        super().__init__(document)
        self.formats: dict[str, QTextCharFormat] = {}
        for mark, color in (("+", th.ok), ("-", th.err), ("@", th.accent)):
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(color))
            self.formats[mark] = fmt

    def highlightBlock(self, text: str) -> None:
        if text.startswith(("+++", "---")):
            return
        fmt = self.formats.get(text[:1])
        if fmt is not None:
            self.setFormat(0, len(text), fmt)


class ApprovalCard(QFrame):
    """"Allow <tool> to run?" with what it would do and the four answers."""

    #: the card's keys (listed in Help → Keyboard shortcuts): the buttons' mnemonics
    KEYS = (("Alt+O", QT_TRANSLATE_NOOP("Shortcuts", "Allow the call once")),
            ("Alt+T", QT_TRANSLATE_NOOP("Shortcuts", "Allow the tool for this chat")),
            ("Alt+W", QT_TRANSLATE_NOOP("Shortcuts", "Always allow the tool")),
            ("Alt+D", QT_TRANSLATE_NOOP("Shortcuts", "Deny the call")),
            ("Alt+I", QT_TRANSLATE_NOOP("Shortcuts", "Go to what the approval applies to")))

    CHOICE_TEXT: ClassVar[dict[str, str]] = {
        "once": QT_TRANSLATE_NOOP("Approval", "Allowed once"), "chat": QT_TRANSLATE_NOOP("Approval",
                "Allowed for this chat"),
        "always": QT_TRANSLATE_NOOP("Approval", "Always allowed"), "deny": QT_TRANSLATE_NOOP("Approval", "Denied"),
    }

    def __init__(self, ctx: ChatContext, request: PermissionRequest, preview: CallPreview | None = None):
        super().__init__()
        self.request = request
        self.setObjectName("approvalCard")
        self.setAccessibleName(translate("Approval", "Approve tool {tool_name}").format(tool_name=request.tool_name))
        th = ctx.theme
        tool = request.tool
        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 12, 14, 12)
        lay.setSpacing(6)

        title = QLabel(translate("Approval", "<b>Allow <code>{tool}</code> to run?</b>").format(tool=html.escape(
                request.tool_name)))
        title.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(title)
        if request.description:
            self.description = QLabel(request.description)
            self.description.setTextFormat(Qt.TextFormat.PlainText)
            self.description.setWordWrap(True)
            lay.addWidget(self.description)
        kinds = [k for k, on in ((translate("Approval", "destructive"), tool.destructive),
                                 (translate("Approval", "read-only"), tool.read_only)) if on]
        self.source = QLabel(translate("Approval", "From: ") + source_name(request.source) + (
                f" · {', '.join(kinds)}" if kinds else ""))
        self.source.setTextFormat(Qt.TextFormat.PlainText)
        self.source.setStyleSheet(f"color: {th.muted};")
        self.source.setAccessibleName(translate("Approval", "Where the tool comes from"))
        lay.addWidget(self.source)

        self.preview = preview if preview is not None else preview_call(request.arguments)
        heading = {"command": translate("Approval", "Command line:"), "diff": translate("Approval", "Changes:"),
                   "json": translate("Approval", "Arguments:")}[self.preview.kind]
        note = translate_text(self.preview.note)
        head = QLabel(f"{note[:1].upper()}{note[1:]}:" if note else heading)
        head.setTextFormat(Qt.TextFormat.PlainText)
        head.setWordWrap(True)
        head.setStyleSheet(f"color: {th.muted}; font-weight: 600;")
        lay.addWidget(head)
        self.details = QPlainTextEdit()
        self.details.setObjectName("approvalDetails")
        self.details.setReadOnly(True)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details.setPlainText(("$ " if self.preview.kind == "command" else "") + self.preview.text.rstrip("\n"))
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.details.setAccessibleName(heading.rstrip(":"))
        self.details.setTabChangesFocus(True)
        if self.preview.kind == "diff":
            self._highlighter = DiffHighlighter(self.details.document(), th)
        lines = min(PREVIEW_LINES, max(1, self.details.document().lineCount()))
        metrics = self.details.fontMetrics()
        self.details.setFixedHeight(lines * metrics.lineSpacing() + 14)
        lay.addWidget(self.details)
        if self.preview.kind != "json":
            self.arguments = QPlainTextEdit(self.preview.arguments)
            self.arguments.setReadOnly(True)
            self.arguments.setVisible(False)
            self.arguments.setTabChangesFocus(True)
            self.arguments.setAccessibleName(translate("Approval", "Arguments"))
            self.arguments.setFont(self.details.font())
            self.arguments.setFixedHeight(min(8, self.preview.arguments.count("\n") + 1) * metrics.lineSpacing() + 14)
            self.show_arguments = QPushButton(translate("Approval", "Show all arguments"))
            self.show_arguments.setFlat(True)
            self.show_arguments.setCheckable(True)
            self.show_arguments.setAutoDefault(False)
            self.show_arguments.toggled.connect(self.arguments.setVisible)
            self.show_arguments.toggled.connect(
                lambda on: self.show_arguments.setText(translate("Approval", "Hide arguments") if on else translate(
                        "Approval", "Show all arguments")))
            lay.addWidget(self.show_arguments, 0, Qt.AlignmentFlag.AlignLeft)
            lay.addWidget(self.arguments)

        scope_row = QHBoxLayout()
        scope_label = QLabel(translate("Approval", "Appl&ies to:"))
        self.scope = QComboBox()
        self.scope.setAccessibleName(translate("Approval", "What Allow for this chat and Always allow cover"))
        for s in request.scopes:
            self.scope.addItem(translate_text(s.label(request.tool_name)), s)
        scope_label.setBuddy(self.scope)
        scope_row.addWidget(scope_label)
        scope_row.addWidget(self.scope, 1)
        lay.addLayout(scope_row)

        self.reason = QLineEdit()
        self.reason.setPlaceholderText(translate("Approval", "Reason for denying (optional, sent to the model)"))
        self.reason.setAccessibleName(translate("Approval", "Reason for denying"))
        self.reason.returnPressed.connect(lambda: self._answer("deny"))
        lay.addWidget(self.reason)

        row = QHBoxLayout()
        self.allow = QPushButton(translate("Approval", "Allow &once"))
        self.allow_chat = QPushButton(translate("Approval", "Allow for this cha&t"))
        self.allow_always = QPushButton(translate("Approval", "Al&ways allow"))
        self.deny = QPushButton(translate("Approval", "&Deny"))
        self.buttons = {"once": self.allow, "chat": self.allow_chat, "always": self.allow_always, "deny": self.deny}
        names = {"once": translate("Approval", "Allow once"), "chat": translate("Approval", "Allow for this chat"),
                "always": translate("Approval", "Always allow"), "deny": translate("Approval", "Deny")}
        name = request.tool_name
        tips = {"once": self.tr("Run this call of %1 once; the next call asks again (Alt+O)").replace("%1", name),
                "chat": self.tr("Run %1 without asking for the rest of this chat, for what \"Applies to\" says "
                                "(Alt+T)").replace("%1", name),
                "always": self.tr("Run %1 without asking from now on, for what \"Applies to\" says; Settings → "
                                  "Tools revokes it (Alt+W)").replace("%1", name),
                "deny": self.tr("Do not run this call; the reason, if given, is sent to the model (Alt+D)")}
        for choice, b in self.buttons.items():
            b.setAccessibleName(f"{names[choice]} {request.tool_name}")
            b.setToolTip(tips[choice])  # also the button's accessible description
            b.setAutoDefault(False)
            b.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            b.clicked.connect(lambda _=False, c=choice: self._answer(c))
            row.addWidget(b)
        row.addStretch(1)
        lay.addLayout(row)
        self.result = QLabel()
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setWordWrap(True)
        self.result.setAccessibleName(translate("Approval", "Decision"))
        self.result.setVisible(False)
        lay.addWidget(self.result)

    def _answer(self, choice: str) -> None:
        if self.request.answered:
            return
        scope = self.scope.currentData()
        reason = self.reason.text().strip() or None
        self.request.answer(Answer(choice, scope if choice in ("chat", "always") else None,
                                   reason if choice == "deny" else None))
        self._disable()
        text = translate("Approval", self.CHOICE_TEXT[choice])
        if choice in ("chat", "always") and scope is not None:
            text += f" ({translate_text(scope.label(self.request.tool_name))})"
        if choice == "deny" and reason:
            text += f": {reason}"
        self._show(text)

    def _disable(self) -> None:
        for w in (*self.buttons.values(), self.scope, self.reason):
            w.setEnabled(False)

    def _show(self, text: str) -> None:
        self.result.setText(text)
        self.result.setVisible(True)

    def settle(self) -> None:
        """The call was decided (or the turn ended first): show how, and disable the answers."""
        self._disable()
        decision = self.request.result
        if decision is not None:
            summary = translate_text(decision.summary())
            self._show(summary[:1].upper() + summary[1:])
        elif not self.result.isVisible():
            self._show(translate("Approval", "Denied (the turn ended)"))
