"""The permission engine (core/tools/permissions.py): policies, rules by subject, defaults, answers, the check
inside dispatch, and rules kept in the store across a restart."""

from __future__ import annotations

import os
import threading
import time

import pytest

from desktop_agent import tool
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store.rules import ToolRules
from desktop_agent.core.store.toolcalls import AuditedCall, ToolAudit
from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.permissions import (
    Answer,
    ChatPermissions,
    PermissionEngine,
    RuleBook,
    Scope,
    canonical_arguments,
    command_word,
    scopes_for,
    subject_of,
)
from desktop_agent.core.tools.registry import ToolRegistry


@tool(read_only=True)
def read_file(path: str) -> str:
    """Read a file."""
    return f"read {path}"


@tool(destructive=True)
def write_file(path: str, content: str = "") -> str:
    """Write a file."""
    return f"wrote {path}"


@tool(requires_approval=True)
def fetch(url: str) -> str:
    """Fetch a page."""
    return f"fetched {url}"


@tool(destructive=True)
def shell(command: str) -> str:
    """Run a command."""
    return f"ran {command}"


@tool
def plain(x: int = 1) -> int:
    """Just a tool."""
    return x


TOOLS = {f.__name__: Tool.from_function(f) for f in (read_file, write_file, fetch, shell, plain)}


def check(engine, name, args, chat=None):
    return engine.check(TOOLS[name], args, chat)


# ---- subjects -----------------------------------------------------------------------------------


def test_subjects_from_argument_names(tmp_path):
    assert subject_of({"path": str(tmp_path / "a" / ".." / "b.txt")}).value == str(tmp_path / "b.txt")
    assert subject_of({"url": "https://Example.COM:8443/x?q"}).value == "example.com"
    assert subject_of({"command": "git status --short"}).value == "git status"
    assert subject_of({"command": "ls -la /tmp"}).value == "ls"
    assert subject_of({"x": 1}) is None


def test_a_symlink_out_of_a_folder_is_not_under_it(tmp_path):
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    os.symlink(outside, inside / "link")
    engine = PermissionEngine()
    engine.rules.add("write_file", Scope("path", str(inside)), "allow")
    assert check(engine, "write_file", {"path": str(inside / "notes.txt")}).allowed
    assert not check(engine, "write_file", {"path": str(inside / "link" / "x.txt")}).allowed
    assert not check(engine, "write_file", {"path": str(inside / ".." / "outside" / "x.txt")}).allowed


@pytest.mark.parametrize("line", ["git status; rm -rf ~", "git log | sh", "git $(rm x)", "git `x`", "git > f",
                                  "git a && rm b", "git\nrm"])
def test_chained_commands_have_no_subject(line):
    assert command_word(line) is None
    engine = PermissionEngine()
    engine.rules.add("shell", Scope("command", "git status"), "allow")
    assert not check(engine, "shell", {"command": line}).allowed
    assert check(engine, "shell", {"command": "git status"}).allowed


# Behaviour changed on purpose (session 4): a command rule is for a program's sub-command (``git status``), not
# the whole program — "allow git" allowed ``git config core.pager 'rm -rf ~'`` and ``git -c alias.x='!cmd' x``.
@pytest.mark.parametrize("line", [
    "git -c alias.x='!rm -rf ~' x", "git -c core.pager='sh -c evil' log", "git --config-env=core.pager=EVIL log",
    "git ls-remote --upload-pack='touch /tmp/p' .", "git -C /elsewhere status", "sudo git status",
    "/usr/bin/sudo rm -rf /", "bash -c 'git status'", "env GIT_PAGER=evil git log", "xargs rm", "python3 -c 'x'",
    "find . -exec rm {} +", "find . -delete", "tar -xf a.tar --to-command='sh evil'", "tar -Ievil -cf a.tar .",
    "rsync -avze 'sh -c evil' a b:c", "rsync --rsh=evil a b:c", "GIT_PAGER=evil git log", "fd -x rm",
])
def test_a_command_that_runs_another_program_has_no_subject(line):
    assert command_word(line) is None
    engine = PermissionEngine()
    for value in ("git", "git x", "git log", "git status", "git ls-remote", "sudo", "bash", "env", "xargs",
                  "python3", "find", "tar", "rsync", "fd"):
        engine.rules.add("shell", Scope("command", value), "allow")
    assert not check(engine, "shell", {"command": line}).allowed


