"""A server's question to the user (MCP elicitation): the older protocol's ``elicitation/create`` request and the
2026-07-28 protocol's ``input_required`` results both reach :func:`elicitation_callback` (the SDK routes them to
the one callback). The question becomes a :class:`Question` — its message, its form's fields read from the
requested schema (:func:`parse_schema`: strings, numbers, integers, booleans, enums; required, defaults, limits),
or the site a URL-mode request wants opened — and goes to the surface showing the call (its *asker*: the window
draws a form beside the call, the terminal asks line by line). With no asker (``chat -p`` without a terminal,
``mcp serve``) the question is declined, and the model reads that it was.

Answers are never logged (the log says only that a question was answered, declined or cancelled). A field the
server marks sensitive (``format: password``, ``writeOnly`` or ``x-sensitive``) can be remembered in the OS
keyring when the user ticks "remember": the next time that server asks for it, it is filled in."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP, Text

if TYPE_CHECKING:
    from desktop_agent.core.secrets import SecretStore

log = logging.getLogger(__name__)

FORM, URL = "form", "url"
ACCEPT, DECLINE, CANCEL = "accept", "decline", "cancel"
#: the kinds of field a form shows
STRING, NUMBER, INTEGER, BOOLEAN, ENUM, MULTI = "string", "number", "integer", "boolean", "enum", "multi"

Value = str | int | float | bool | list[str] | None


@dataclass(frozen=True)
class Choice:
    """One option of an enum field: the ``value`` sent, the ``label`` shown."""

    value: str
    label: str


@dataclass(frozen=True)
class FormField:
    """One field of a server's form, as its schema describes it."""

    name: str
    kind: str
    title: str = ""
    description: str = ""
    required: bool = False
    default: Value = None
    choices: tuple[Choice, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: str = ""
    sensitive: bool = False

    @property
    def label(self) -> str:
        return self.title or self.name

    def problem(self, value: Value) -> Text | None:
        """Why ``value`` cannot be sent for this field (None: it can). ``None``/``""`` is "empty"."""
        if value is None or value == "" or value == []:
            return QT_TRANSLATE_NOOP("Elicitation", "This field is required.") if self.required else None
        if self.kind in (NUMBER, INTEGER):
            if isinstance(value, bool) or not isinstance(value, int | float):
                return QT_TRANSLATE_NOOP("Elicitation", "Enter a number.")
            if self.kind == INTEGER and value != int(value):
                return QT_TRANSLATE_NOOP("Elicitation", "Enter a whole number.")
            if self.minimum is not None and value < self.minimum:
                return QT_TRANSLATE_NOOP("Elicitation", "At least {minimum}.").format(minimum=_num(self.minimum))
            if self.maximum is not None and value > self.maximum:
                return QT_TRANSLATE_NOOP("Elicitation", "At most {maximum}.").format(maximum=_num(self.maximum))
        elif self.kind == BOOLEAN:
            if not isinstance(value, bool):
                return QT_TRANSLATE_NOOP("Elicitation", "Answer yes or no.")
        elif self.kind == ENUM:
            if value not in [c.value for c in self.choices]:
                return QT_TRANSLATE_NOOP("Elicitation", "Pick one of the choices.")
        elif self.kind == MULTI:
            allowed = [c.value for c in self.choices]
            if not isinstance(value, list) or any(v not in allowed for v in value):
                return QT_TRANSLATE_NOOP("Elicitation", "Pick from the choices.")
            if self.min_length is not None and len(value) < self.min_length:
                return QT_TRANSLATE_NOOP("Elicitation", "Pick at least {n}.").format(n=self.min_length)
            if self.max_length is not None and len(value) > self.max_length:
                return QT_TRANSLATE_NOOP("Elicitation", "Pick at most {n}.").format(n=self.max_length)
        else:
            text = str(value)
            if self.min_length is not None and len(text) < self.min_length:
                return QT_TRANSLATE_NOOP("Elicitation", "At least {n} characters.").format(n=self.min_length)
            if self.max_length is not None and len(text) > self.max_length:
                return QT_TRANSLATE_NOOP("Elicitation", "At most {n} characters.").format(n=self.max_length)
            if self.format == "email" and ("@" not in text or text.startswith("@") or text.endswith("@")):
                return QT_TRANSLATE_NOOP("Elicitation", "Enter an email address.")
            if self.format == "uri" and not urlsplit(text).scheme:
                return QT_TRANSLATE_NOOP("Elicitation", "Enter a full address (https://…).")
        return None

    def read(self, text: str) -> Value:
        """The value typed as ``text`` (a line of the terminal, a line edit), or ValueError saying why not."""
        text = text.strip()
        if not text:
            return None
        if self.kind == INTEGER:
            try:
                return int(text)
            except ValueError:
                raise ValueError(str(QT_TRANSLATE_NOOP("Elicitation", "Enter a whole number."))) from None
        if self.kind == NUMBER:
            try:
                number = float(text)
            except ValueError:
                raise ValueError(str(QT_TRANSLATE_NOOP("Elicitation", "Enter a number."))) from None
            return int(number) if number.is_integer() and "." not in text else number
        if self.kind == BOOLEAN:
            word = text.lower()
            if word in ("y", "yes", "true", "1", "on"):
                return True
            if word in ("n", "no", "false", "0", "off"):
                return False
            raise ValueError(str(QT_TRANSLATE_NOOP("Elicitation", "Answer yes or no.")))
        if self.kind == ENUM:
            return self._choice(text)
        if self.kind == MULTI:
            return [str(self._choice(part.strip())) for part in text.split(",") if part.strip()]
        return text

    def _choice(self, text: str) -> str:
        """A choice by its number (1-based), value or label."""
        if text.isdigit() and 1 <= int(text) <= len(self.choices):
            return self.choices[int(text) - 1].value
        for c in self.choices:
            if text in (c.value, c.label) or text.lower() in (c.value.lower(), c.label.lower()):
                return c.value
        raise ValueError(str(QT_TRANSLATE_NOOP("Elicitation", "Pick one of the choices.")))


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _choices(spec: dict[str, Any]) -> tuple[Choice, ...]:
    """The options of an enum schema: ``enum`` (with the legacy ``enumNames``), or ``oneOf``/``anyOf`` of
    ``{const, title}``."""
    values = spec.get("enum")
    if isinstance(values, list):
        found = spec.get("enumNames")
        names: list[Any] = found if isinstance(found, list) else []
        return tuple(Choice(str(v), str(names[i]) if i < len(names) else str(v)) for i, v in enumerate(values))
    for key in ("oneOf", "anyOf"):
        options = spec.get(key)
        if isinstance(options, list):
            return tuple(Choice(str(o["const"]), str(o.get("title") or o["const"]))
                         for o in options if isinstance(o, dict) and "const" in o)
    return ()


def parse_schema(schema: Any) -> list[FormField]:
    """The fields of a requested schema (flat object of primitive properties, per the spec). A property of a
    type the form cannot show is shown as text."""
    if not isinstance(schema, dict):
        return []
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    required = set(schema.get("required") or []) if isinstance(schema.get("required"), list) else set()
    out: list[FormField] = []
    for name, spec in properties.items():
        if not isinstance(spec, dict):
            spec = {}
        kind = str(spec.get("type") or STRING)
        choices = _choices(spec)
        min_length, max_length = spec.get("minLength"), spec.get("maxLength")
        if kind == "array":
            items = spec.get("items")
            choices = _choices(items if isinstance(items, dict) else {})
            kind = MULTI if choices else STRING
            min_length, max_length = spec.get("minItems"), spec.get("maxItems")
        elif choices:
            kind = ENUM
        elif kind not in (STRING, NUMBER, INTEGER, BOOLEAN):
            kind = STRING
        default = spec.get("default")
        sensitive = bool(spec.get("writeOnly") or spec.get("x-sensitive") or spec.get("sensitive")
                         or spec.get("format") == "password")
        out.append(FormField(
            name=str(name), kind=kind, title=str(spec.get("title") or ""),
            description=str(spec.get("description") or ""), required=name in required,
            default=default if isinstance(default, str | int | float | bool | list) else None, choices=choices,
            minimum=_number(spec.get("minimum")), maximum=_number(spec.get("maximum")),
            min_length=min_length if isinstance(min_length, int) else None,
            max_length=max_length if isinstance(max_length, int) else None,
            format=str(spec.get("format") or ""), sensitive=sensitive))
    return out


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, int | float) and not isinstance(x, bool) else None


