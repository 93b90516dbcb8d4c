"""Colours for the chat widgets, derived from the current palette so that light and dark both work.

Every colour is a mix of palette roles (base, text, highlight) or a fixed hue mixed into the base
colour, so contrast follows the user's theme. :func:`dark_palette` / :func:`light_palette` give the
Fusion palettes used when the user asks for a theme (``DESKTOP_AGENT_THEME=dark|light``); :func:`apply` sets
the style and the palette.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication


def mix(a: QColor | str, b: QColor | str, t: float) -> QColor:
    """``a`` blended towards ``b`` by ``t`` (0 → a, 1 → b)."""
    a, b = QColor(a), QColor(b)
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


@dataclass(frozen=True)
class Theme:
    dark: bool
    base: str  # chat background
    text: str
    muted: str  # secondary text
    faint: str  # hairlines
    accent: str
    accent_text: str
    user_bubble: str
    user_border: str
    assistant_bubble: str
    assistant_border: str
    code_bg: str
    code_head: str
    inline_code_bg: str
    error_bg: str
    error_border: str
    error_text: str
    warn: str
    ok: str
    err: str
    link: str
    pygments_style: str


#: the themes of the palettes seen last (by the palette's cache key: a changed palette has another)
_THEMES: dict[int, Theme] = {}


def current(palette: QPalette | None = None) -> Theme:
    """The theme for ``palette`` (default: the application palette) — worked out once per palette (a sidebar
    painting 500 rows asks for it 500 times)."""
    if palette is None:
        app = QApplication.instance()
        palette = app.palette() if isinstance(app, QApplication) else QPalette()
    key = palette.cacheKey()
    found = _THEMES.get(key)
    if found is None:
        if len(_THEMES) >= 16:
            _THEMES.clear()
        found = _THEMES[key] = _theme_of(palette)
    return found


def _theme_of(palette: QPalette) -> Theme:
    base = palette.color(QPalette.ColorRole.Base)
    text = palette.color(QPalette.ColorRole.Text)
    accent = palette.color(QPalette.ColorRole.Highlight)
    dark = base.lightness() < 128
    red = QColor("#e5534b" if dark else "#cf222e")
    green = QColor("#57ab5a" if dark else "#1a7f37")
    amber = QColor("#c69026" if dark else "#9a6700")
    return Theme(
        dark=dark,
        base=base.name(),
        text=text.name(),
        muted=mix(text, base, 0.42).name(),
        faint=mix(text, base, 0.86).name(),
        accent=accent.name(),
        accent_text=palette.color(QPalette.ColorRole.HighlightedText).name(),
        user_bubble=mix(base, accent, 0.20 if dark else 0.11).name(),
        user_border=mix(base, accent, 0.34 if dark else 0.22).name(),
        assistant_bubble=mix(base, text, 0.045 if dark else 0.025).name(),
        assistant_border=mix(base, text, 0.12 if dark else 0.09).name(),
        code_bg=mix(base, text, 0.075 if dark else 0.045).name(),
        code_head=mix(base, text, 0.13 if dark else 0.085).name(),
        inline_code_bg=mix(base, text, 0.11 if dark else 0.07).name(),
        error_bg=mix(base, red, 0.14 if dark else 0.07).name(),
        error_border=mix(base, red, 0.45 if dark else 0.35).name(),
        error_text=mix(text, red, 0.25).name(),
        warn=amber.name(),
        ok=green.name(),
        err=red.name(),
        link=(mix(accent, QColor("white"), 0.35) if dark else accent).name(),
        pygments_style="github-dark" if dark else "default",
    )


_R = QPalette.ColorRole


def _palette(colors: dict[QPalette.ColorRole, str], disabled_text: str) -> QPalette:
    pal = QPalette()
    for role, value in colors.items():
        pal.setColor(role, QColor(value))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled_text))
    return pal


def dark_palette() -> QPalette:
    return _palette(
        {
            _R.Window: "#1f2125", _R.WindowText: "#e6e6e6", _R.Base: "#17181b", _R.AlternateBase: "#1c1e22",
            _R.ToolTipBase: "#2b2d31", _R.ToolTipText: "#e6e6e6", _R.PlaceholderText: "#8b8f96",
            _R.Text: "#e6e6e6", _R.Button: "#2a2c31", _R.ButtonText: "#e6e6e6", _R.BrightText: "#ff6b6b",
            _R.Highlight: "#4c7dea", _R.HighlightedText: "#ffffff", _R.Link: "#7aa2f7",
            _R.Light: "#3a3d43", _R.Midlight: "#30333a", _R.Mid: "#26282d", _R.Dark: "#111214", _R.Shadow: "#000000",
        },
        "#6e727a",
    )


def light_palette() -> QPalette:
    return _palette(
        {
            _R.Window: "#f3f4f6", _R.WindowText: "#1f2328", _R.Base: "#ffffff", _R.AlternateBase: "#f6f8fa",
            _R.ToolTipBase: "#ffffff", _R.ToolTipText: "#1f2328", _R.PlaceholderText: "#7d848c",
            _R.Text: "#1f2328", _R.Button: "#f6f7f9", _R.ButtonText: "#1f2328", _R.BrightText: "#cf222e",
            _R.Highlight: "#3b6fd8", _R.HighlightedText: "#ffffff", _R.Link: "#2f5fc4",
            _R.Light: "#ffffff", _R.Midlight: "#eceef1", _R.Mid: "#c9ced6", _R.Dark: "#9aa1ab", _R.Shadow: "#5a606a",
        },
        "#9aa1ab",
    )


def indicator_outline(palette: QPalette) -> QColor:
    """The ring :class:`~desktop_agent.ui.contrast_style.ContrastStyle` draws around radio buttons and check boxes
    on a dark palette."""
    return mix(palette.color(QPalette.ColorRole.WindowText), palette.color(QPalette.ColorRole.Window), 0.5)


def apply(app: QApplication, choice: str = "system", *, contrast_later: bool = False,
          override: str | None = None) -> None:
    """Fusion everywhere (a consistent look) and the palette for ``choice`` — "light", "dark" or "system"
    (the desktop's colour scheme). ``override`` (``DESKTOP_AGENT_THEME=dark|light``; default: this process's,
    from :func:`~desktop_agent.core.services.current_env`) wins over the setting. A dark palette
    gets :class:`~desktop_agent.ui.contrast_style.ContrastStyle` (Fusion with indicators that show on it); a
    light one plain Fusion, which draws the same without a Python call for every primitive painted.

    ``contrast_later``: a dark palette keeps plain Fusion until :func:`apply_contrast` — the window's first
    frame has no radio button or check box for it to draw, and is painted faster without it."""
    global _contrast_pending
    if override is None:
        from desktop_agent.core.services import current_env

        override = current_env().theme
    choice = override.lower() or choice
    if choice not in ("dark", "light"):
        try:
            scheme = app.styleHints().colorScheme()
        except AttributeError:  # Qt < 6.5: the palette the platform gave
            choice = "dark" if app.palette().color(QPalette.ColorRole.Window).lightness() < 128 else "light"
            _contrast_pending = choice == "dark" and contrast_later
            _set_style(app, dark=choice == "dark" and not contrast_later)
            return
        choice = "dark" if scheme == Qt.ColorScheme.Dark else "light"
    _contrast_pending = choice == "dark" and contrast_later
    _set_style(app, dark=choice == "dark" and not contrast_later)
    app.setPalette(dark_palette() if choice == "dark" else light_palette())


def apply_contrast(app: QApplication) -> None:
    """The contrast style :func:`apply` left for later (``contrast_later``), if the palette is still dark."""
    global _contrast_pending
    if _contrast_pending:
        _contrast_pending = False
        _set_style(app, dark=True)


#: a dark palette is in use and its contrast style waits for :func:`apply_contrast`
_contrast_pending = False


#: the style :func:`_set_style` last gave the application: "fusion" or "contrast" (with the app's id)
_style_set: tuple[int, str] | None = None


def application_arguments(argv: list[str]) -> list[str]:
    """``argv`` with Qt's ``-style Fusion`` added — unless the user chose a style (``QT_STYLE_OVERRIDE``, or a
    ``-style`` argument)."""
    import os

    if os.environ.get("QT_STYLE_OVERRIDE") or any(a == "-style" or a.startswith("-style=") for a in argv):
        return list(argv)
    return [*argv, "-style", "Fusion"]


def new_application(argv: list[str]) -> QApplication:
    """The QApplication, made with Fusion as its style by Qt itself (:func:`application_arguments`): a style
    set with :meth:`QApplication.setStyle` is handed to Python, and PySide6 builds the ``QStyle`` type and
    its enums for that (≈ 8 ms before the first frame). :func:`apply` knows the style is set."""
    global _style_set
    arguments = application_arguments(argv)
    app = QApplication(arguments)
    if len(arguments) > len(argv):
        _style_set = (id(app), "fusion")
    return app


def _set_style(app: QApplication, *, dark: bool) -> None:
    """Fusion, or Fusion with visible indicators (:class:`~desktop_agent.ui.contrast_style.ContrastStyle`) for a
    dark palette — unless the user chose a style (``QT_STYLE_OVERRIDE``). Sets it only when it changes: a new
    style re-polishes every widget."""
    import os

    global _style_set
    if os.environ.get("QT_STYLE_OVERRIDE"):
        return
    wanted = (id(app), "contrast" if dark else "fusion")
    if _style_set == wanted:
        return
    if dark:
        from desktop_agent.ui.contrast_style import ContrastStyle

        app.setStyle(ContrastStyle("Fusion"))
    else:
        app.setStyle("Fusion")
    _style_set = wanted

