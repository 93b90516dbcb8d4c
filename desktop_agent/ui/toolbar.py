"""The window's commands and where they show: its actions (with their shortcuts and tooltips), the toolbar (New
chat, the backend and model pickers, the model's capabilities, Refresh, Tool activity, Settings) and the menus.
:class:`MainToolbar` shows its buttons' text when everything fits and only their icons when the window is too
narrow — rather than hiding Settings behind the overflow arrow. PySide6 and light modules only (first frame)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, SignalInstance
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QSizePolicy, QToolBar, QToolButton, QWidget

from desktop_agent.ui import icons
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.model_capabilities import ModelCapabilities
from desktop_agent.ui.model_picker import ModelPicker


def make_action(parent: QWidget, text: str, icon: str | None, shortcut: str | None, slot: Callable[..., object],
                tip: str = "", restyle: SignalInstance | None = None) -> QAction:
    """An action with its icon (drawn again on ``restyle``), window-wide shortcut and a tooltip naming it."""
    a = QAction(text, parent)
    if icon:
        a.setIcon(icons.icon(icon))
        if restyle is not None:
            restyle.connect(lambda: a.setIcon(icons.icon(icon)))
    if shortcut:
        a.setShortcut(QKeySequence(shortcut))
        a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    keys = QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText) if shortcut else ""
    a.setToolTip(f"{tip or text.replace('&', '').rstrip('…')}" + (f" ({keys})" if keys else ""))
    a.triggered.connect(slot)
    return a


class MainToolbar(QToolBar):
    """New chat | the pickers, the capabilities, Refresh | … | Tool activity, Settings."""

    def __init__(self, new_chat: QAction, refresh: QAction, tools: QAction, settings: QAction):
        super().__init__(translate("Toolbar", "Main toolbar"))
        self.setObjectName("mainToolbar")
        self.setMovable(False)
        self.setIconSize(QSize(18, 18))
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addAction(new_chat)
        new_button = self.widgetForAction(new_chat)
        if isinstance(new_button, QToolButton):  # its menu (the presets) comes after the first frame: room for it now
            new_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
            new_button.setMenu(QMenu(new_button))
        self.addSeparator()
        self.picker = ModelPicker()
        self.capabilities = ModelCapabilities()
        self.addWidget(self.picker)
        self.addWidget(self.capabilities)
        self.addAction(refresh)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.addWidget(spacer)
        self.addSeparator()
        self.addAction(tools)
        self.addAction(settings)
        btn = self.widgetForAction(refresh)
        if isinstance(btn, QToolButton):
            btn.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        #: the buttons that show their text when it fits
        self.texted = [new_chat, tools, settings]

    def fit(self, width: int, *more: QAction | None) -> None:
        """Text beside the icons (of these and ``more``) when the toolbar fits ``width``, else icons only (the text
        stays in the tooltip and the accessible name)."""
        actions = [*self.texted, *(a for a in more if a is not None)]
        buttons = [b for b in (self.widgetForAction(a) for a in actions) if isinstance(b, QToolButton)]
        for b in buttons:
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        if self.sizeHint().width() > width:
            for b in buttons:
                b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)


def build_menus(window: QMainWindow, file: list[QAction | None], chat: list[QAction], view: list[QAction],
                help_: list[QAction]) -> QMenu:
    """File, Chat, View and Help (None in ``file``: a separator); returns the View menu (the history's toggle
    joins it later)."""
    mb = window.menuBar()
    menus: list[QMenu] = []
    for title, actions in ((translate("Toolbar", "&File"), file), (translate("Toolbar", "&Chat"), chat),
                           (translate("Toolbar", "&View"), view), (translate("Toolbar", "&Help"), help_)):
        menu = mb.addMenu(title)
        menu.setObjectName(("fileMenu", "chatMenu", "viewMenu", "helpMenu")[len(menus)])
        menus.append(menu)
        for a in actions:
            menu.addAction(a) if a is not None else menu.addSeparator()
    return menus[2]  # View