def test_a_command_rule_is_for_a_program_or_its_sub_command():
    assert command_word("git status --short") == "git status"
    assert command_word("git") == "git"
    assert command_word("npm test") == "npm test"
    assert command_word("find . -name '*.py'") == "find"
    assert command_word("tar -tf a.tar") == "tar"
    assert command_word("rsync -avz a b") == "rsync"
    engine = PermissionEngine()
    engine.rules.add("shell", Scope("command", "git status"), "allow")
    assert check(engine, "shell", {"command": "git status -s"}).allowed
    assert not check(engine, "shell", {"command": "git config core.pager 'rm -rf ~'"}).allowed
    assert not check(engine, "shell", {"command": "git push --force"}).allowed


# ---- defaults and rules -------------------------------------------------------------------------


def test_defaults_allow_read_only_and_plain_ask_approval_and_destructive():
    engine = PermissionEngine()
    for name, args in (("read_file", {"path": "/x"}), ("plain", {})):
        d = check(engine, name, args)
        assert d.allowed and d.by == "default"
    for name, args in (("fetch", {"url": "http://a"}), ("write_file", {"path": "/x"}), ("shell", {"command": "ls"})):
        d = check(engine, name, args)  # ask, and no one to ask: denied
        assert not d.allowed and d.by == "default" and "no one could be asked" in d.reason


def test_deny_rule_wins_and_most_specific_rule_decides():
    engine = PermissionEngine()
    engine.rules.add("plain", Scope("tool"), "deny")
    engine.rules.add("plain", Scope("args", canonical_arguments({"x": 2})), "allow")
    d = check(engine, "plain", {"x": 2})
    assert not d.allowed and d.by == "rule"  # deny wins
    engine2 = PermissionEngine()
    engine2.rules.add("fetch", Scope("tool"), "ask")
    rule = engine2.rules.add("fetch", Scope("host", "example.com"), "allow")
    d = check(engine2, "fetch", {"url": "https://example.com/a"})
    assert d.allowed and d.by == "rule" and d.rule_id == rule.id
    assert engine2.rules.get(rule.id).last_used_at is not None
    assert not check(engine2, "fetch", {"url": "https://other.org/"}).allowed  # the tool-wide ask rule


def test_ask_rule_makes_even_a_read_only_tool_ask():
    engine = PermissionEngine()
    engine.rules.add("read_file", Scope("tool"), "ask")
    assert not check(engine, "read_file", {"path": "/x"}).allowed


def test_destructive_tool_ignores_a_tool_wide_allow_rule_but_not_an_exact_one(tmp_path):
    engine = PermissionEngine()
    engine.rules.add("write_file", Scope("tool"), "allow")
    assert not check(engine, "write_file", {"path": str(tmp_path / "a")}).allowed
    engine.rules.add("write_file", Scope("path", str(tmp_path)), "allow")
    assert check(engine, "write_file", {"path": str(tmp_path / "a")}).allowed


def test_allow_tool_flag_allows_for_the_run_and_is_not_saved(tmp_path):
    store = ConversationStore(tmp_path / "s.sqlite3")
    engine = PermissionEngine(RuleBook(ToolRules(store)))
    engine.allow_for_run(["shell"])
    d = check(engine, "shell", {"command": "rm -rf build"})
    assert d.allowed and d.by == "rule"
    assert ToolRules(store).all() == []
    assert [r.source for r in engine.rules.rules()] == ["flag"]
    store.close()


# ---- answers ------------------------------------------------------------------------------------


def test_answers_once_chat_always_deny():
    engine = PermissionEngine()
    answers = iter([Answer("once"), Answer("chat"), Answer("deny", reason="too risky"), Answer("always")])
    asked = []

    def asker(request):
        asked.append(request.arguments)
        return next(answers)

    chat = ChatPermissions("c", asker)
    once = check(engine, "fetch", {"url": "http://a.org/1"}, chat)
    assert once.allowed and once.by == "user"
    assert check(engine, "fetch", {"url": "http://a.org/2"}, chat).by == "user"  # asked again: "chat" now
    assert check(engine, "fetch", {"url": "http://b.org/"}, chat).allowed  # granted for this chat (any call)
    other_chat = ChatPermissions("other", asker)
    denied = check(engine, "fetch", {"url": "http://b.org/"}, other_chat)
    assert not denied.allowed and denied.reason == "too risky"
    always = check(engine, "fetch", {"url": "http://c.org/"}, other_chat)
    assert always.allowed and always.rule_id is not None
    assert check(engine, "fetch", {"url": "http://z.org/"}, ChatPermissions("third")).allowed  # rule, no asker
    assert len(asked) == 4


