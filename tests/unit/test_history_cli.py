"""`desktop-agent history …` through a small argparse harness, in process, on the store in the temp data dir."""

from __future__ import annotations

import argparse
import io
import json
import sys

import pytest

from desktop_agent.cli.history import run_history
from desktop_agent.cli.parser import add_history_parser
from desktop_agent.core import paths
from desktop_agent.core.messages import Conversation, Message, ToolCall
from desktop_agent.core.store import ConversationStore


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="desktop-agent")
    sub = parser.add_subparsers(dest="command")
    add_history_parser(sub)
    try:
        args = parser.parse_args(["history", *argv])
        code = run_history(args)
    except SystemExit as exc:  # argparse: bad usage
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def make_chat(store: ConversationStore, conv_id: str, texts: list[str], model: str = "llama3.2") -> Conversation:
    conv = Conversation(id=conv_id)
    for i, text in enumerate(texts):
        m = Message(role="user" if i % 2 == 0 else "assistant", content=text,
                    model=None if i % 2 == 0 else model, backend=None if i % 2 == 0 else "ollama")
        conv.messages.append(m)
        store.add_message(conv, m)
    return conv


@pytest.fixture
def chats():
    with ConversationStore(paths.store_file()) as store:
        a = make_chat(store, "aaaa1111" + "0" * 24, ["Weather in Paris?", "Sunny, 21 °C.", "And tomorrow?", "Rain."])
        b = make_chat(store, "bbbb2222" + "0" * 24, ["北京明天的天气怎么样？", "北京明天晴。"], model="qwen3")
        conv = Conversation(id="bbbb3333" + "0" * 24)
        call = ToolCall(id="call_1", name="get_time", arguments={"tz": "UTC"})
        for m in [Message(role="user", content="What time is it in C++ land?"),
                  Message(role="assistant", tool_calls=[call], model="gpt-4o-mini", backend="openai"),
                  Message(role="tool", content="12:00", tool_name="get_time", tool_call_id="call_1",
                          tool_status="ok", duration_ms=3.0)]:
            conv.messages.append(m)
            store.add_message(conv, m)
    return a, b, conv


def test_list_empty(capsys):
    assert run_cli(capsys, "list") == (0, "No saved chats.\n", "")


def test_list_shows_newest_first_with_short_id_model_count_and_title(capsys, chats):
    code, out, err = run_cli(capsys, "list")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "UPDATED", "MODEL", "MSGS", "TITLE"]
    assert lines[1].startswith("bbbb3333  ") and "gpt-4o-mini" in lines[1]
    assert lines[1].endswith("3  What time is it in C++ land?")
    assert lines[2].startswith("bbbb2222  ") and "qwen3" in lines[2] and lines[2].endswith("2  北京明天的天气怎么样？")
    assert lines[3].startswith("aaaa1111  ") and "llama3.2" in lines[3] and "Weather in Paris?" in lines[3]


def test_list_pages_and_json(capsys, chats):
    code, out, _ = run_cli(capsys, "list", "--limit", "2")
    assert code == 0 and "(2 of 3 chats; --offset 2 for more)" in out
    code, out, _ = run_cli(capsys, "list", "--limit", "2", "--offset", "2")
    assert code == 0 and "aaaa1111" in out and "bbbb" not in out
    code, out, _ = run_cli(capsys, "list", "--json")
    data = json.loads(out)
    assert [d["id"] for d in data] == [c.id for c in reversed(chats)]
    assert data[1]["title"] == "北京明天的天气怎么样？" and data[1]["message_count"] == 2


def test_search_prints_marked_snippets(capsys, chats):
    code, out, err = run_cli(capsys, "search", "tomorrow")
    assert code == 0 and err == ""
    assert out.splitlines()[0].startswith("aaaa1111  #3 ")
    assert "«tomorrow»" in out.splitlines()[1]
    code, out, _ = run_cli(capsys, "search", "天气")
    assert code == 0 and "«天气»" in out and "bbbb2222" in out
    code, out, _ = run_cli(capsys, "search", "C++", "land")
    assert code == 0 and "«C++»" in out
    code, out, _ = run_cli(capsys, "search", "get_time", "--json")
    hits = json.loads(out)
    assert [(h["conversation_id"][:8], h["role"]) for h in hits] == [("bbbb3333", "assistant")]


def test_search_finds_chat_titles(capsys, chats):
    a = chats[0]
    with ConversationStore(paths.store_file()) as store:
        store.rename(a.id, "Trip notes: Provence")
    code, out, err = run_cli(capsys, "search", "provence")
    assert code == 0 and err == ""
    head, snippet = out.splitlines()
    assert head.startswith(f"aaaa1111  #{a.messages[0].id} ") and " title " in head
    assert head.endswith("Trip notes: Provence")
    assert snippet.strip() == "Trip notes: «Provence»"
    code, out, _ = run_cli(capsys, "search", "provence", "--json")
    assert [(h["conversation_id"], h["message_id"], h["role"]) for h in json.loads(out)] == [
        (a.id, a.messages[0].id, "title")]


