"""Asking on the terminal what an MCP server wants to know (its elicitation), line by line: the server and its
question, then ``Answer? [y]es / [d]ecline / [c]ancel``, then each field of its form — its label (``*``:
required), what it is for, the choices (by number or name), the default (an empty line keeps it) — asked again
until the value fits. A sensitive field is read without echo and may be remembered in the keyring. A URL-mode
question names the site and why, and opens the browser only after a yes. End of input or Ctrl+C cancels.
Prompts go to stderr; answers are read from stdin and never printed back."""

from __future__ import annotations

import webbrowser
from typing import TextIO

from desktop_agent.cli.output import Output, visible, write_line
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

_ACTIONS = {"y": ACCEPT, "yes": ACCEPT, "d": DECLINE, "decline": DECLINE, "n": DECLINE, "no": DECLINE,
            "c": CANCEL, "cancel": CANCEL}


class _NoAnswer(Exception):
    """End of input or Ctrl+C while asking."""


def ask_question(question: Question, err: Output, inp: TextIO) -> None:
    """Ask ``question`` on the terminal and answer it (cancel when the input ends)."""
    try:
        if question.mode == URL:
            _ask_url(question, err, inp)
        else:
            _ask_form(question, err, inp)
    except _NoAnswer:
        write_line(err, "")
        question.answer(CANCEL)


def _line(err: Output, inp: TextIO, prompt: str, secret: bool = False) -> str:
    err.write(prompt)
    try:
        line = _unechoed(inp, err) if secret else inp.readline()
    except (KeyboardInterrupt, EOFError, OSError, ValueError):
        raise _NoAnswer from None
    if not line:
        raise _NoAnswer
    return line.rstrip("\r\n")


def _unechoed(inp: TextIO, err: Output) -> str:
    """A line read from ``inp`` without showing it, when it is a terminal (else read as it is)."""
    try:
        import termios

        fd = inp.fileno()
        if not inp.isatty():
            return inp.readline()
        old = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError, AttributeError):
        return inp.readline()
    new = list(old)
    new[3] &= ~termios.ECHO
    try:
        termios.tcsetattr(fd, termios.TCSAFLUSH, new)
        return inp.readline()
    finally:
        termios.tcsetattr(fd, termios.TCSAFLUSH, old)
        write_line(err, "")


def _choose(err: Output, inp: TextIO, prompt: str, words: dict[str, str]) -> str:
    while True:
        word = _line(err, inp, prompt).strip().lower()
        if word in words:
            return words[word]
        write_line(err, "  please answer " + ", ".join(sorted({w for w in words if len(w) == 1})))


def _ask_url(question: Question, err: Output, inp: TextIO) -> None:
    write_line(err, f"[question] {question.server} ({question.tool}) wants you to open a page on {question.site}:")
    write_line(err, f"  {visible(question.message)}")
    write_line(err, f"  {visible(question.url)}")
    action = _choose(err, inp, "Open it in the browser? [y]es / [d]ecline / [c]ancel: ", _ACTIONS)
    if action == ACCEPT:
        try:
            opened = webbrowser.open(question.url)
        except Exception:  # noqa: BLE001 — no browser here: the user has the address above
            opened = False
        if not opened:
            write_line(err, "  (no browser could be opened: open the address above yourself)")
    question.answer(action)


def _ask_form(question: Question, err: Output, inp: TextIO) -> None:
    write_line(err, f"[question] {question.server} ({question.tool}) asks: {visible(question.message)}")
    action = _choose(err, inp, "Answer it? [y]es / [d]ecline / [c]ancel: ", _ACTIONS)
    if action != ACCEPT:
        question.answer(action)
        return
    values: dict[str, Value] = {}
    remember: set[str] = set(question.remembered)  # a remembered answer stays remembered (updated if retyped)
    for f in question.fields:
        values[f.name] = _ask_field(f, question.remembered.get(f.name), err, inp)
        if f.sensitive and values[f.name] and f.name not in question.remembered and _choose(
                err, inp, "  Remember it in the keyring? [y]es / [n]o: ",
                {"y": "y", "yes": "y", "n": "n", "no": "n"}) == "y":
            remember.add(f.name)
    question.answer(ACCEPT, values, remember)


def _ask_field(f: FormField, remembered: str | None, err: Output, inp: TextIO) -> Value:
    label = visible(f.label) + ("*" if f.required else "")
    if f.description:
        write_line(err, f"  {label}: {visible(f.description)}")
    if f.kind in (ENUM, MULTI):
        for i, c in enumerate(f.choices, 1):
            write_line(err, f"    {i}. {visible(c.label)}")
    default: Value = remembered if remembered is not None else f.default
    hint = {BOOLEAN: " (y/n)", MULTI: " (numbers, comma-separated)"}.get(f.kind, "")
    if f.sensitive and default:
        shown = " [remembered]"
    elif default is not None and default != [] and not f.sensitive:
        shown = f" [{_show(f, default)}]"
    else:
        shown = ""
    while True:
        text = _line(err, inp, f"  {label}{hint}{shown}: ", secret=f.sensitive)
        try:
            value = f.read(text) if text.strip() else default
        except ValueError as exc:
            write_line(err, f"    {exc}")
            continue
        problem = f.problem(value)
        if problem is None:
            return value
        write_line(err, f"    {problem}")


def _show(f: FormField, value: Value) -> str:
    labels = {c.value: c.label for c in f.choices}
    if isinstance(value, list):
        return ", ".join(labels.get(str(v), str(v)) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return visible(labels.get(str(value), str(value)))
