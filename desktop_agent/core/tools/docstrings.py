"""Reading a tool's docstring: its description (first paragraph) and its parameters' descriptions."""

from __future__ import annotations

import inspect
import re

_SECTION_RE = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns|Return|Yields|Raises|"
    r"Examples?|Notes?|Warnings?|Attributes|See Also|Todo)\s*:\s*$",
    re.IGNORECASE,
)
_ARGS_HEADER_RE = re.compile(
    r"^(\s*)(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments)\s*:\s*$", re.IGNORECASE
)
_ARG_LINE_RE = re.compile(r"^\*{0,2}([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM_RE = re.compile(r"^\s*:param\s+(?:[^:]*\s)?([A-Za-z_]\w*)\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into ``(description, {parameter: description})``.

    The description is the first paragraph with its lines joined by spaces (it stops at a blank line or
    a section header such as ``Args:``). Parameter descriptions come from a Google-style ``Args:``
    section (``name: text`` or ``name (type): text``, continuation lines indented deeper) or from
    Sphinx ``:param name: text`` lines.
    """
    text = inspect.cleandoc(doc or "")
    lines = text.splitlines()

    first: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped:
            if first:
                break
            continue
        if _SECTION_RE.match(line) or stripped.startswith(":"):
            break
        first.append(stripped)
    description = " ".join(first)

    params: dict[str, str] = {}
    i = 0
    while i < len(lines):
        header = _ARGS_HEADER_RE.match(lines[i])
        sphinx = _SPHINX_PARAM_RE.match(lines[i])
        if sphinx:
            name, parts = sphinx.group(1), [sphinx.group(2).strip()]
            base = len(lines[i]) - len(lines[i].lstrip())
            i += 1
            while i < len(lines) and lines[i].strip() and len(lines[i]) - len(lines[i].lstrip()) > base:
                parts.append(lines[i].strip())
                i += 1
            params.setdefault(name, " ".join(p for p in parts if p))
            continue
        if not header:
            i += 1
            continue
        section_indent = len(header.group(1))
        item_indent: int | None = None
        current: str | None = None
        i += 1
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            indent = len(line) - len(line.lstrip())
            if indent <= section_indent:
                break
            if item_indent is None:
                item_indent = indent
            if indent == item_indent:
                m = _ARG_LINE_RE.match(line.strip())
                current = m.group(1) if m else None
                if m is not None:
                    params[m.group(1)] = m.group(2).strip()
            elif current is not None:
                params[current] = (params[current] + " " + line.strip()).strip()
            i += 1
    return description, params
