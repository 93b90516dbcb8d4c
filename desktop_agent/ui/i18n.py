"""The window's language: the translator installed at start-up, and :func:`translate`, the one call every UI
text goes through.

The translations are Qt Linguist files in ``desktop_agent/translations/`` (``desktop_agent_zh_CN.ts``, built to
``.qm`` inside the package); ``scripts/translations.sh`` refreshes both after strings change. English is the
source language: an English UI loads no file. ``appearance.language``: ``"system"`` (the desktop's locale, from
:meth:`QLocale.system` — ``LANGUAGE``, ``LC_ALL``, ``LANG``), ``"en"`` or ``"zh_CN"``; a change applies at the
next start (the translator is installed before any window text is built).

Core modules do not import Qt: they mark their texts with
:func:`desktop_agent.core.i18n.QT_TRANSLATE_NOOP`, and the window translates them where it shows them
(:func:`translate` with the same context).

Pure PySide6 and the standard library: imported before the first frame (loading a ``.qm`` takes about a
millisecond).
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

log = logging.getLogger(__name__)

#: where the built translations are (inside the package: in the wheel and in the PyInstaller bundle)
TRANSLATIONS_DIR = Path(__file__).resolve().parent.parent / "translations"
#: the languages the window speaks: ``appearance.language`` value → (the file's suffix, or "" for the source)
LANGUAGES: dict[str, str] = {"en": "", "zh_CN": "zh_CN"}
#: the choices of ``appearance.language``
CHOICES: tuple[str, ...] = ("system", "en", "zh_CN")

#: the translators installed (kept referenced: Qt does not own them)
_installed: list[QTranslator] = []


def translate(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """``text`` in the window's language (``QCoreApplication.translate``); ``%n`` in it is ``n``, with the
    plural form of the language. lupdate finds the calls by this name: the context and the text must be
    literal strings."""
    return QCoreApplication.translate(context, text, disambiguation, n)


def resolve(language: str, system: QLocale | None = None) -> str:
    """The language a setting means: ``"en"`` or ``"zh_CN"``. ``"system"`` (or an unknown value) follows the
    system's locale (``system``, default :meth:`QLocale.system`): any Chinese but the traditional script
    (Taiwan, Hong Kong, Macao) is Simplified Chinese, anything else English."""
    if language in LANGUAGES:
        return language
    locale = system if system is not None else QLocale.system()
    for name in locale.uiLanguages() or [locale.name()]:
        name = name.replace("-", "_")
        if name.startswith("zh"):
            traditional = "Hant" in name or name.endswith(("_TW", "_HK", "_MO"))
            return "en" if traditional else "zh_CN"
        if name.startswith("en"):
            return "en"
    return "en"


def qm_file(language: str) -> Path | None:
    """The built translation of ``language`` (``"en"``/``"zh_CN"``), or None for the source language."""
    suffix = LANGUAGES.get(language, "")
    return TRANSLATIONS_DIR / f"desktop_agent_{suffix}.qm" if suffix else None


def install(language: str = "system", app: QCoreApplication | None = None) -> str:
    """Install the translators for the setting ``language`` on ``app`` (default: the running application),
    replacing any installed before; returns the language used (``"en"`` or ``"zh_CN"``). Also loads Qt's own
    translation (standard buttons: OK, Cancel…) and sets the default :class:`QLocale` (numbers and dates shown
    in the language). A missing or unreadable file is logged and leaves English."""
    app = app or QCoreApplication.instance()
    chosen = resolve(language)
    uninstall(app)
    path = qm_file(chosen)
    if path is None or app is None:
        return "en"
    ours = QTranslator(app)
    if not ours.load(str(path)):
        log.warning("could not load the translation %s: the window stays in English", path)
        return "en"
    qt_own = QTranslator(app)
    if qt_own.load(f"qtbase_{LANGUAGES[chosen]}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt_own)
        _installed.append(qt_own)
    app.installTranslator(ours)
    _installed.append(ours)
    QLocale.setDefault(QLocale(chosen))
    return chosen


def uninstall(app: QCoreApplication | None = None) -> None:
    """Remove the translators :func:`install` installed (the window speaks English again)."""
    app = app or QCoreApplication.instance()
    if _installed:
        QLocale.setDefault(QLocale.system())
    while _installed:
        translator = _installed.pop()
        if app is not None:
            app.removeTranslator(translator)


def current() -> str:
    """The language installed now: ``"zh_CN"`` or ``"en"``."""
    return "zh_CN" if _installed else "en"


def translate_text(text: str) -> str:
    """A core text (:class:`desktop_agent.core.i18n.Text`) in the window's language: its template translated in
    its context, then filled with its values (translated too, when they are marked texts); joined texts part by
    part. Any other string is returned as it is (a model's name, a server's own message)."""
    from desktop_agent.core.i18n import Text

    if not isinstance(text, Text):
        return text
    if text.parts:
        return "".join(translate_text(part) for part in text.parts)
    if not text.context:
        return str(text)
    template = translate(text.context, text.template)
    values = {key: translate_text(value) if isinstance(value, Text) else value for key, value in text.values.items()}
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):  # a translation that lost a {value}: the English text
        return str(text)


def source_name(source: str) -> str:
    """A tool's source (``"shipped"``, ``"user"``, a folder, ``"MCP server time"``) in the window's language."""
    if source == "shipped":
        return translate("ToolSource", "shipped", "a tool that comes with the app")
    if source == "user":
        return translate("ToolSource", "user", "a tool from the user's tools folder")
    return source


def number(value: int | float) -> str:
    """``value`` as the window's locale writes numbers (``10,000``; the C locale of a bare environment writes
    them as English does)."""
    locale = QLocale()
    if locale.language() == QLocale.Language.C:
        locale = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    return locale.toString(value)