def test_destructive_always_is_narrowed_to_the_subject(tmp_path):
    engine = PermissionEngine()
    target = tmp_path / "notes.txt"
    chat = ChatPermissions("c", lambda r: Answer("always", Scope("tool")))
    assert check(engine, "write_file", {"path": str(target)}, chat).allowed
    (rule,) = engine.rules.rules()
    assert rule.scope == Scope("path", str(tmp_path))
    assert not check(engine, "write_file", {"path": "/etc/passwd"}, ChatPermissions("d")).allowed


def test_stop_while_waiting_denies_and_a_rule_saved_meanwhile_decides_a_waiting_call():
    engine = PermissionEngine()
    cancel = threading.Event()
    shown = []
    chat = ChatPermissions("c", lambda r: shown.append(r))  # shows, answers later
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("d", engine.check(TOOLS["fetch"], {"url": "http://a"}, chat,
                                                                         cancel)))
    t.start()
    while not shown:
        time.sleep(0.01)
    cancel.set()
    t.join(5)
    assert not out["d"].allowed and shown[0].result is out["d"]
    # two calls waiting; "always" on the first applies to the second at once
    shown.clear()
    results = []
    threads = [threading.Thread(target=lambda u=u: results.append(engine.check(TOOLS["fetch"], {"url": u}, chat)))
               for u in ("http://a/1", "http://a/2")]
    for th in threads:
        th.start()
    while len(shown) < 2:
        time.sleep(0.01)
    shown[0].answer(Answer("always"))
    for th in threads:
        th.join(5)
    assert [d.allowed for d in results] == [True, True]
    assert {d.by for d in results} == {"user", "rule"}
    assert shown[1].answered and shown[1].allowed


# ---- in dispatch ------------------------------------------------------------------------------------


def test_no_surface_runs_an_ask_tool_without_a_decision():
    """Dispatch with no asker (a registry with no engine given, a chat without a surface) denies, and the
    function never runs."""
    ran = []

    @tool(requires_approval=True)
    def launch(target: str) -> str:
        """Launch."""
        ran.append(target)
        return "launched"

    reg = ToolRegistry()
    reg.register(launch)
    for chat in (None, ChatPermissions("c")):
        result = reg.dispatch("launch", {"target": "moon"}, chat=chat)
        assert result.status == "denied" and result.decision is not None and not result.decision.allowed
        assert "not run" in result.content
    assert ran == []


def test_a_call_s_duration_is_its_run_not_the_wait_for_the_user(monkeypatch):
    """The sidebar showed 8.4 s for a 0.05 s command: the time the user took to answer counted. The clock here
    moves only while the user "thinks" (100 s), so the call's duration must be about nothing."""
    from desktop_agent.core.tools import dispatch as dispatch_module

    now = [1000.0]
    monkeypatch.setattr(dispatch_module.time, "monotonic", lambda: now[0])

    @tool(requires_approval=True, inline=True)
    def launch(target: str) -> str:
        """Launch."""
        return "launched"

    def user_thinks(_request):
        now[0] += 100.0
        return Answer("once")

    reg = ToolRegistry()
    reg.register(launch)
    result = reg.dispatch("launch", {"target": "moon"}, chat=ChatPermissions("c", user_thinks))
    assert result.status == "ok"
    assert result.duration_ms is not None and result.duration_ms < 1000  # was 100,000 ms: the wait


def test_a_denied_call_tells_the_model_why():
    reg = ToolRegistry()
    reg.register(fetch)
    chat = ChatPermissions("c", lambda r: Answer("deny", reason="no web"))
    result = reg.dispatch("fetch", {"url": "http://x"}, chat=chat)
    assert result.status == "denied" and "denied" in result.content and "no web" in result.content


# ---- the store --------------------------------------------------------------------------------------


