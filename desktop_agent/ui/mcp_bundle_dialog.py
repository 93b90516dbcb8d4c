"""The dialog that installs an MCP bundle (``.mcpb``): what the bundle is (name, version, author, description, its
tools, what it needs to run and whether this machine has it) and a form of its ``user_config`` fields — text,
numbers, yes/no, a folder or file with Browse… (several, one a line, when the field takes several), required
ones marked, a secret one masked and said to go to the keyring. Install is offered only when the bundle can run
here; what the installer then says (a value missing or out of bounds, a failure) is shown in the dialog, which
stays open with what was typed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.mcp.bundle_manifest import as_text, expand_default
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import hint_label, note_label, show

if TYPE_CHECKING:
    from desktop_agent.core.mcp.bundle import Bundle
    from desktop_agent.core.mcp.bundle_manifest import UserField
    from desktop_agent.core.settings import McpServerSettings

_RUNTIMES = {"node": "Node.js", "python": "Python", "uv": "uv"}


class BundleDialog(QDialog):
    """Shows ``bundle`` and asks for its values; ``problems``: what stops it from running here (Install is then
    off). ``install_requested(values)`` when the user presses Install; the caller installs and calls
    :meth:`installed` or :meth:`failed`."""

    install_requested = Signal(dict)

    def __init__(self, bundle: Bundle, problems: list[str], parent: QWidget | None = None,
                 replaces: McpServerSettings | None = None, previous: dict[str, Any] | None = None) -> None:
        super().__init__(parent)
        m = bundle.manifest
        self.bundle = bundle
        self.setWindowTitle(translate("BundleDialog", "Install MCP bundle"))
        self.setMinimumWidth(560)
        outer = QVBoxLayout(self)
        title = QLabel(translate("BundleDialog", "<b>{title}</b> {version}").format(title=_html(m.title),
                                                                                   version=_html(m.version)))
        title.setAccessibleName(translate("BundleDialog", "Bundle"))
        title.setStyleSheet("font-size: 15px;")
        outer.addWidget(title)
        by = translate("BundleDialog", "by {author}").format(author=_html(m.author))
        if m.author_url.startswith(("https://", "http://")):
            by = translate("BundleDialog", "by <a href=\"{url}\">{author}</a>").format(url=_html(m.author_url),
                                                                                     author=_html(m.author))
        author = QLabel(by)
        author.setOpenExternalLinks(True)
        author.setAccessibleName(translate("BundleDialog", "Author"))
        outer.addWidget(author)
        description = QLabel(m.description)
        description.setWordWrap(True)
        description.setTextFormat(Qt.TextFormat.PlainText)
        description.setAccessibleName(translate("BundleDialog", "Description"))
        outer.addWidget(description)

        facts = QFormLayout()
        tools = ", ".join(name for name, _d in m.tools) or translate("BundleDialog", "not listed")
        if m.tools_generated:
            tools = translate("BundleDialog", "{tools} (and more it makes as it runs)").format(tools=tools)
        self.tools_label = QLabel(tools)
        self.tools_label.setWordWrap(True)
        self.tools_label.setToolTip("\n".join(f"{n}: {d}" if d else n for n, d in m.tools))
        facts.addRow(translate("BundleDialog", "Tools:"), self.tools_label)
        runtime = _RUNTIMES.get(m.server_type)
        wanted = dict(m.runtimes).get("node" if m.server_type == "node" else "python", "")
        needs = (translate("BundleDialog", "{runtime} {version}").format(runtime=runtime, version=wanted).strip()
                 if runtime else translate("BundleDialog", "nothing else (a program of its own)"))
        if m.platforms:
            needs = translate("BundleDialog", "{needs}; runs on {platforms}").format(
                needs=needs, platforms=", ".join({"darwin": "macOS", "win32": "Windows", "linux": "Linux"}.get(p, p)
                                                 for p in m.platforms))
        self.needs_label = QLabel(needs)
        self.needs_label.setWordWrap(True)
        facts.addRow(translate("BundleDialog", "Needs:"), self.needs_label)
        size = f"{bundle.size / 1e6:.1f} MB" if bundle.size >= 1e6 else f"{max(1, round(bundle.size / 1e3))} kB"
        where = translate("BundleDialog", "{files} files, {size}, unpacked into the app's data folder").format(
            files=bundle.files, size=size)
        facts.addRow(translate("BundleDialog", "Size:"), QLabel(where))
        outer.addLayout(facts)
        self.problems = note_label(translate("BundleDialog", "Why it cannot be installed"))
        outer.addWidget(self.problems)
        if problems:
            show(self.problems, translate("BundleDialog", "It cannot run on this computer: {why}.").format(
                why="; ".join(problems)), "err")

        self.replaces = note_label(translate("BundleDialog", "What it replaces"))
        outer.addWidget(self.replaces)
        if replaces is not None:
            from desktop_agent.core.mcp.bundle import bundles_dir

            home = bundles_dir() / bundle.server_name
            if replaces.cwd and Path(replaces.cwd).parent == home:
                text = translate("BundleDialog", "Replaces the installed version {version}.").format(
                    version=Path(replaces.cwd).name)
            else:
                text = translate("BundleDialog", "Replaces your MCP server {name} ({runs}).").format(
                    name=replaces.name, runs=replaces.url or " ".join([replaces.command, *replaces.args])[:80])
            show(self.replaces, text, "warn")

        self.inputs: dict[str, Any] = {}
        self.form_box = QGroupBox(translate("BundleDialog", "Its settings"))
        form = QFormLayout(self.form_box)
        self._previous = previous or {}
        for f in m.user_config:
            form.addRow(self._label(f), self._input(f))
            if f.description and f.type != "boolean":  # a check box says it in its own text
                form.addRow("", hint_label(f.description))
        if m.user_config:
            outer.addWidget(self.form_box)
            if any(f.required for f in m.user_config):
                outer.addWidget(hint_label(translate("BundleDialog", "* required")))
            if any(f.sensitive for f in m.user_config):
                outer.addWidget(hint_label(translate("BundleDialog",
                        "Secret values are kept in the system keyring, never in the settings file.")))
        else:
            self.form_box.hide()
        self.error = note_label(translate("BundleDialog", "Install error"))
        outer.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.install_button = self.buttons.addButton(translate("BundleDialog", "&Install"),
                                                     QDialogButtonBox.ButtonRole.AcceptRole)
        self.install_button.setEnabled(not problems)
        self.install_button.setDefault(True)
        self.buttons.accepted.connect(self._install)
        self.buttons.rejected.connect(self.reject)
        outer.addWidget(self.buttons)

    def _label(self, f: UserField) -> QLabel:
        text = f.title + (" *" if f.required else "")
        label = QLabel(text)
        if f.description:
            label.setToolTip(f.description)
        return label

    def _input(self, f: UserField) -> QWidget:
        default = self._previous.get(f.key, expand_default(f.default))  # what the installed version was given
        if f.type == "boolean":
            box = QCheckBox(f.description or f.title)
            box.setChecked(bool(default) if not isinstance(default, str) else default.lower() == "true")
            box.setAccessibleName(f.title)
            self.inputs[f.key] = box
            return box
        edit: QLineEdit | QPlainTextEdit
        if f.multiple:
            edit = lines = QPlainTextEdit()
            lines.setPlainText("\n".join(as_text(v) for v in (default if isinstance(default, list) else
                                                              [default] if default not in (None, "") else [])))
            edit.setMaximumHeight(70)
            edit.setPlaceholderText(translate("BundleDialog", "one a line"))
        else:
            edit = QLineEdit()
            if f.sensitive:
                edit.setEchoMode(QLineEdit.EchoMode.Password)
                edit.setPlaceholderText(translate("BundleDialog", "kept in the keyring"))
            elif default not in (None, "", []):
                edit.setText(as_text(default))
            if f.type == "number" and (f.min is not None or f.max is not None):
                edit.setPlaceholderText(translate("BundleDialog", "{low} to {high}").format(
                    low=as_text(f.min) if f.min is not None else "…", high=as_text(f.max) if f.max is not None
                    else "…"))
        edit.setAccessibleName(f.title)
        if f.description:
            edit.setToolTip(f.description)
            edit.setAccessibleDescription(f.description)
        self.inputs[f.key] = edit
        if f.type not in ("directory", "file"):
            return edit
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(edit, 1)
        browse = QPushButton(translate("BundleDialog", "Browse…"))
        browse.setAutoDefault(False)
        browse.setAccessibleName(translate("BundleDialog", "Choose {title}").format(title=f.title))
        browse.clicked.connect(lambda: self._browse(f))
        layout.addWidget(browse)
        return row

    def _browse(self, f: UserField) -> None:
        edit = self.inputs[f.key]
        if f.type == "directory":
            chosen = QFileDialog.getExistingDirectory(self, f.title, os.path.expanduser("~"))
            picked = [chosen] if chosen else []
        elif f.multiple:
            picked, _filter = QFileDialog.getOpenFileNames(self, f.title, os.path.expanduser("~"))
        else:
            one, _filter = QFileDialog.getOpenFileName(self, f.title, os.path.expanduser("~"))
            picked = [one] if one else []
        if not picked:
            return
        if isinstance(edit, QPlainTextEdit):
            lines = [line for line in edit.toPlainText().splitlines() if line.strip()]
            edit.setPlainText("\n".join([*lines, *picked]))
        else:
            edit.setText(picked[0])

    def values(self) -> dict[str, Any]:
        """What the form holds: key → text, list of lines, or yes/no (empty: left out)."""
        out: dict[str, Any] = {}
        for key, widget in self.inputs.items():
            if isinstance(widget, QCheckBox):
                out[key] = widget.isChecked()
            elif isinstance(widget, QPlainTextEdit):
                out[key] = [line.strip() for line in widget.toPlainText().splitlines() if line.strip()]
            else:
                out[key] = widget.text().strip()
        return out

    def _install(self) -> None:
        self.buttons.setEnabled(False)  # Install and Cancel: the install runs to its end
        show(self.error, translate("BundleDialog", "Installing…"), "info")
        self.install_requested.emit(self.values())

    def reject(self) -> None:
        if self.buttons.isEnabled():  # not while the install runs (Escape, the title bar's close)
            super().reject()

    def installed(self) -> None:
        self.accept()

    def failed(self, why: str) -> None:
        """The install did not happen: say why; the values stay for another try."""
        show(self.error, translate("BundleDialog", "Not installed: {why}").format(why=why), "err")
        self.buttons.setEnabled(True)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
