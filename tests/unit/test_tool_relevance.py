"""Many tools, small models (issue 13): above ``tools.max_offered`` a turn offers the tools most relevant to the
conversation (BM25 over names, descriptions and parameters, offline) plus ``find_tools``; calling it offers what
it finds from the next step; the user's explicit choice — a named ``tool_choice``, a chat's own tool selection —
always wins."""

from __future__ import annotations

from collections import Counter

import pytest

from desktop_agent.core.agent import Agent
from desktop_agent.core.events import ToolCallFinished
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.session import ChatSession
from desktop_agent.core.settings import Settings
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.tools.relevance import FIND_TOOLS, ToolIndex, ToolOffer, relevant_tools, words
from tests.unit.scripted import ScriptedBackend, call, calls, text

#: (name, description) of a registry like one with a few MCP servers
CATALOGUE = [
    ("get_current_weather", "Get the current weather (temperature, wind, rain) for a city."),
    ("read_file", "Read a text file from disk and return its contents."),
    ("write_file", "Write text to a file on disk, replacing it."),
    ("list_directory", "List the files and folders in a directory."),
    ("search_files", "Search file names under a folder for a pattern."),
    ("git_status", "Show the working tree status of a git repository."),
    ("git_commit", "Record changes to a git repository with a commit message."),
    ("send_email", "Send an email message to a recipient."),
    ("calendarCreateEvent", "Create an event in the user's calendar at a date and time."),
    ("calendar_list_events", "List the events in the calendar between two dates."),
    ("convert_currency", "Convert an amount of money from one currency to another at today's rate."),
    ("translate_text", "Translate text into another language."),
    ("fetch_url", "Fetch a web page by URL and return its text."),
    ("run_sql_query", "Run a read-only SQL query against the database."),
    ("take_screenshot", "Take a screenshot of the screen."),
    ("timezone_now", "The current time in a time zone."),
    ("calculator", "Evaluate an arithmetic expression exactly."),
    ("day_of_week", "The day of the week of a date."),
]


def _tool(name: str, description: str):
    def fn(query: str = "") -> str:
        return f"{name} ran with {query!r}"

    fn.__name__ = name
    fn.__doc__ = description
    return fn


def registry_of(catalogue) -> ToolRegistry:
    reg = ToolRegistry()
    for name, description in catalogue:
        reg.register(_tool(name, description))
    return reg


@pytest.fixture
def registry() -> ToolRegistry:
    return registry_of(CATALOGUE)


def offered_names(schemas) -> list[str]:
    return [s["function"]["name"] for s in schemas]


def ask(text_: str) -> list[Message]:
    return [Message(role="user", content=text_)]


def test_words_split_names_and_stem():
    assert words("calendarCreateEvent") == ["calendar", "create", "event"]
    assert words("search_files in the Folders") == ["search", "file", "folder"]
    assert words("What's the weather in Paris?") == ["weather", *words("Paris")]  # stop words and "s" go
    assert words("searches cities") == words("search city")  # one stem for the index and the query


def test_bm25_ranks_the_tool_whose_words_match():
    index = ToolIndex(registry_of(CATALOGUE))
    scores = index.scores(Counter(words("what is the weather like in Lyon")))
    assert max(scores, key=scores.__getitem__) == "get_current_weather"
    scores = index.scores(Counter(words("commit my changes to git")))
    assert sorted(scores, key=lambda n: -scores[n])[:2] == ["git_commit", "git_status"]


def test_the_most_relevant_tools_and_find_tools_are_offered(registry):
    offer = ToolOffer(registry, 5, ask("Please read the file notes.txt and list the folder"))
    names = offered_names(offer.schemas())
    assert len(names) <= 5 and names[-1] == FIND_TOOLS
    assert {"read_file", "list_directory"} <= set(names)
    assert "send_email" not in names and "get_current_weather" not in names
    assert names[:-1] == [n for n in registry.names() if n in names]  # the registry's order: stable prompts


def test_find_tools_offers_what_it_finds_from_the_next_step(registry):
    offer = ToolOffer(registry, 4, ask("hello"))
    assert offered_names(offer.schemas()) == [FIND_TOOLS]  # nothing is relevant to "hello"
    result = offer.registry.dispatch(FIND_TOOLS, {"query": "currency exchange rate"})
    assert result.ok and "convert_currency" in result.content and "next step" in result.content
    assert "convert_currency" in offered_names(offer.schemas())
    miss = offer.find("xyzzy")
    assert miss["found"] == [] and "send_email" in miss["note"]


def test_the_named_tool_choice_and_recently_used_tools_are_always_offered(registry):
    history = [Message(role="user", content="weather?"),
               Message(role="assistant", content="", tool_calls=[call("get_current_weather", {}, "c1")]),
               Message(role="tool", content="sunny", tool_call_id="c1", tool_name="get_current_weather"),
               Message(role="assistant", content="Sunny."), Message(role="user", content="send an email to Ann")]
    offer = ToolOffer(registry, 4, history, pinned=["take_screenshot"])
    names = offered_names(offer.schemas())
    assert {"take_screenshot", "get_current_weather", "send_email", FIND_TOOLS} == set(names)