def test_always_survives_a_restart_and_can_be_revoked(tmp_path):
    path = tmp_path / "s.sqlite3"
    store = ConversationStore(path)
    engine = PermissionEngine(RuleBook(ToolRules(store)))
    check(engine, "fetch", {"url": "https://example.com"}, ChatPermissions("c", lambda r: Answer("always")))
    store.close()
    store = ConversationStore(path)
    engine = PermissionEngine(RuleBook(ToolRules(store)))
    (rule,) = engine.rules.rules()
    assert (rule.tool, rule.scope.kind, rule.policy, rule.source) == ("fetch", "tool", "allow", "user")
    d = check(engine, "fetch", {"url": "https://x.org"})
    assert d.allowed and d.by == "rule"
    assert ToolRules(store).all()[0].last_used_at is not None
    engine.rules.set_policy(rule.id, "deny")
    assert ToolRules(store).all()[0].policy == "deny"
    engine.rules.remove(rule.id)
    store.close()
    store = ConversationStore(path)
    assert ToolRules(store).all() == []
    store.close()


def test_audit_rows_follow_the_chat(tmp_path):
    store = ConversationStore(tmp_path / "s.sqlite3")
    conv = Conversation()
    store.add_message(conv, Message(role="user", content="hi"))
    audit = ToolAudit(store)
    audit.record(conv.id, AuditedCall("c1", "fetch", {"url": "http://a"}, "deny", "user", None, "no", "denied",
                                      1.5, time.time()))
    (row,) = audit.calls(conv.id)
    assert row.tool == "fetch" and row.arguments == {"url": "http://a"} and row.decision_text() == "denied by user: no"
    store.delete(conv.id)
    assert audit.calls(conv.id) == []
    store.close()


# ---- what the user is shown -------------------------------------------------------------------------


def test_preview_command_diff_and_json(tmp_path):
    from desktop_agent.core.tools.preview import preview_call

    assert preview_call({"command": "ls -la", "timeout": 3}).text == "ls -la"
    f = tmp_path / "notes.txt"
    f.write_text("one\ntwo\n", encoding="utf-8")
    p = preview_call({"path": str(f), "content": "one\nthree\n"})
    assert p.kind == "diff" and "-two\n" in p.text and "+three\n" in p.text and "changes to" in p.note
    new = preview_call({"path": str(tmp_path / "new.txt"), "content": "hello"})
    assert new.kind == "diff" and "+hello" in new.text and new.note.startswith("new file")
    assert preview_call({"old": "a\n", "new": "b\n"}).kind == "diff"
    j = preview_call({"city": "Zürich"})
    assert j.kind == "json" and '"Zürich"' in j.text


def test_a_sibling_folder_with_a_longer_name_is_not_under_the_folder(tmp_path):
    engine = PermissionEngine()
    engine.rules.add("write_file", Scope("path", str(tmp_path / "notes")), "allow")
    assert check(engine, "write_file", {"path": str(tmp_path / "notes" / "a.txt")}).allowed
    assert not check(engine, "write_file", {"path": str(tmp_path / "notes-private" / "a.txt")}).allowed


# ---- what a breaker found: a folder rule vouched for another file -----------------------------------


def test_a_relative_or_padded_path_is_not_vouched_for_by_a_folder_rule(tmp_path, monkeypatch):
    """A folder rule for A allowed ``rel.txt`` (resolved against the app's working directory, A) and
    `` /…/B/x`` (a leading space) — while the file tool wrote both into B. A relative path has no subject now
    (the tool resolves it, not the engine), and a padded one is the path it names."""
    a, b = tmp_path / "A", tmp_path / "B"
    a.mkdir(), b.mkdir()
    monkeypatch.chdir(a)
    engine = PermissionEngine()
    engine.rules.add("write_file", Scope("path", str(a)), "allow")
    assert not check(engine, "write_file", {"path": "rel.txt"}).allowed
    assert not check(engine, "write_file", {"path": f" {b}/space.txt"}).allowed
    assert check(engine, "write_file", {"path": f" {a}/space.txt "}).allowed


def test_every_path_argument_must_be_under_the_folder():
    assert subject_of({"path": "/a/x", "folder": "/b"}) is None
    assert subject_of({"path": "/a/x", "folder": "/a/x"}).value == "/a/x"


