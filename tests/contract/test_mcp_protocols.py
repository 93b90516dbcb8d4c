"""Both MCP protocol versions and a server's questions, against real servers: the npm reference server (it speaks
``2025-11-25``: questions come as ``elicitation/create`` requests) and an SDK server (tests/mcp_servers/asking.py;
it speaks ``2026-07-28`` to us: questions come as ``input_required`` results), each over stdio and Streamable
HTTP. A question goes to the asker of the call (the surface); with none it is declined and the tool says so."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from desktop_agent.core.mcp.elicitation import ACCEPT, BOOLEAN, CANCEL, ENUM, INTEGER, URL, CallRoute, Question
from desktop_agent.core.mcp.manager import READY, McpManager
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import McpServerSettings
from tests.helpers.keyrings import DictKeyring
from tests.mcp_servers.everything import everything_command, everything_http
from tests.mcp_servers.sdk import sdk_http, sdk_stdio

OLD, NEW = "2025-11-25", "2026-07-28"


@pytest.fixture(params=["stdio", "http"])
def transport(request) -> str:
    return request.param


@pytest.fixture
def managers():
    made: list[McpManager] = []

    def make(*servers: McpServerSettings, **kwargs) -> McpManager:
        manager = McpManager(list(servers), **kwargs)
        made.append(manager)
        manager.start()
        manager.wait_ready(90)
        for state in manager.states():
            assert state.state == READY, state.line()
        return manager

    yield make
    for manager in made:
        manager.close()


@pytest.fixture
def asking(transport) -> Iterator[McpServerSettings]:
    if transport == "stdio":
        yield sdk_stdio("asking", "asking")
    else:
        with sdk_http("asking", "asking") as server:
            yield server


@pytest.fixture
def everything(transport) -> Iterator[McpServerSettings]:
    if transport == "stdio":
        yield McpServerSettings(name="everything", command=everything_command(), args=["stdio"])
    else:
        with everything_http() as url:
            yield McpServerSettings(name="everything", url=url)


def _text(result) -> str:
    return "\n".join(getattr(item, "text", "") for item in result.content)


def _fill(values: dict):
    """An asker that fills the form: each field's default, then ``values``; records the questions."""
    asked: list[Question] = []

    def asker(question: Question) -> None:
        asked.append(question)
        if question.mode == URL:
            question.answer(ACCEPT)
            return
        content = {f.name: f.default for f in question.fields}
        content.update(values)
        question.answer(ACCEPT, content)

    return asker, asked


def test_each_server_is_used_in_the_version_it_speaks(managers, asking, everything):
    manager = managers(asking, everything)
    protocols = {s.name: s.protocol for s in manager.states()}
    assert protocols == {"asking": NEW, "everything": OLD}
    assert "asking__book_table" in {t.name for t in manager.tools()}
    assert _text(manager.call("everything", "echo", {"message": "hi"})) == "Echo: hi"


def test_the_client_offers_questions_and_not_the_deprecated_parts(managers, asking):
    """Elicitation (form and URL) is declared; roots, sampling and logging (deprecated in 2026-07-28) are not."""
    manager = managers(asking)
    assert _text(manager.call("asking", "capabilities", {})) == "elicitation; elicitation: form, url"


def test_a_new_version_question_is_answered_through_the_form(managers, asking):
    manager = managers(asking)
    asker, asked = _fill({"name": "Ada", "party": 4, "seating": "terrace"})
    result = manager.call("asking", "book_table", {"restaurant": "Luigi"}, route=CallRoute(asker, "call-1"))
    assert _text(result) == "booked Luigi for Ada, 4 people, terrace"
    [question] = asked
    assert (question.server, question.tool, question.call_id) == ("asking", "book_table", "call-1")
    fields = {f.name: f for f in question.fields}
    assert fields["name"].required and not fields["party"].required
    assert (fields["party"].kind, fields["party"].default, fields["party"].minimum, fields["party"].maximum) == \
        (INTEGER, 2, 1, 12)
    assert fields["seating"].kind == ENUM and [c.value for c in fields["seating"].choices] == \
        ["inside", "terrace", "bar"]
    assert fields["birthday"].kind == BOOLEAN


def test_an_old_version_question_is_answered_through_the_form(managers, everything):
    manager = managers(everything)
    asker, asked = _fill({"name": "Ada Lovelace", "integer": 7})
    result = manager.call("everything", "trigger-elicitation-request", {}, route=CallRoute(asker))
    text = _text(result)
    assert "- Name: Ada Lovelace" in text and "- Favorite Integer: 7" in text
    assert asked[0].message == "Please provide inputs for the following fields:"


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_declined_or_cancelled_question_reaches_the_tool(managers, asking, action):
    manager = managers(asking)
    result = manager.call("asking", "book_table", {"restaurant": "Luigi"},
                          route=CallRoute(lambda q: q.answer(action)))
    assert _text(result) == ("the user declined to give the booking details" if action == "decline"
                             else "the user cancelled the booking")


