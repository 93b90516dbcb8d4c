"""The question card in the chat: what an MCP server asks the user during a tool call (its elicitation), beside
the call — a small form built from the server's schema (text, numbers, whole numbers, yes/no, one or several
choices; required fields marked with *, defaults filled in, each value checked before it is sent) with Submit /
Decline / Cancel; or, for a URL-mode question, the site and why, with "Open in browser" (the browser opens only
then) / Decline / Cancel. A sensitive field is typed hidden and has a "Remember in the keyring" tick.

Every control is reachable with Tab and has an accessible name; Enter in a text field submits; Alt+U (Submit) or
Alt+P (Open in browser), Alt+N (Decline) and Alt+A (Cancel) press the buttons of the card that waits. The card
answers its :class:`~desktop_agent.core.mcp.elicitation.Question`; :meth:`QuestionCard.settle` shows how it ended
(also when the call ended or the turn stopped first)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.mcp.elicitation import (
    ACCEPT,
    BOOLEAN,
    CANCEL,
    DECLINE,
    ENUM,
    MULTI,
    URL,
    FormField,
    Question,
    Value,
)
from desktop_agent.ui.chat.context import ChatContext
from desktop_agent.ui.i18n import translate, translate_text


class _Input:
    """One field's control, its error line and how its value is read."""

    def __init__(self, f: FormField, remembered: str | None) -> None:
        self.field = f
        self.remember: QCheckBox | None = None
        self.boxes: list[QCheckBox] = []
        default = remembered if remembered is not None else f.default
        name = f.label + (translate("Question", " (required)") if f.required else "")
        if f.kind == BOOLEAN:
            self.widget: QWidget = QCheckBox(f.label)
            self.widget.setChecked(bool(default))
        elif f.kind == ENUM:
            combo = QComboBox()
            if not f.required or default is None:
                combo.addItem(translate("Question", "(none)"), None)
            for c in f.choices:
                combo.addItem(c.label, c.value)
            if default is not None:
                combo.setCurrentIndex(max(0, combo.findData(str(default))))
            self.widget = combo
        elif f.kind == MULTI:
            self.widget = QWidget()
            row = QHBoxLayout(self.widget)
            row.setContentsMargins(0, 0, 0, 0)
            chosen = [str(v) for v in default] if isinstance(default, list) else []
            for c in f.choices:
                box = QCheckBox(c.label)
                box.setChecked(c.value in chosen)
                box.setAccessibleName(f"{f.label}: {c.label}")
                self.boxes.append(box)
                row.addWidget(box)
            row.addStretch(1)
        else:
            edit = QLineEdit()
            if default is not None:
                edit.setText(str(default))
            if f.sensitive:
                edit.setEchoMode(QLineEdit.EchoMode.Password)
            if f.kind in ("number", "integer") and (f.minimum is not None or f.maximum is not None):
                low = "" if f.minimum is None else _num(f.minimum)
                high = "" if f.maximum is None else _num(f.maximum)
                edit.setPlaceholderText(f"{low}–{high}")
            self.widget = edit
        self.widget.setAccessibleName(name)
        if f.description:
            self.widget.setAccessibleDescription(f.description)
            self.widget.setToolTip(f.description)
        self.error = QLabel()
        self.error.setObjectName("questionError")
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        self.error.setVisible(False)
        if f.sensitive:
            self.remember = QCheckBox(translate("Question", "Remember in the keyring"))
            self.remember.setAccessibleName(translate("Question", "Remember {field} in the keyring").format(
                field=f.label))
            self.remember.setChecked(remembered is not None)

    def value(self) -> Value:
        """The value for the server, or ValueError (with the reason) when the text cannot be one."""
        w = self.widget
        if isinstance(w, QCheckBox) and self.field.kind == BOOLEAN:
            return w.isChecked()
        if isinstance(w, QComboBox):
            return w.currentData()
        if self.field.kind == MULTI:
            return [c.value for c, box in zip(self.field.choices, self.boxes, strict=True) if box.isChecked()]
        assert isinstance(w, QLineEdit)
        return self.field.read(w.text())

    def controls(self) -> list[QWidget]:
        own: list[QWidget] = list(self.boxes) if self.boxes else [self.widget]
        return [*own, *([self.remember] if self.remember else [])]

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


