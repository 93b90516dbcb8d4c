"""A server's requested schema as form fields, the checks of each value, what a typed line means, and a question
that never shows its answers (repr, log)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from mcp_types import ElicitRequestFormParams

from desktop_agent.core.mcp.elicitation import (
    ACCEPT,
    BOOLEAN,
    DECLINE,
    ENUM,
    INTEGER,
    MULTI,
    NUMBER,
    STRING,
    CallRoute,
    Question,
    elicitation_callback,
    parse_schema,
    problems,
)

SCHEMA = {
    "type": "object",
    "required": ["name", "size"],
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 10},
        "size": {"type": "integer", "minimum": 1, "maximum": 12, "default": 2},
        "ratio": {"type": "number", "minimum": 0.5},
        "ok": {"type": "boolean", "default": True},
        "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cat", "Dog"]},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}, {"const": "h2"}]},
        "tags": {"type": "array", "minItems": 1, "maxItems": 2,
                 "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b"}, {"const": "c"}]}},
        "mail": {"type": "string", "format": "email"},
        "key": {"type": "string", "format": "password"},
        "odd": {"type": "object"},
    },
}


def test_the_schema_becomes_fields_of_each_kind():
    fields = {f.name: f for f in parse_schema(SCHEMA)}
    kinds = {name: f.kind for name, f in fields.items()}
    assert kinds == {"name": STRING, "size": INTEGER, "ratio": NUMBER, "ok": BOOLEAN, "pet": ENUM, "hero": ENUM,
                     "tags": MULTI, "mail": STRING, "key": STRING, "odd": STRING}
    assert fields["name"].required and fields["size"].required and not fields["ratio"].required
    assert fields["size"].default == 2 and fields["ok"].default is True
    assert [(c.value, c.label) for c in fields["pet"].choices] == [("p1", "Cat"), ("p2", "Dog")]
    assert [(c.value, c.label) for c in fields["hero"].choices] == [("h1", "Superman"), ("h2", "h2")]
    assert [c.value for c in fields["tags"].choices] == ["a", "b", "c"]
    assert fields["key"].sensitive and not fields["name"].sensitive
    assert parse_schema(None) == [] and parse_schema({"properties": []}) == []


@pytest.mark.parametrize(("name", "value", "why"), [
    ("name", None, "This field is required."), ("name", "A", "At least 2 characters."),
    ("name", "A" * 11, "At most 10 characters."), ("size", 0, "At least 1."), ("size", 13, "At most 12."),
    ("size", 2.5, "Enter a whole number."), ("ratio", 0.1, "At least 0.5."), ("ok", "yes", "Answer yes or no."),
    ("pet", "p3", "Pick one of the choices."), ("tags", [], None), ("tags", ["a", "b", "c"], "Pick at most 2."),
    ("tags", ["z"], "Pick from the choices."), ("mail", "nobody", "Enter an email address."),
    ("ratio", None, None), ("size", 12, None), ("pet", "p2", None), ("mail", "a@b.org", None),
])
def test_each_value_is_checked(name, value, why):
    field = next(f for f in parse_schema(SCHEMA) if f.name == name)
    found = field.problem(value)
    assert (str(found) if found is not None else None) == why


def test_a_typed_line_is_read_as_the_fields_value():
    fields = {f.name: f for f in parse_schema(SCHEMA)}
    assert fields["size"].read(" 7 ") == 7
    assert fields["ratio"].read("2") == 2 and fields["ratio"].read("0.75") == 0.75
    assert fields["ok"].read("n") is False and fields["ok"].read("Yes") is True
    assert fields["pet"].read("2") == "p2" and fields["pet"].read("cat") == "p1"
    assert fields["tags"].read("1, b") == ["a", "b"]
    assert fields["name"].read("") is None
    for name, text in (("size", "many"), ("ok", "maybe"), ("pet", "9")):
        with pytest.raises(ValueError):
            fields[name].read(text)
    values = {"name": "Ada", "size": 3}
    assert problems(parse_schema(SCHEMA), values) == {}
    assert set(problems(parse_schema(SCHEMA), {})) == {"name", "size"}


def test_empty_fields_are_left_out_and_only_the_first_answer_counts():
    q = Question("s", "t", "m", fields=parse_schema(SCHEMA))
    assert q.answer(ACCEPT, {"name": "Ada", "ratio": None, "mail": "", "tags": []}, {"key"})
    assert q.content == {"name": "Ada"} and q.remember == {"key"}
    assert not q.answer(DECLINE) and q.action == ACCEPT


def test_answers_are_never_in_the_log_or_the_repr(caplog):
    secret = "correct horse battery staple"

    def asker(question: Question) -> None:
        question.answer(ACCEPT, {"name": secret})

    route = CallRoute(asker)
    ask = elicitation_callback("srv", lambda: ("tool", route))
    params = ElicitRequestFormParams(message="Who?", requested_schema={
        "type": "object", "properties": {"name": {"type": "string"}}})
    with caplog.at_level(logging.DEBUG):
        result = asyncio.run(ask(None, params))
    assert result.action == ACCEPT and result.content == {"name": secret}
    assert secret not in caplog.text and "answered" in caplog.text
    assert route.notes == [] and not route.waiting


def test_with_nobody_to_ask_the_question_is_declined_and_noted():
    route = CallRoute(None)
    ask = elicitation_callback("srv", lambda: ("tool", route))
    params = ElicitRequestFormParams(message="Who?", requested_schema={"type": "object", "properties": {}})
    assert asyncio.run(ask(None, params)).action == DECLINE
    assert route.notes == ["The MCP server srv asked the user: 'Who?'. Nobody can answer in this run, so the "
                           "question was declined."]


def test_a_remembered_answer_is_kept_updated_and_forgotten_when_unticked():
    from desktop_agent.core.mcp.elicitation import keep_remembered, remembered_values
    from desktop_agent.core.secrets import SecretStore
    from tests.helpers.keyrings import DictKeyring

    secrets = SecretStore(keyring_backend=DictKeyring())
    fields = parse_schema(SCHEMA)

    def answer(value: str, remember: set[str]) -> None:
        q = Question("srv", "t", "m", fields=fields, remembered=remembered_values(secrets, "srv", fields))
        q.answer(ACCEPT, {"name": "Ada", "size": 2, "key": value}, remember)
        keep_remembered(secrets, q)

    answer("k1", set())
    assert remembered_values(secrets, "srv", fields) == {}
    answer("k1", {"key", "name"})  # only a sensitive field is ever remembered
    assert remembered_values(secrets, "srv", fields) == {"key": "k1"}
    assert remembered_values(secrets, "other", fields) == {}  # per server
    answer("k2", {"key"})
    assert remembered_values(secrets, "srv", fields) == {"key": "k2"}
    answer("k2", set())  # unticked: forgotten
    assert remembered_values(secrets, "srv", fields) == {}