def test_with_nobody_to_ask_the_question_is_declined(managers, asking, everything):
    manager = managers(asking, everything)
    assert _text(manager.call("asking", "book_table", {"restaurant": "Luigi"})) == \
        "the user declined to give the booking details"
    assert "declined" in _text(manager.call("everything", "trigger-elicitation-request", {}))


def test_a_url_question_names_the_site_and_the_answer_reaches_the_server(managers, asking, everything):
    manager = managers(asking, everything)
    asker, asked = _fill({})
    assert _text(manager.call("asking", "open_page", {}, route=CallRoute(asker))) == "url question: accept"
    assert "User completed the URL elicitation flow" in _text(
        manager.call("everything", "trigger-url-elicitation", {"url": "https://example.org/step"},
                     route=CallRoute(asker)))
    assert [(q.mode, q.site) for q in asked] == [(URL, "example.com"), (URL, "example.org")]
    declined = manager.call("asking", "open_page", {}, route=CallRoute(lambda q: q.answer("decline")))
    assert _text(declined) == "url question: decline"


def test_stop_while_the_form_waits_cancels_the_question(managers, asking):
    manager = managers(asking)
    stop = threading.Event()
    shown: list[Question] = []

    def asker(question: Question) -> None:
        shown.append(question)
        stop.set()  # the user presses Stop instead of answering

    from desktop_agent.core.mcp.manager import McpCallCancelled

    try:  # the call ends as cancelled, or the server heard the cancel first and says so
        said = _text(manager.call("asking", "book_table", {"restaurant": "Luigi"}, cancel=stop,
                                  route=CallRoute(asker, cancel=stop)))
    except McpCallCancelled:
        said = "the user cancelled the booking"
    assert said == "the user cancelled the booking"
    deadline = time.monotonic() + 10
    while not shown[0].answered.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert shown[0].action == CANCEL


def test_the_time_the_user_takes_does_not_count_against_the_call(managers, asking):
    manager = managers(asking, call_timeout_s=2)

    def slow_user(question: Question) -> None:
        def later() -> None:
            time.sleep(3.5)
            question.answer(ACCEPT, {"name": "Slow", "party": 2, "seating": "bar", "birthday": True})
        threading.Thread(target=later, daemon=True).start()

    result = manager.call("asking", "book_table", {"restaurant": "Luigi"}, route=CallRoute(slow_user))
    assert _text(result) == "booked Luigi for Slow, 2 people, bar, birthday"


def test_a_sensitive_answer_is_remembered_in_the_keyring_only_when_asked(managers, asking):
    keyring = DictKeyring()
    manager = managers(asking, secrets=SecretStore(keyring_backend=keyring))
    asked: list[Question] = []

    def answer(remember: bool):
        def asker(question: Question) -> None:
            asked.append(question)
            question.answer(ACCEPT, {"password": "hunter22"}, {"password"} if remember else set())
        return asker

    assert _text(manager.call("asking", "sign_in", {"account": "ada"}, route=CallRoute(answer(False)))) == \
        "signed in ada with a password of 8 characters"
    assert asked[0].fields[0].sensitive and asked[0].remembered == {}
    assert "hunter22" not in repr(keyring.data)
    manager.call("asking", "sign_in", {"account": "ada"}, route=CallRoute(answer(True)))
    assert "hunter22" in keyring.data.values()
    manager.call("asking", "sign_in", {"account": "ada"}, route=CallRoute(answer(False)))
    assert asked[2].remembered == {"password": "hunter22"}  # filled in next time


def test_a_cached_tool_list_is_listed_again_once_stale(managers, transport):
    """The 2026-07-28 server lets the list be cached 1.5 s (``ttlMs``) and adds a tool without telling: it is
    offered once the cached list is stale."""
    if transport == "stdio":
        manager = managers(sdk_stdio("asking", "asking", "--ttl", "1500"))
        run = _grow_and_wait(manager)
    else:
        with sdk_http("asking", "asking", "--ttl", "1500") as server:
            manager = managers(server)
            run = _grow_and_wait(manager)
    assert run


def _grow_and_wait(manager: McpManager) -> bool:
    assert "added" not in manager.states()[0].tools
    assert _text(manager.call("asking", "grow", {})) == "grown"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if "added" in manager.states()[0].tools:
            return "asking__added" in {t.name for t in manager.tools()}
        time.sleep(0.1)
    return False