def test_an_argument_the_tool_does_not_take_cannot_vouch_for_the_call(tmp_path):
    """The shell tool runs in ``folder``; an extra ``path`` under the allowed folder made the call look allowed."""
    from desktop_agent.core.tools.dispatch import dispatch_call

    a, b = tmp_path / "A", tmp_path / "B"
    a.mkdir(), b.mkdir()
    ran = []

    @tool(destructive=True)
    def run_in(command: str, folder: str) -> str:
        """Run a command in a folder."""
        ran.append((command, folder))
        return "ran"

    t = Tool.from_function(run_in)
    engine = PermissionEngine()
    engine.rules.add("run_in", Scope("path", str(a)), "allow")
    result = dispatch_call({"run_in": t}, "run_in", {"command": "touch x", "folder": str(b), "path": str(a)},
                           permissions=engine)
    assert result.status == "denied" and ran == []
    # Behaviour changed on purpose (session 5): the folder rule alone no longer vouches for the command run there
    inside = dispatch_call({"run_in": t}, "run_in", {"command": "touch x", "folder": str(a)}, permissions=engine)
    assert inside.status == "denied" and ran == []
    exact = {"command": "touch x", "folder": str(a)}
    engine.rules.add("run_in", Scope("args", canonical_arguments(exact)), "allow")
    ok = dispatch_call({"run_in": t}, "run_in", exact, permissions=engine)
    assert ok.status == "ok" and ran == [("touch x", str(a))]


def test_the_preview_shows_the_file_the_tool_will_write(tmp_path, monkeypatch):
    from desktop_agent.core.tools.preview import preview_call

    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "rel.txt").write_text("REL\n", encoding="utf-8")
    monkeypatch.setenv("DESKTOP_AGENT_ALLOWED_FOLDERS", str(allowed))
    monkeypatch.chdir(tmp_path)
    preview = preview_call({"path": "rel.txt", "content": "CLOBBERED\n"})
    assert str(allowed / "rel.txt") in preview.note and "-REL" in preview.text


def test_the_terminal_prompt_shows_control_characters_as_escapes():
    from desktop_agent.cli.output import visible

    assert visible("touch x #\x1b[2K\x1b[1G    $ echo hello") == "touch x #\\x1b[2K\\x1b[1G    $ echo hello"
    assert visible("a\rb\nc\td") == "a\\rb\nc\td"


# ---- bypasses found by the breaker (session 5) ----------------------------------------------------


