"""Texts the window translates, marked in the core without Qt.

The core must not import Qt, yet some of its texts reach the window: the errors' sentences, why tools are
offered, what a permission covers. They are marked with :func:`QT_TRANSLATE_NOOP` — a name Qt's ``lupdate``
recognises, so ``scripts/translations.sh`` puts them in the ``.ts`` file under their context — and filled with
:meth:`Text.format` (named values only) instead of an f-string. The result is a plain ``str`` in English (what
the terminal prints, what tests and logs see) that also remembers its template, context and values, and joins
(``+``) keep their parts: the window translates it where it shows it
(:func:`desktop_agent.ui.i18n.translate_text`), values that are themselves marked texts included.
"""

from __future__ import annotations

from typing import Any


class Text(str):
    """An English text that remembers how to translate it: ``context`` and ``template`` (as lupdate saw them),
    the ``values`` filled in, or the ``parts`` it was joined from."""

    context: str
    template: str
    values: dict[str, Any]
    parts: tuple[str, ...]

    def __new__(cls, value: str = "", context: str = "", template: str | None = None,
                values: dict[str, Any] | None = None, parts: tuple[str, ...] = ()) -> Text:
        text = super().__new__(cls, value)
        text.context = context
        text.template = value if template is None else template
        text.values = dict(values or {})
        text.parts = parts
        return text

    def format(self, *args: object, **values: Any) -> Text:
        """The template filled with ``values`` (named only: a translation may reorder them)."""
        if args:
            raise TypeError("Text.format takes named values only")
        return Text(self.template.format(**values), self.context, self.template, values)

    def __add__(self, other: str) -> Text:
        if not isinstance(other, str):
            return NotImplemented
        return Text(str.__add__(self, other), parts=(self, other))

    def __radd__(self, other: str) -> Text:
        if not isinstance(other, str):
            return NotImplemented
        return Text(other + str(self), parts=(other, self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Text, (str(self), self.context, self.template, self.values, self.parts))


def QT_TRANSLATE_NOOP(context: str, text: str) -> Text:  # noqa: N802 - the name lupdate looks for
    """``text`` (English, unchanged), marked for translation in ``context``; :meth:`Text.format` fills it."""
    return Text(text, context)