def test_the_agent_offers_few_tools_and_find_tools_makes_more_available(registry):
    backend = ScriptedBackend(
        calls(call(FIND_TOOLS, {"query": "translate into French"}, "c1")),
        calls(call("translate_text", {"query": "bonjour"}, "c2")),
        text("Bonjour."),
    )
    agent = Agent(backend, registry, max_offered=4)
    events = list(agent.run(Conversation(), "hi there, how are you"))
    first, second, third = (offered_names(r.tools) for r in backend.requests)
    assert FIND_TOOLS in first and "translate_text" not in first and len(first) <= 4
    assert "translate_text" in second and FIND_TOOLS in second
    assert "translate_text" in third
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.name, e.ok) for e in finished] == [(FIND_TOOLS, True), ("translate_text", True)]


def test_few_tools_are_all_offered_and_zero_means_all(registry):
    small = registry.subset(["calculator", "day_of_week"])
    backend = ScriptedBackend(text("ok"), text("ok"))
    list(Agent(backend, small, max_offered=4).run(Conversation(), "hi"))
    list(Agent(backend, registry, max_offered=None).run(Conversation(), "hi"))
    assert offered_names(backend.requests[0].tools) == ["calculator", "day_of_week"]
    assert len(backend.requests[1].tools) == len(CATALOGUE)


def test_a_named_tool_choice_wins(registry):
    backend = ScriptedBackend(text("ok"))
    list(Agent(backend, registry, max_offered=3, tool_choice="run_sql_query").run(Conversation(), "hello"))
    request = backend.requests[0]
    assert "run_sql_query" in offered_names(request.tools) and request.tool_choice == "run_sql_query"


def test_a_chats_own_tool_selection_is_offered_whole():
    settings = Settings()
    chosen = ChatSession(Conversation(options={"tools.disabled": ["say_hello"]}))
    assert chosen.effective(settings).tools.max_offered == 0
    assert ChatSession(Conversation()).effective(settings).tools.max_offered == 12


# ---- relevant_tools under odd input (issue 20, feat-break20) -------------------------------------------


def test_a_long_hyphenated_message_is_judged_at_once(registry):
    """A pasted 40 kB run of hyphen-joined words (a base64url blob, a kebab-case list) is judged in linear time:
    the file-name cue once took 40 s here, before any request and out of Stop's reach."""
    import time

    started = time.monotonic()
    relevant_tools(registry, ask("a-" * 20000))
    relevant_tools(registry, ask("see notes-" * 5000 + "final-notes.txt"))
    assert time.monotonic() - started < 3.0
    assert "read_file" in relevant_tools(registry, ask("read my-notes.txt")).names


def _mcp_registry() -> ToolRegistry:
    from types import SimpleNamespace

    from desktop_agent.core.mcp.tools import McpTool

    reg = ToolRegistry()
    for server, name, description in [
        ("filesystem", "read_file", "Read the complete contents of a file from the file system."),
        ("filesystem", "write_file", "Create a new file or completely overwrite an existing file with new content."),
        ("filesystem", "list_directory", "Get a detailed listing of all files and directories in a specified path."),
        ("git", "git_status", "Shows the working tree status of a repository."),
        ("git", "git_commit", "Records changes to the repository."),
    ]:  # (no annotations: none of them says it is read-only, as most servers' tools do not)
        info = SimpleNamespace(name=name, description=description, annotations=None,
                               input_schema={"type": "object", "properties": {"path": {"type": "string"}}})
        reg.register(McpTool(None, server, info, f"{server}__{name}"), source=f"MCP server {server}")  # type: ignore[arg-type]
    return reg


def test_an_mcp_tool_that_changes_something_fits_by_its_own_verb_not_its_servers_name():
    """``server__tool``: the verb a tool that changes something needs is its tool name's ("write"), not the server's
    ("filesystem", "git") — else every such tool of a server fits a message that names the server, and none fits
    one that says what to do."""
    reg = _mcp_registry()
    named_server = relevant_tools(reg, ask("read the file notes.txt from the filesystem")).names
    assert "filesystem__read_file" in named_server and "filesystem__write_file" not in named_server
    assert "filesystem__read_file" in relevant_tools(reg, ask("read the file notes.txt")).names
    assert "filesystem__write_file" in relevant_tools(reg, ask("write hello to the file notes.txt")).names
    status = relevant_tools(reg, ask("show the git status of the repository")).names
    assert "git__git_status" in status and "git__git_commit" not in status
    assert "git__git_commit" in relevant_tools(reg, ask("commit the changes to the git repository")).names


def test_an_empty_new_message_is_not_judged_by_the_one_before():
    """The newest user message decides, even when it is empty: an empty message after "use the calculator tool"
    is offered no tool and forces none (it was judged by that earlier message, and made to call its tool)."""
    history = [Message(role="user", content="use the calculator tool for 6*7"),
               Message(role="assistant", content="42"), Message(role="user", content="")]
    assert relevant_tools(registry_of(CATALOGUE), history).names == ()
    backend = ScriptedBackend(text("Did you mean to send something?"))
    list(Agent(backend, registry_of(CATALOGUE), relevant_only=True).run(Conversation(messages=history[:2]), ""))
    assert backend.requests[0].tools is None and backend.requests[0].tool_choice == "auto"
