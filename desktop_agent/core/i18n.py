"""Texts the window translates, marked in the core without Qt.

The core must not import Qt, yet some of its texts reach the window (the errors' sentences). They are marked
with :func:`QT_TRANSLATE_NOOP` — a name Qt's ``lupdate`` recognises, so ``scripts/translations.sh`` puts them in
the ``.ts`` file under their context — and the window translates them where it shows them
(:func:`desktop_agent.ui.i18n.translate` with the same context and text). The terminal shows them as they are
(English).
"""

from __future__ import annotations


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name lupdate looks for
    """``text``, unchanged: marks it for translation in ``context``."""
    del context
    return text