@pytest.mark.parametrize("query", ['"', "AND NOT", "NEAR(", "*", "nothing-like-this"])
def test_search_odd_input_is_fine(capsys, chats, query):
    code, out, err = run_cli(capsys, "search", query)
    assert code == 0 and err == ""
    assert out.startswith("No message contains")


def test_show_by_unique_prefix_prints_markdown(capsys, chats):
    code, out, err = run_cli(capsys, "show", "bbbb33")
    assert code == 0 and err == ""
    assert out.startswith("# What time is it in C++ land?")
    assert "<details><summary>Tool call: get_time</summary>" in out
    assert "<details><summary>Tool result: get_time (ok, 3 ms)</summary>" in out


def test_ambiguous_or_unknown_id_fails_with_one_line(capsys, chats):
    code, out, err = run_cli(capsys, "show", "bbbb")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("desktop-agent: ") and "matches 2 chats" in err
    code, out, err = run_cli(capsys, "export", "zzz", "--format", "json")
    assert code == 1 and err.count("\n") == 1 and "No saved chat with id 'zzz'" in err


def test_export_to_stdout_and_to_a_file_then_import_it(capsys, chats, tmp_path):
    code, out, _ = run_cli(capsys, "export", "aaaa", "--format", "md")
    assert code == 0 and out.startswith("# Weather in Paris?") and "Rain." in out
    target = tmp_path / "chat.json"
    target.write_text("old content", encoding="utf-8")
    code, out, err = run_cli(capsys, "export", "bbbb2222", "--format", "json", "-o", str(target))
    assert code == 0 and out == "" and f"to {target}" in err
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["format"] == "desktop-agent.conversation" and data["messages"][0]["content"] == "北京明天的天气怎么样？"
    code, out, err = run_cli(capsys, "import", str(target))  # the chat is here: nothing new in its export
    assert code == 0 and "1 chat, 2 messages from Desktop Agent" in out and "Nothing new" in out
    code, out, _ = run_cli(capsys, "list", "--json")
    assert len(json.loads(out)) == 3


def test_export_into_a_missing_folder_fails_cleanly(capsys, chats, tmp_path):
    code, _out, err = run_cli(capsys, "export", "aaaa", "-o", str(tmp_path / "no" / "such" / "dir" / "x.md"))
    assert code == 1 and err.startswith("desktop-agent: ") and err.count("\n") == 1


def test_import_seed_file(capsys, tmp_path):
    f = tmp_path / "chat_gpt4omini_20240501093015.json"
    f.write_text(json.dumps([{"human": "What day is it?", "ai": "Wednesday."}], indent=4), encoding="utf-8")
    code, out, err = run_cli(capsys, "import", str(f))
    assert code == 0 and err == "" and "Imported 1 new chat (2 messages added). Chat " in out
    assert out.rstrip().endswith(": What day is it?")
    code, out, _ = run_cli(capsys, "list")
    assert "gpt4omini" in out and "2024-05-01 09:30" in out


@pytest.mark.parametrize("content,reason", [("", "the file is empty"), ('[{"human": "hi", "ai": "He', "truncated")])
def test_import_empty_or_truncated_file_exits_1_and_imports_nothing(capsys, tmp_path, content, reason):
    """shared case 36-storage-empty-or-truncated-chat-file.json (terminal side): clear one-line error, exit 1,
    nothing imported, the file left as it was."""
    f = tmp_path / "chat_llama3_20240501093015.json"
    f.write_text(content, encoding="utf-8")
    code, out, err = run_cli(capsys, "import", str(f))
    assert code == 1 and out == ""
    assert err.startswith("desktop-agent: Can't import") and reason in err and err.count("\n") == 1
    assert f.read_text(encoding="utf-8") == content
    assert run_cli(capsys, "list") == (0, "No saved chats.\n", "")


@pytest.mark.parametrize("argv", [
    [], ["frobnicate"], ["list", "--limit", "0"], ["list", "--limit", "x"], ["list", "--offset", "-1"],
    ["search"], ["show"], ["export", "aaaa", "--format", "pdf"], ["export"], ["export", "aaaa", "--all"], ["import"],
])
def test_bad_usage_exits_2(capsys, argv):
    code, _out, err = run_cli(capsys, *argv)
    assert code == 2 and err


def test_damaged_store_is_reported_and_the_command_still_works(capsys):
    paths.store_file().write_text("not a database at all", encoding="utf-8")
    code, out, err = run_cli(capsys, "list")
    assert code == 0 and out == "No saved chats.\n"
    assert err.startswith("desktop-agent: warning: Your chat history file was damaged") and ".corrupt-" in err