# Behaviour changed on purpose (session 5): a call with a command and a folder has the command as its subject, so a
# folder rule no longer allows any command run in that folder (``rm -rf ~`` run in an allowed folder acts outside
# it) — the shipped run_shell_command's first suggested "always" was that folder.
def test_a_folder_rule_does_not_allow_every_command_run_in_the_folder(tmp_path):
    import importlib.util

    from desktop_agent.core.tools.dispatch import dispatch_call

    spec = importlib.util.spec_from_file_location("shipped_shell", "tools/shell.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shell_tool = Tool.from_function(module.run_shell_command)
    marker = tmp_path / "ran"
    arguments = {"command": f"touch {marker}", "folder": str(tmp_path)}
    assert scopes_for(shell_tool, arguments)[0] == Scope("command", "touch")
    engine = PermissionEngine()
    engine.rules.add("run_shell_command", Scope("path", str(tmp_path)), "allow")
    result = dispatch_call({"run_shell_command": shell_tool}, "run_shell_command", arguments, permissions=engine)
    assert result.status == "denied" and not marker.exists()
    assert subject_of({"command": "git status", "folder": "."}).value == "git status"
    assert subject_of({"command": "rm -rf ~", "directory": "/home/me/project"}).value == "rm"


@pytest.mark.parametrize("arguments", [
    {"command": "ls", "folder": "/home/me/project", "url": "https://evil.example/x"},
    {"url": "https://evil.example/payload", "path": "/home/me/notes/x.txt"},
    {"command": "ls", "cmd": "rm -rf ~"},
    {"url": "https://ok.example/", "link": "https://evil.example/"},
    {"url": "https://ok.example/", "path": "relative.txt"},
])
def test_a_call_with_subjects_of_more_than_one_kind_has_none(arguments):
    assert subject_of(arguments) is None
    engine = PermissionEngine()
    for scope in (Scope("path", "/home/me"), Scope("command", "ls"), Scope("host", "ok.example"),
                  Scope("host", "evil.example")):
        engine.rules.add("shell", scope, "allow")
    assert not check(engine, "shell", arguments).allowed


@pytest.mark.parametrize("arguments", [
    {"command": "find", "args": [".", "-exec", "rm", "{}", "+"]},
    {"command": "git", "args": ["-c", "alias.x=!rm -rf ~", "x"]},
    {"command": "git", "arguments": ["status;", "rm", "x"]},
    {"command": "ls", "argv": "; rm -rf ~"},
    {"command": ["rm", "-rf", "~"]},
])
def test_a_commands_separate_argument_list_is_judged_with_it(arguments):
    """MCP shell servers take ``{"command": ..., "args": [...]}``: the list cannot smuggle in what the line may not."""
    assert subject_of(arguments) is None
    engine = PermissionEngine()
    for value in ("find", "git", "git status", "git x", "ls"):
        engine.rules.add("shell", Scope("command", value), "allow")
    assert not check(engine, "shell", arguments).allowed
    assert subject_of({"command": "git", "args": ["status", "-s"]}).value == "git status"


@pytest.mark.parametrize("line", [
    "python3.11 -c 'import os'", "perl5.36 -e 'system(1)'", "pypy3 x.py", "/usr/bin/python3.12 x.py",
    "PYTHON.EXE x.py", r"C:\\Python311\\python.exe x.py", "flock /tmp/l rm -rf ~", "taskset 1 rm -rf ~",
    "rg --pre ./evil x", "sort --compress-program=./evil big", "man -P 'rm -rf ~' ls", "scp -S ./evil a b:",
    "scp -oProxyCommand=evil a b:", "apt-get update -o APT::Update::Pre-Invoke::=evil",
    "git rebase -x 'rm -rf ~' main", "git rebase --exec='rm -rf ~' main", "git difftool -x evil",
    "git grep -O'rm -rf ~' x", "git grep --open-files-in-pager=evil x", "git log --output=/home/me/.bashrc",
    "git.exe -c alias.x=!evil x", "nodejs -e 1", "bwrap --bind / / rm -rf ~", "vim -c '!rm -rf ~'",
])
def test_more_programs_and_options_that_run_another_program_have_no_subject(line):
    assert command_word(line) is None
    engine = PermissionEngine()
    for value in ("python3.11", "perl5.36", "pypy3", "flock", "taskset", "rg", "sort", "man", "scp", "apt-get update",
                  "git rebase", "git difftool", "git grep", "git log", "nodejs", "bwrap", "vim"):
        engine.rules.add("shell", Scope("command", value), "allow")
    assert not check(engine, "shell", {"command": line}).allowed


def test_plain_commands_still_have_their_word():
    assert command_word("ls -la") == "ls"
    assert command_word("rg -n foo") == "rg"
    assert command_word("git status -s") == "git status"
    assert command_word("sort -u names.txt") == "sort"
    assert subject_of({"command": "ls -la", "timeout_ms": 5000}).value == "ls"


# ---- the subject is read only when a rule or a grant is about the tool ----------------------------------------


def test_a_folder_deny_rule_still_denies_a_tool_allowed_by_default(tmp_path):
    engine = PermissionEngine()
    engine.rules.add("read_file", Scope("path", str(tmp_path)), "deny")
    assert not check(engine, "read_file", {"path": str(tmp_path / "secret.txt")}).allowed
    assert check(engine, "read_file", {"path": "/elsewhere/file.txt"}).allowed


def test_a_chat_grant_for_a_host_still_allows_without_any_rule():
    engine = PermissionEngine()
    chat = ChatPermissions(chat_id="c")
    assert not check(engine, "fetch", {"url": "https://example.com/a"}, chat).allowed  # no one to ask
    chat.grant("fetch", Scope("host", "example.com"))
    decision = check(engine, "fetch", {"url": "https://example.com/b"}, chat)
    assert decision.allowed and decision.reason == "for this chat"
    assert not check(engine, "fetch", {"url": "https://other.org/"}, chat).allowed


def test_no_subject_is_read_when_no_rule_or_grant_is_about_the_tool(monkeypatch):
    from desktop_agent.core.tools import permissions

    def unread(arguments):
        raise AssertionError("the subject was read")

    engine = PermissionEngine()
    engine.rules.add("fetch", Scope("host", "example.com"), "allow")  # about another tool
    monkeypatch.setattr(permissions, "subject_of", unread)
    assert check(engine, "plain", {"x": 2}, ChatPermissions(chat_id="c")).allowed