def problems(fields: list[FormField], values: dict[str, Value]) -> dict[str, Text]:
    """Field name → why its value cannot be sent (empty: the form can be submitted)."""
    out = {}
    for f in fields:
        why = f.problem(values.get(f.name))
        if why is not None:
            out[f.name] = why
    return out


@dataclass
class Question:
    """A server's question, waiting for the user's answer (:meth:`answer`, from any thread)."""

    server: str
    tool: str
    message: str
    mode: str = FORM
    fields: list[FormField] = field(default_factory=list)
    url: str = ""
    #: the id of the tool call it belongs to (the window shows the form beside it); "" when not known
    call_id: str = ""
    #: the values remembered in the keyring for sensitive fields (filled in; not shown to the model)
    remembered: dict[str, str] = field(default_factory=dict)
    action: str = ""
    content: dict[str, Value] | None = None
    #: the sensitive fields whose answer the user asked to remember
    remember: set[str] = field(default_factory=set)
    answered: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def site(self) -> str:
        """The host a URL-mode question wants opened."""
        return urlsplit(self.url).hostname or self.url

    def answer(self, action: str, content: dict[str, Value] | None = None, remember: set[str] | None = None) -> bool:
        """Answer it (``accept`` with the form's ``content``, ``decline``, ``cancel``); False when it was answered
        already (the first answer counts)."""
        if self.answered.is_set():
            return False
        self.action = action
        # a field left empty is left out (the server's schema may not take a null)
        self.content = ({k: v for k, v in (content or {}).items() if v is not None and v != "" and v != []}
                        if action == ACCEPT and self.mode == FORM else None)
        self.remember = set(remember or ()) if action == ACCEPT else set()
        self.answered.set()
        return True

    def __repr__(self) -> str:  # never the answers
        return f"Question(server={self.server!r}, tool={self.tool!r}, mode={self.mode!r}, action={self.action!r})"