def test_terminal_without_utf8_gets_replacement_characters(capsys, chats, monkeypatch):
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="ascii", errors="strict"))
    parser = argparse.ArgumentParser()
    add_history_parser(parser.add_subparsers(dest="command"))
    assert run_history(parser.parse_args(["history", "list"])) == 0
    sys.stdout.flush()
    assert "??????????" in raw.getvalue().decode("ascii")


# ---- export and import of other apps' files (issue 22) ---------------------------------------------


def test_export_all_as_html_and_several_as_json(capsys, chats, tmp_path):
    page = tmp_path / "all.html"
    code, out, err = run_cli(capsys, "export", "--all", "--format", "html", "-o", str(page))
    assert code == 0 and out == "" and err == f"Exported 3 chats to {page}\n"
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.count("<section") == 3 and "北京明天晴。" in html
    code, out, err = run_cli(capsys, "export", "aaaa", "bbbb2222", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["format"] == "desktop-agent.chats" and len(data["chats"]) == 2


def test_import_a_chatgpt_export_then_again_then_a_malformed_one(capsys, tmp_path):
    from tests.helpers.chat_exports import chatgpt_export

    convs = chatgpt_export(12, seed=9)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(convs), encoding="utf-8")
    code, out, err = run_cli(capsys, "import", str(path), "--dry-run")
    assert code == 0 and err == "" and f"{path}: 12 chats, " in out and " messages from ChatGPT." in out
    assert "Would add 12 new chats" in out
    assert run_cli(capsys, "list")[1] == "No saved chats.\n"
    code, out, err = run_cli(capsys, "import", str(path))
    assert code == 0 and "Imported 12 new chats (" in out
    code, out, err = run_cli(capsys, "import", str(path))
    assert code == 0 and out.endswith("Nothing new: every chat and message of it is already in your history.\n")
    convs[2]["mapping"] = "broken"
    path.write_text(json.dumps(convs), encoding="utf-8")
    code, out, err = run_cli(capsys, "import", str(path))
    title = convs[2]["title"]
    assert code == 1 and out == "" and err.count("\n") == 1
    assert f"conversation 3 ('{title}'): it has no message tree" in err and "Nothing was imported" in err


def test_chats_with_times_no_date_can_show_list_show_and_export(capsys, tmp_path):
    """A chat imported with a nonsense time (1e20) made list, show and export --all fail: the import now takes a
    plausible time, and one already saved (an older import, a damaged database) shows as '?'."""
    from tests.helpers.chat_exports import chatgpt_export

    convs = chatgpt_export(1, seed=3)
    convs[0]["create_time"] = convs[0]["update_time"] = 1e20
    for node in convs[0]["mapping"].values():
        if node.get("message"):
            node["message"]["create_time"] = 1.7e18  # nanoseconds
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(convs), encoding="utf-8")
    assert run_cli(capsys, "import", str(path))[0] == 0
    with ConversationStore(paths.store_file()) as store:
        conv = Conversation(id="cccc4444" + "0" * 24, created_at=1e20, updated_at=1e20)
        m = Message(role="user", content="Saved with an odd time", created_at=1e20)
        conv.messages.append(m)
        store.add_message(conv, m)
        with store.write() as db:
            db.execute("UPDATE conversations SET updated_at = 1e20 WHERE id = ?", (conv.id,))
    code, out, err = run_cli(capsys, "list")
    assert code == 0 and err == "" and "2023-11-14" in out and "cccc4444" in out and "?" in out
    code, out, err = run_cli(capsys, "show", "cccc4444")
    assert code == 0 and "Saved with an odd time" in out
    code, out, err = run_cli(capsys, "export", "--all", "-o", str(tmp_path / "all.md"))
    assert code == 0 and err.startswith("Exported 2 chats")


def test_counts_of_one_are_singular(capsys, tmp_path):
    """"Exported 1 chats" (export --all with one chat saved) and "1 chats imported before get new messages"."""
    from tests.helpers.chat_exports import chatgpt_export, continue_chatgpt

    with ConversationStore(paths.store_file()) as store:
        make_chat(store, "aaaa1111" + "0" * 24, ["Weather in Paris?", "Sunny, 21 °C."])
    out_file = tmp_path / "all.md"
    code, out, err = run_cli(capsys, "export", "--all", "-o", str(out_file))
    assert code == 0 and err == f"Exported 1 chat to {out_file}\n"
    code, out, err = run_cli(capsys, "export", "aaaa", "aaaa1111", "-o", str(out_file))
    assert code == 0 and err == f"Exported chat aaaa1111 to {out_file}\n"
    convs = chatgpt_export(2, seed=4)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(convs[:1]), encoding="utf-8")
    assert run_cli(capsys, "import", str(path))[0] == 0
    continue_chatgpt(convs[0], "And tomorrow?", "Rain.")
    path.write_text(json.dumps(convs), encoding="utf-8")
    code, out, err = run_cli(capsys, "import", str(path), "--dry-run")
    assert code == 0 and "Would add 1 new chat and " in out and "(1 chat imported before gets new messages)" in out
    assert " 1 chats" not in out