class QuestionCard(QFrame):
    """"<server> asks:" and its form (or the page it wants opened), with the three answers."""

    #: the card's keys (listed in Help → Keyboard shortcuts): the buttons' mnemonics
    KEYS = (("Alt+U", QT_TRANSLATE_NOOP("Shortcuts", "Submit the answers to the server's question")),
            ("Alt+P", QT_TRANSLATE_NOOP("Shortcuts", "Open the page the server asks for")),
            ("Alt+N", QT_TRANSLATE_NOOP("Shortcuts", "Decline the server's question")),
            ("Alt+A", QT_TRANSLATE_NOOP("Shortcuts", "Cancel the server's question")))

    def __init__(self, ctx: ChatContext, question: Question) -> None:
        super().__init__()
        self.question = question
        self.setObjectName("questionCard")
        th = ctx.theme
        self.setAccessibleName(translate("Question", "Question from the MCP server {server}").format(
            server=question.server))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 12, 14, 12)
        lay.setSpacing(6)
        if question.mode == URL:
            head = translate("Question", "<b>{server}</b> wants you to open a page on <b>{site}</b>").format(
                server=html.escape(question.server), site=html.escape(question.site))
        else:
            head = translate("Question", "<b>{server}</b> asks:").format(server=html.escape(question.server))
        self.title = QLabel(head)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        lay.addWidget(self.title)
        self.message = QLabel(question.message)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setAccessibleName(translate("Question", "What the server asks"))
        lay.addWidget(self.message)
        self.source = QLabel(translate("Question", "During the call of {tool}").format(tool=question.tool)
                             if question.tool else "")
        self.source.setTextFormat(Qt.TextFormat.PlainText)
        self.source.setStyleSheet(f"color: {th.muted};")
        self.source.setVisible(bool(question.tool))
        lay.addWidget(self.source)

        self.inputs: list[_Input] = []
        self.url: QLabel | None = None
        if question.mode == URL:
            self.url = QLabel(question.url)
            self.url.setTextFormat(Qt.TextFormat.PlainText)
            self.url.setWordWrap(True)
            self.url.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.url.setStyleSheet(f"color: {th.link};")
            self.url.setAccessibleName(translate("Question", "The page's address"))
            lay.addWidget(self.url)
        else:
            form = QFormLayout()
            form.setSpacing(6)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            for f in question.fields:
                item = _Input(f, question.remembered.get(f.name))
                self.inputs.append(item)
                column = QVBoxLayout()
                column.setSpacing(2)
                column.addWidget(item.widget)
                if f.description and f.kind != BOOLEAN:
                    hint = QLabel(f.description)
                    hint.setTextFormat(Qt.TextFormat.PlainText)
                    hint.setWordWrap(True)
                    hint.setStyleSheet(f"color: {th.muted}; font-size: 11px;")
                    column.addWidget(hint)
                if item.remember is not None:
                    column.addWidget(item.remember)
                item.error.setStyleSheet(f"color: {th.err};")
                column.addWidget(item.error)
                label = QLabel("" if f.kind == BOOLEAN else html.escape(f.label) + (
                    f' <span style="color:{th.err}">*</span>' if f.required else ""))
                label.setTextFormat(Qt.TextFormat.RichText)
                label.setBuddy(item.widget)
                form.addRow(label, column)
                if isinstance(item.widget, QLineEdit):
                    item.widget.returnPressed.connect(lambda: self._answer(ACCEPT))
            lay.addLayout(form)
            if any(f.required for f in question.fields):
                note = QLabel(translate("Question", "* required"))
                note.setStyleSheet(f"color: {th.muted}; font-size: 11px;")
                lay.addWidget(note)

        row = QHBoxLayout()
        submit_text = translate("Question", "O&pen in browser") if question.mode == URL else translate(
            "Question", "S&ubmit")
        self.submit = QPushButton(submit_text)
        self.decline = QPushButton(translate("Question", "Decli&ne"))
        self.cancel = QPushButton(translate("Question", "C&ancel"))
        self.buttons = {ACCEPT: self.submit, DECLINE: self.decline, CANCEL: self.cancel}
        names = {ACCEPT: submit_text.replace("&", ""), DECLINE: translate("Question", "Decline"),
                 CANCEL: translate("Question", "Cancel")}
        tips = {ACCEPT: translate("Question", "Open the page in your browser and tell the server you did")
                if question.mode == URL else translate("Question", "Send these answers to the server"),
                DECLINE: translate("Question", "Tell the server you do not want to answer"),
                CANCEL: translate("Question", "Dismiss the question without answering")}
        for action, b in self.buttons.items():
            b.setAccessibleName(translate("Question", "{action} the question of {server}").format(
                action=names[action], server=question.server))
            b.setToolTip(tips[action])
            b.setAutoDefault(False)
            b.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            b.clicked.connect(lambda _=False, a=action: self._answer(a))
            row.addWidget(b)
        row.addStretch(1)
        lay.addLayout(row)
        self.result = QLabel()
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setWordWrap(True)
        self.result.setAccessibleName(translate("Question", "Answer"))
        self.result.setVisible(False)
        lay.addWidget(self.result)

    def first_control(self) -> QWidget:
        """Where the keyboard goes when the card appears."""
        for item in self.inputs:
            return item.controls()[0]
        return self.submit

    def values(self) -> dict[str, Value] | None:
        """The form's values, or None after showing, next to each field that cannot be sent, why."""
        out: dict[str, Value] = {}
        bad: QWidget | None = None
        for item in self.inputs:
            try:
                value = item.value()
            except ValueError as exc:
                problem: str | None = translate_text(str(exc))
            else:
                found = item.field.problem(value)
                problem = translate_text(found) if found is not None else None
                out[item.field.name] = value
            item.show_error(problem or "")
            if problem and bad is None:
                bad = item.controls()[0]
        if bad is not None:
            bad.setFocus()
            return None
        return out

    def _answer(self, action: str) -> None:
        if self.question.answered.is_set():
            return
        if action == ACCEPT and self.question.mode != URL:
            values = self.values()
            if values is None:
                return
            remember = {i.field.name for i in self.inputs if i.remember is not None and i.remember.isChecked()}
            self.question.answer(ACCEPT, values, remember)
        else:
            if action == ACCEPT:
                QDesktopServices.openUrl(QUrl(self.question.url))
            self.question.answer(action)
        self.settle()

    def settle(self) -> None:
        """The question was answered, or its call / turn ended first: show how, and disable the answers."""
        for w in (*self.buttons.values(), *(c for i in self.inputs for c in i.controls())):
            w.setEnabled(False)
        if not self.question.answered.is_set():
            self.question.answer(CANCEL)
        text = {ACCEPT: translate("Question", "Opened in the browser") if self.question.mode == URL
                else translate("Question", "Answer sent"),
                DECLINE: translate("Question", "Declined"),
                CANCEL: translate("Question", "Cancelled")}.get(self.question.action, "")
        self.result.setText(text)
        self.result.setVisible(bool(text))