#: shows a question to the user; the answer comes through :meth:`Question.answer` (the asker may also block
#: until it has it, as the terminal does)
QuestionAsker = Callable[[Question], None]


@dataclass
class CallRoute:
    """Where one tool call's questions go: the ``asker`` of the surface running it and the call's id."""

    asker: QuestionAsker | None
    call_id: str = ""
    cancel: threading.Event | None = None
    #: a question of the call waits for the user (the call's timeout is paused meanwhile)
    waiting: bool = False
    #: what the model should also hear about the call's questions (declined, cancelled, nobody to ask)
    notes: list[str] = field(default_factory=list)


def _secret_name(server: str, name: str) -> str:
    return f"mcp-answer:{server}:{name}"


def remembered_values(secrets: SecretStore | None, server: str, fields: list[FormField]) -> dict[str, str]:
    out: dict[str, str] = {}
    if secrets is None:
        return out
    for f in fields:
        if f.sensitive:
            with contextlib.suppress(Exception):
                value = secrets.get_secret(_secret_name(server, f.name))
                if value:
                    out[f.name] = value
    return out


def keep_remembered(secrets: SecretStore | None, question: Question) -> None:
    """Put the sensitive answers the user ticked "remember" for into the keyring; a remembered one the user
    unticked is forgotten."""
    if secrets is None or question.content is None:
        return
    for f in question.fields:
        value = question.content.get(f.name)
        if not f.sensitive:
            continue
        if f.name in question.remember and isinstance(value, str) and value:
            keep: str | None = value
        elif f.name in question.remembered and f.name not in question.remember:
            keep = None
        else:
            continue
        try:
            secrets.set_secret(_secret_name(question.server, f.name), keep)
        except Exception:  # noqa: BLE001 — only the convenience is lost
            log.warning("could not keep an answer for MCP server %s in the keyring", question.server)


def question_of(server: str, tool: str, params: Any, call_id: str = "") -> Question:
    """The SDK's ``ElicitRequestParams`` as a :class:`Question`."""
    message = str(getattr(params, "message", "") or "")
    if getattr(params, "mode", FORM) == URL:
        return Question(server, tool, message, URL, url=str(getattr(params, "url", "") or ""), call_id=call_id)
    return Question(server, tool, message, FORM, parse_schema(getattr(params, "requested_schema", None)),
                    call_id=call_id)


def elicitation_callback(server: str, route: Callable[[], tuple[str, CallRoute | None]],
                         secrets: SecretStore | None = None) -> Any:
    """The SDK elicitation callback of ``server``'s session. ``route()`` says which tool call is running and
    where its questions go (None: nobody can answer — the question is declined)."""
    from mcp_types import ElicitResult

    async def ask(_context: Any, params: Any) -> Any:
        tool, where = route()
        if where is None or where.asker is None:
            log.info("MCP server %s asked the user something; nobody can answer here: declined", server)
            if where is not None:
                where.notes.append(f"The MCP server {server} asked the user: {str(getattr(params, 'message', ''))!r}. "
                                   "Nobody can answer in this run, so the question was declined.")
            return ElicitResult(action=DECLINE)
        question = question_of(server, tool, params, where.call_id)
        question.remembered = remembered_values(secrets, server, question.fields)
        loop = asyncio.get_running_loop()
        where.waiting = True
        try:
            await loop.run_in_executor(None, _show, where.asker, question)  # a terminal asker blocks until answered
            while not question.answered.is_set():
                if where.cancel is not None and where.cancel.is_set():
                    question.answer(CANCEL)
                    break
                await asyncio.sleep(0.05)
        finally:
            where.waiting = False
            if not question.answered.is_set():  # the call was cancelled: the form goes away
                question.answer(CANCEL)
        log.info("MCP server %s: its question was %s", server,
                 {ACCEPT: "answered", DECLINE: "declined", CANCEL: "cancelled"}.get(question.action, "answered"))
        if question.action in (DECLINE, CANCEL):
            where.notes.append(f"The user {'declined' if question.action == DECLINE else 'cancelled'} the question "
                               f"of the MCP server {server}: {question.message!r}.")
        if question.action == ACCEPT:
            keep_remembered(secrets, question)
            return ElicitResult(action=ACCEPT, content=question.content if question.mode == FORM else None)
        return ElicitResult(action=question.action if question.action in (DECLINE, CANCEL) else CANCEL)

    return ask


def _show(asker: QuestionAsker, question: Question) -> None:
    try:
        asker(question)
    except Exception:
        log.warning("showing an MCP server's question failed", exc_info=True)
        question.answer(CANCEL)
