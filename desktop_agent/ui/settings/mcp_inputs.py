"""The values an imported VS Code file asks for (its ``inputs``, used as ``${input:ID}``): one field each, hidden
when it is a password, in a small dialog opened by Settings → MCP's import. What is typed becomes a secret of the
servers that use it (kept in the keyring on Save); a field left empty leaves that secret unset — the placeholder
is never kept."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop_agent.core.mcp.formats import Prompt
from desktop_agent.ui.i18n import translate


class InputsDialog(QDialog):
    """Asks for ``prompts`` (of the file ``source``); :meth:`answers` after it was accepted."""

    def __init__(self, prompts: Sequence[Prompt], source: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("McpInputs", "Values for the imported servers"))
        self.prompts = list(prompts)
        layout = QVBoxLayout(self)
        intro = QLabel(translate("McpInputs", "{source} asks for these values. They are kept in the system keyring "
                                 "when you press Save, never in the settings file. Leave one empty to set it "
                                 "later.").format(source=source))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.fields: dict[str, QLineEdit] = {}
        for prompt in self.prompts:
            edit = QLineEdit()
            if prompt.password:
                edit.setEchoMode(QLineEdit.EchoMode.Password)
            edit.setPlaceholderText(prompt.id)
            label = prompt.description or prompt.id
            edit.setAccessibleName(label)
            form.addRow(label, edit)
            self.fields[prompt.id] = edit
        layout.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        layout.addWidget(buttons)
        self.setMinimumWidth(440)

    def answers(self) -> dict[str, str | None]:
        """What was typed, input id → value (None for an empty field, or all of them when cancelled)."""
        if self.result() != QDialog.DialogCode.Accepted:
            return {p.id: None for p in self.prompts}
        return {pid: (edit.text() or None) for pid, edit in self.fields.items()}
