"""The permission engine: whether a tool call may run — allow, ask or deny — decided inside dispatch, before the
tool's function runs, so no surface can skip it.

**Policies** come from rules and defaults:

- A :class:`Rule` is ``tool`` + a *scope* + a ``policy`` (allow / ask / deny) + its ``source`` (``user``: made from an
  approval or in Settings, saved in the store; ``flag``: ``--allow-tool NAME``, for one run; ``default``).
  Scopes: ``tool`` (every call of the tool), ``args`` (exactly these arguments), ``path`` (a path argument under
  a folder), ``command`` (a command's first word), ``host`` (a URL's host).
- The *subject* of a call is read from its arguments by name (:func:`subject_of`): the first of ``path``,
  ``file_path``, ``file``, ``filename``, ``folder``, ``directory``, ``dir`` is a path (made absolute, ``~`` and
  symlinks resolved, so ``..`` and links cannot leave a folder); ``command``, ``cmd``, ``command_line`` a command
  (its first word, with its sub-command for programs like git: ``git status``; a command with shell operators —
  ``;``, ``&&``, ``|``, ``$(``, backticks, redirections, newlines —, one starting with a program that runs others
  (``sudo``, ``bash``, ``xargs``…) or using an option that runs one (``git -c alias.x=!cmd``) has no subject, so
  "allow git status" never allows ``git status; rm -rf ~``); ``url``, ``uri``, ``link`` a URL (its host, lower
  case).
- Which rule applies: a matching ``deny`` rule always wins; else the most specific matching rule
  (``args`` > ``path``/``command``/``host`` > ``tool``). A *destructive* tool ignores tool-wide ``allow`` rules:
  it asks unless a rule for exactly that (tool and subject, or tool and arguments) allows it.
- With no rule: tools marked ``requires_approval`` or ``destructive`` ask; the rest (``read_only`` or not)
  are allowed.

**Asking**: an ``ask`` goes to the chat's :class:`ChatPermissions` ``asker`` with a :class:`PermissionRequest`.
The asker either answers at once (returns an :class:`Answer`) or shows the request and returns None; the engine
then waits for :meth:`PermissionRequest.answer` (any thread), Stop (a deny), or a rule saved meanwhile that now
decides the call ("always" given for an earlier call of the same turn applies at once to calls already
waiting). No asker: the call is denied. Answers: allow ``once``; allow for this ``chat`` (kept by the chat's
:class:`ChatPermissions`, i.e. its ChatSession); ``always`` (a user rule, saved at once); ``deny`` with an
optional reason the model is told. ``chat`` and ``always`` take the scope the user chose (:attr:`Answer.scope`).

Every outcome is a :class:`Decision`: allow/deny, who made it (``rule``, ``user``, ``default``), the rule id.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib.parse import urlsplit

from desktop_agent.core.tools.permission_words import decision_summary, scope_label
from desktop_agent.core.tools.rule_keys import rule_key, tool_label

if TYPE_CHECKING:
    from desktop_agent.core.tools.definition import Tool

log = logging.getLogger(__name__)

Policy = Literal["allow", "ask", "deny"]
POLICIES: tuple[str, ...] = ("allow", "ask", "deny")
#: scope kinds, and how specific each is (a higher number wins)
SPECIFICITY = {"tool": 1, "path": 2, "command": 2, "host": 2, "args": 3}
SCOPES: tuple[str, ...] = tuple(SPECIFICITY)

PATH_ARGUMENTS = ("path", "file_path", "file", "filename", "folder", "directory", "dir")
COMMAND_ARGUMENTS = ("command", "cmd", "command_line")
URL_ARGUMENTS = ("url", "uri", "link")
#: what makes a command line more than one command (or send its output somewhere)
SHELL_OPERATORS = (";", "&", "|", "`", "$(", ">", "<", "\n", "\r")


# ---- subjects and scopes ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    """What a call acts on: ``kind`` path / command / host, ``value`` (an absolute path, a command's first word,
    a host name), ``argument``: the argument it was read from."""

    kind: str
    value: str
    argument: str


def _resolve_path(text: str) -> str | None:
    """An absolute path argument resolved (``..``, symbolic links); None for a relative one — a tool resolves
    that against its own folder (the shipped file tools: the first allowed folder), not the app's working
    directory, so no folder rule can vouch for it."""
    given = os.path.expanduser(text.strip())
    return os.path.realpath(given) if os.path.isabs(given) else None


#: programs that run another program named in their arguments (``sudo rm …``, ``bash -c …``, ``xargs rm``): a
#: rule for their name would vouch for anything, so a command starting with one has no subject
RUNS_OTHERS = frozenset({
    "env", "sudo", "doas", "su", "pkexec", "xargs", "nohup", "nice", "ionice", "timeout", "watch", "time", "exec",
    "eval", "command", "builtin", "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "python", "python3",
    "perl", "ruby", "node", "deno", "bun", "php", "lua", "awk", "gawk", "mawk", "busybox", "ssh", "script",
    "setsid", "stdbuf", "chroot", "unshare", "nsenter", "flatpak-spawn", "systemd-run", "strace", "ltrace", "gdb",
    "npx", "uvx", "pipx", "parallel", "entr", "sed", "pypy", "ipython", "nodejs", "tclsh", "wish", "expect",
    "rscript", "r", "julia", "pwsh", "powershell", "osascript", "jshell", "groovy", "guile", "racket", "ash", "mksh",
    "yash", "rbash", "nu", "xonsh", "elvish", "flock", "chrt", "taskset", "numactl", "prlimit", "firejail", "bwrap",
    "runuser", "sg", "unbuffer", "valgrind", "fakeroot", "proot", "torsocks", "proxychains", "proxychains4",
    "dbus-launch", "dbus-run-session", "xvfb-run", "tmux", "screen", "vim", "vi", "nvim", "ex", "emacs", "lldb",
    "cmd", "start", "wsl",
})
#: a program's name without what does not change what it is: a version (``python3.11``, ``perl5.36``), ``.exe``
_PROGRAM_SUFFIX = re.compile(r"(\.exe)?$|[0-9][0-9.]*(\.exe)?$", re.IGNORECASE)
#: options by which a program runs a command given on its command line (git's ``-c alias.x='!cmd'``, tar's
#: ``--to-command``, rsync's ``-e``): a command using one has no subject
RUNS_BY_OPTION: dict[str, tuple[str, ...]] = {
    "git": ("-c", "--config-env", "--exec-path", "--upload-pack", "--receive-pack", "-u", "--ext-diff", "--exec",
            "-x", "--extcmd", "-O", "--open-files-in-pager", "--output", "--tool", "-t"),
    "tar": ("--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script",
            "--new-volume-script", "-F", "--rmt-command", "--rsh-command"),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "zip": ("-TT", "--unzip-command"),
    "find": ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprintf", "-fls"),
    "fd": ("-x", "--exec", "-X", "--exec-batch"),
    "rg": ("--pre",),
    "sort": ("--compress-program",),
    "man": ("-P", "--pager", "-H", "--html"),
    "scp": ("-S", "-o", "-F"),
    "sftp": ("-S", "-o", "-F", "-D"),
    "apt": ("-o", "--option", "-c", "--config-file"),
    "apt-get": ("-o", "--option", "-c", "--config-file"),
}
#: programs whose first argument is a sub-command with its own powers (``git status`` reads, ``git config``
#: can make later calls run anything): their subject is the program and its sub-command
SUBCOMMAND_PROGRAMS = frozenset({
    "git", "npm", "pnpm", "yarn", "cargo", "go", "docker", "podman", "kubectl", "helm", "pip", "pip3", "uv",
    "poetry", "apt", "apt-get", "dnf", "brew", "systemctl", "flatpak", "snap", "gh", "conda",
})


def command_word(command: str) -> str | None:
    """What a command-line rule is about: the command's first word (``ls``), or with its sub-command for programs
    that have them (``git status``). None — no rule can vouch for it — when it is empty, chains or redirects
    commands, starts with a program that runs other programs, or uses an option that runs one."""
    if any(op in command for op in SHELL_OPERATORS):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    if not words:
        return None
    program = os.path.basename(words[0].replace("\\", "/")).lower() if "=" not in words[0] else ""
    bare = _PROGRAM_SUFFIX.sub("", program)
    if not program or program in RUNS_OTHERS or bare in RUNS_OTHERS:
        return None
    program = program if program in RUNS_BY_OPTION or program in SUBCOMMAND_PROGRAMS else bare or program
    if any(_uses_option(word, flag) for word in words[1:] for flag in RUNS_BY_OPTION.get(program, ())):
        return None
    if program in SUBCOMMAND_PROGRAMS:
        rest = [w for w in words[1:] if not w.startswith("-")]
        if words[1:2] and words[1].startswith("-"):
            return None  # options before the sub-command (``git -C dir …``): not one rule's to judge
        return f"{words[0]} {rest[0]}" if rest else words[0]
    return words[0]


def _uses_option(word: str, flag: str) -> bool:
    """``word`` gives option ``flag``: as itself or ``flag=value``; a one-letter flag (``-e``) also inside a group
    of them (``-avze``) or with its value attached (``-Ifoo``)."""
    if word == flag or word.startswith(flag + "="):
        return True
    return len(flag) == 2 and word.startswith("-") and not word.startswith("--") and flag[1] in word[1:]


#: arguments that hold a command's arguments apart from the command (``{"command": "find", "args": ["-exec", …]}``)
COMMAND_ARGUMENT_LISTS = ("args", "arguments", "argv")


def subject_of(arguments: Mapping[str, Any]) -> Subject | None:
    """The call's subject, read from its arguments by name (see the module docstring); None when it has none.

    Every path-like argument counts: a call with a relative path, or with paths in more than one place, has no
    path subject (a rule for one folder cannot vouch for it). A command's subject is the command even when the
    call also names a folder to run it in (a folder rule would allow any command run there — ``rm -rf ~`` too);
    its separate argument list (``args``) is judged with it. A call with other subjects of more than one kind (a
    URL and the file it is saved to) has none: a rule for one of them cannot vouch for the other."""
    found: list[Subject] = []
    unreadable = False  # paths no folder rule can vouch for: only a command can then be the subject
    paths = [(name, arguments[name]) for name in PATH_ARGUMENTS if _given(arguments.get(name))]
    if paths:
        resolved = {_resolve_path(value) if isinstance(value, str) else None for _name, value in paths}
        if len(resolved) != 1 or None in resolved:
            unreadable = True
        else:
            found.append(Subject("path", str(resolved.pop()), paths[0][0]))
    for names, kind in ((COMMAND_ARGUMENTS, "command"), (URL_ARGUMENTS, "host")):
        given = [name for name in names if _given(arguments.get(name))]
        if not given:
            continue
        values = {arguments[name] for name in given if isinstance(arguments[name], str)}
        if len(given) != 1 or len(values) != 1:
            return None
        name, value = given[0], values.pop()
        if kind == "command":
            word = command_word(_with_argument_list(value, arguments))
            if not word:
                return None
            found.append(Subject("command", word, name))
        else:
            host = (urlsplit(value.strip()).hostname or "").lower()
            if not host:
                return None
            found.append(Subject("host", host, name))
    commands = [f for f in found if f.kind == "command"]
    if commands and all(f.kind in ("command", "path") for f in found):
        return commands[0]
    return found[0] if len(found) == 1 and not unreadable else None


def _given(value: Any) -> bool:
    """An argument that is there: anything but None, an empty or blank text, an empty list."""
    if value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    return not (isinstance(value, (list, tuple, dict)) and not value)


def _with_argument_list(command: str, arguments: Mapping[str, Any]) -> str:
    """The command line ``command`` and its separate argument list make (the list quoted word by word)."""
    for name in COMMAND_ARGUMENT_LISTS:
        extra = arguments.get(name)
        if isinstance(extra, (list, tuple)):
            command += " " + shlex.join(str(word) for word in extra)
        elif isinstance(extra, str) and extra.strip():
            command += " " + extra
    return command


def canonical_arguments(arguments: Mapping[str, Any]) -> str:
    """The arguments as one JSON text, the same for the same arguments (an ``args`` rule's value)."""
    return json.dumps(dict(arguments), sort_keys=True, ensure_ascii=False, default=str)


def is_under(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or inside it (both absolute, resolved; ``/a/bc`` is not under ``/a/b``)."""
    if not os.path.isabs(path) or not os.path.isabs(folder):
        return False
    root = folder if folder.endswith(os.sep) else folder + os.sep
    return path == folder or path.startswith(root)


@dataclass(frozen=True)
class Scope:
    """What a rule or a chat grant covers: ``kind`` (see :data:`SCOPES`) and ``value`` (None for ``tool``)."""

    kind: str = "tool"
    value: str | None = None

    def label(self, tool: str) -> str:
        """A line for people: "any call of x", "files under /home/me/notes", "commands starting with git"…"""
        return scope_label(self.kind, self.value, tool)

    def matches(self, arguments: Mapping[str, Any], subject: Subject | None) -> bool:
        if self.kind == "tool":
            return True
        if self.kind == "args":
            return self.value == canonical_arguments(arguments)
        if subject is None or self.value is None:
            return False
        if self.kind == "path":
            return subject.kind == "path" and is_under(subject.value, self.value)
        return subject.kind == self.kind and subject.value == self.value


def scopes_for(tool: Tool, arguments: Mapping[str, Any]) -> list[Scope]:
    """The scopes an approval can be widened to, most useful first: for a destructive tool the subject (or the
    exact arguments) — never every call —; for the others every call of the tool first."""
    subject = subject_of(arguments)
    narrow: list[Scope] = []
    if subject is not None:
        if subject.kind == "path":
            folder = subject.value if os.path.isdir(subject.value) else os.path.dirname(subject.value)
            narrow.append(Scope("path", folder or subject.value))
        else:
            narrow.append(Scope(subject.kind, subject.value))
    narrow.append(Scope("args", canonical_arguments(arguments)))
    return narrow if tool.destructive else [Scope("tool"), *narrow]


# ---- rules and decisions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """A policy for calls of ``tool`` in ``scope``. ``id``: the store's row id (negative: not saved, e.g. a
    ``--allow-tool`` rule). Times in epoch seconds; ``last_used_at`` None = never used."""

    id: int
    tool: str
    scope: Scope
    policy: str
    source: str = "user"
    created_at: float = 0.0
    last_used_at: float | None = None

    def describe(self) -> str:
        return f"{self.policy} {self.scope.label(tool_label(self.tool))}"


@dataclass(frozen=True)
class Decision:
    """The outcome of the check: ``decision`` allow / deny, ``by`` rule / user / default, ``rule_id`` when a rule
    decided (or the rule the user's "always" made), ``reason`` (a deny's reason, or how it was allowed)."""

    decision: str
    by: str
    rule_id: int | None = None
    reason: str | None = None

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"

    def summary(self) -> str:
        """``allowed by rule #3``, ``allowed by user (for this chat)``, ``denied by user: not now``."""
        return decision_summary(self.allowed, self.by, self.rule_id, self.reason)


Choice = Literal["once", "chat", "always", "deny"]


@dataclass(frozen=True)
class Answer:
    """The user's answer to a :class:`PermissionRequest`: ``choice`` once / chat / always / deny, the ``scope``
    of a chat or always answer (default: the request's first scope), a deny's optional ``reason``."""

    choice: str
    scope: Scope | None = None
    reason: str | None = None


class RuleStorage(Protocol):
    """Where user rules are kept (the store's ``tool_rules`` table:
    :class:`~desktop_agent.core.store.rules.ToolRules`)."""

    def all(self) -> list[Rule]: ...

    def save(self, rule: Rule) -> Rule: ...

    def delete(self, rule_id: int) -> None: ...

    def set_policy(self, rule_id: int, policy: str) -> None: ...

    def touch(self, rule_id: int, when: float) -> None: ...


class RuleBook:
    """The rules in force: those of a :class:`RuleStorage` (attached with :meth:`attach`) and those given for
    this run (``--allow-tool``). Thread-safe; listeners (:meth:`subscribe`) hear of every change."""

    #: a rule's "last used" is saved at most this often (seconds): a busy rule costs no write per call
    TOUCH_SAVE_S = 60.0

    def __init__(self, storage: RuleStorage | None = None) -> None:
        self._lock = threading.RLock()
        self._storage: RuleStorage | None = None
        self._rules: dict[int, Rule] = {}
        self._next_temp = -1
        self._listeners: list[Callable[[], None]] = []
        if storage is not None:
            self.attach(storage)

    def attach(self, storage: RuleStorage) -> None:
        """Keep user rules in ``storage`` from now on: its rules are loaded (rules made before are saved into it)."""
        with self._lock:
            unsaved = [r for r in self._rules.values() if r.id < 0 and r.source == "user"]
            self._storage = storage
            self._rules = {r.id: r for r in self._rules.values() if r.id < 0 and r.source != "user"}
            for rule in storage.all():
                self._rules[rule.id] = rule
            for rule in unsaved:
                self._put(rule)
        self._changed()

    @property
    def persistent(self) -> bool:
        return self._storage is not None

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` after every change (from the thread that made it)."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                log.warning("a rule listener failed", exc_info=True)

    def rules(self) -> list[Rule]:
        with self._lock:
            return sorted(self._rules.values(), key=lambda r: (r.tool, r.scope.kind, r.scope.value or "", r.id))

    def get(self, rule_id: int) -> Rule | None:
        with self._lock:
            return self._rules.get(rule_id)

    def _put(self, rule: Rule) -> Rule:
        """Add or replace (same tool and scope) ``rule``; user rules go to the storage when there is one."""
        for old in list(self._rules.values()):
            if old.tool == rule.tool and old.scope == rule.scope and old.source == rule.source:
                rule = replace(rule, id=old.id, created_at=old.created_at, last_used_at=old.last_used_at)
                if old.id >= 0 and self._storage is not None:
                    self._storage.set_policy(old.id, rule.policy)
                self._rules[old.id] = rule
                return rule
        if rule.source == "user" and self._storage is not None:
            rule = self._storage.save(replace(rule, id=0))
        else:
            rule = replace(rule, id=self._next_temp)
            self._next_temp -= 1
        self._rules[rule.id] = rule
        return rule

    def add(self, tool: str, scope: Scope, policy: str, source: str = "user") -> Rule:
        """Make (or update) the rule for ``tool`` in ``scope``; saved at once for ``source="user"``."""
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r}: use allow, ask or deny")
        if scope.kind not in SPECIFICITY:
            raise ValueError(f"unknown scope {scope.kind!r}")
        with self._lock:
            rule = self._put(Rule(0, tool, scope, policy, source, created_at=time.time()))
        self._changed()
        return rule

    def set_policy(self, rule_id: int, policy: str) -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r}: use allow, ask or deny")
        with self._lock:
            rule = self._rules.get(rule_id)
            if rule is None:
                return
            if rule_id >= 0 and self._storage is not None:
                self._storage.set_policy(rule_id, policy)
            self._rules[rule_id] = replace(rule, policy=policy)
        self._changed()

    def remove(self, rule_id: int) -> None:
        """Revoke a rule (no error if it is gone)."""
        with self._lock:
            if self._rules.pop(rule_id, None) is None:
                return
            if rule_id >= 0 and self._storage is not None:
                self._storage.delete(rule_id)
        self._changed()

    def touch(self, rule_id: int) -> None:
        """Note that the rule decided a call now (its "last used")."""
        now = time.time()
        with self._lock:
            rule = self._rules.get(rule_id)
            if rule is None:
                return
            self._rules[rule_id] = replace(rule, last_used_at=now)
            recent = rule.last_used_at is not None and now - rule.last_used_at < self.TOUCH_SAVE_S
            if rule_id >= 0 and self._storage is not None and not recent:
                try:
                    self._storage.touch(rule_id, now)
                except Exception:
                    log.warning("could not save when rule %s was used", rule_id, exc_info=True)
        self._changed()

    def about_tool(self, tool_name: str) -> bool:
        """Some rule is about tool ``tool_name``."""
        with self._lock:
            return any(r.tool == tool_name for r in self._rules.values())

    def applicable(self, tool: Tool, arguments: Mapping[str, Any], subject: Subject | None) -> Rule | None:
        """The rule deciding this call (see the module docstring), or None."""
        with self._lock:
            key = rule_key(tool)  # --allow-tool NAME names the tool as the model sees it
            found = [r for r in self._rules.values() if (r.tool == key or (r.source == "flag" and r.tool == tool.name))
                     and r.scope.matches(arguments, subject)]
        if tool.destructive:
            found = [r for r in found if not (r.scope.kind == "tool" and r.policy == "allow" and r.source != "flag")]
        if not found:
            return None
        denies = [r for r in found if r.policy == "deny"]
        pool = denies or found
        return max(pool, key=lambda r: (SPECIFICITY[r.scope.kind], r.policy == "ask", r.id >= 0, r.id))


def default_policy(tool: Tool) -> str:
    """The policy of a tool no rule covers: ``ask`` for ``requires_approval`` and ``destructive`` tools."""
    if tool.requires_approval or tool.destructive:
        return "ask"
    return "allow"


# ---- a chat's side: its grants and its asker --------------------------------------------------------


class PermissionRequest:
    """A call waiting for the user: ``tool``, ``arguments``, ``subject``, ``scopes`` (what "for this chat" or
    "always" may cover, the suggested one first), ``chat_id``, ``call_id``. :meth:`answer` (any thread; the
    first answer wins); ``answered`` / ``result`` tell how it ended (also when a rule or Stop decided it)."""

    def __init__(self, tool: Tool, arguments: dict[str, Any], chat_id: str | None = None,
                 call_id: str | None = None) -> None:
        self.tool = tool
        self.arguments = dict(arguments)
        self.subject = subject_of(arguments)
        self.scopes = scopes_for(tool, arguments)
        self.chat_id = chat_id
        self.call_id = call_id
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._answer: Answer | None = None
        #: how the call was decided, once it is (set by the engine)
        self.result: Decision | None = None

    @property
    def tool_name(self) -> str:
        return self.tool.name

    @property
    def description(self) -> str:
        return self.tool.description

    @property
    def source(self) -> str:
        return self.tool.source or "unknown"

    def answer(self, answer: Answer | str) -> None:
        """Answer (``Answer`` or a choice name); later answers are ignored."""
        if isinstance(answer, str):
            answer = Answer(answer)
        with self._lock:
            if self._answer is None and not self._done.is_set():
                self._answer = answer
        self._done.set()

    @property
    def answered(self) -> bool:
        return self._done.is_set()

    @property
    def allowed(self) -> bool | None:
        """True/False once decided, None while waiting."""
        return None if self.result is None else self.result.allowed

    def _close(self) -> None:
        self._done.set()


#: ``asker(request) -> Answer | None``: answer now, or show the request and return None (then answer it later)
Asker = Callable[[PermissionRequest], "Answer | None"]


@dataclass
class ChatPermissions:
    """One chat's side of the check (kept by its ChatSession): ``chat_id``, the grants "for this chat" (tool →
    scopes) and the ``asker`` of the surface showing the chat (None: ask tools are denied)."""

    chat_id: str | None = None
    asker: Asker | None = None
    grants: dict[str, list[Scope]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def grant(self, tool: str, scope: Scope) -> None:
        with self._lock:
            scopes = self.grants.setdefault(tool, [])
            if scope not in scopes:
                scopes.append(scope)

    def granted(self, tool: Tool, arguments: Mapping[str, Any], subject: Subject | None) -> bool:
        with self._lock:
            scopes = list(self.grants.get(rule_key(tool), ()))
        if tool.destructive:
            scopes = [s for s in scopes if s.kind != "tool"]
        return any(s.matches(arguments, subject) for s in scopes)


# ---- the engine -------------------------------------------------------------------------------------


class PermissionEngine:
    """Decides every tool call (:meth:`check`); holds the :class:`RuleBook`."""

    #: how often a waiting request looks at Stop and at new rules (seconds)
    POLL_S = 0.05

    def __init__(self, rules: RuleBook | None = None) -> None:
        self.rules = rules if rules is not None else RuleBook()

    def allow_for_run(self, names: Iterable[str]) -> None:
        """``--allow-tool NAME``: allow every call of these tools for this run (a ``flag`` rule, not saved). It
        is an explicit consent naming the tool, so it covers destructive tools too."""
        for name in names:
            self.rules.add(name, Scope("tool"), "allow", source="flag")

    def preview(self, tool: Tool, arguments: Mapping[str, Any],
                chat: ChatPermissions | None = None) -> tuple[str, Decision | None, Rule | None]:
        """``(policy, decision, rule)`` without asking anyone: ``decision`` is None when the user must be asked."""
        # the subject is read only when a rule or a grant of this chat is about the tool (else none can match)
        key = rule_key(tool)
        granting = chat is not None and bool(chat.grants.get(key))
        subject = subject_of(arguments) if granting or self.rules.about_tool(key) or self.rules.about_tool(
            tool.name) else None
        rule = self.rules.applicable(tool, arguments, subject)
        if rule is not None and rule.policy == "deny":
            return "deny", Decision("deny", "rule", rule.id, f"a rule denies {rule.scope.label(tool.name)}"), rule
        if chat is not None and chat.granted(tool, arguments, subject):
            return "allow", Decision("allow", "user", None, "for this chat"), None
        if rule is not None and rule.policy == "allow":
            return "allow", Decision("allow", "rule", rule.id), rule
        if rule is not None:  # an "ask" rule
            return "ask", None, rule
        policy = default_policy(tool)
        return policy, (Decision("allow", "default") if policy == "allow" else None), None

    def check(self, tool: Tool, arguments: Mapping[str, Any], chat: ChatPermissions | None = None,
              cancel: threading.Event | None = None, call_id: str | None = None) -> Decision:
        """Decide the call: by rule, chat grant or default, else by asking ``chat.asker`` (see the module
        docstring). Never raises; an asker that fails has not allowed."""
        _policy, decision, rule = self.preview(tool, arguments, chat)
        if decision is not None:
            if rule is not None:
                self.rules.touch(rule.id)
            return decision
        asker = chat.asker if chat is not None else None
        if asker is None:
            return Decision("deny", "default", None, "it needs the user's approval and no one could be asked")
        request = PermissionRequest(tool, dict(arguments), chat.chat_id if chat else None, call_id)
        try:
            answer = asker(request)
            if answer is not None:
                request.answer(answer)
            decision = self._wait(request, chat, cancel)
        except Exception as exc:  # noqa: BLE001 — an asker that fails has not allowed
            log.warning("asking about tool %s failed: %s", tool.name, exc)
            decision = Decision("deny", "default", None, "the question could not be asked")
        request.result = decision
        request._close()
        return decision

    def _wait(self, request: PermissionRequest, chat: ChatPermissions | None,
              cancel: threading.Event | None) -> Decision:
        while not request._done.wait(self.POLL_S):
            if cancel is not None and cancel.is_set():
                return Decision("deny", "user", None, "the turn was stopped before an answer")
            _policy, decided, rule = self.preview(request.tool, request.arguments, chat)
            if decided is not None:  # a rule (or a grant) made meanwhile decides it
                if rule is not None:
                    self.rules.touch(rule.id)
                return decided
        answer = request._answer
        if answer is None:
            return Decision("deny", "user", None, "no answer")
        return self.apply(request, answer, chat)

    def apply(self, request: PermissionRequest, answer: Answer, chat: ChatPermissions | None) -> Decision:
        """What the user's answer decides (and keeps: a chat grant, a saved rule)."""
        tool = request.tool
        if answer.choice == "deny":
            reason = (answer.reason or "").strip() or None
            return Decision("deny", "user", None, reason)
        if answer.choice == "once":
            return Decision("allow", "user", None, "once")
        scope = answer.scope or request.scopes[0]
        if tool.destructive and scope.kind == "tool":
            scope = request.scopes[0]  # a destructive tool is never allowed wholesale
        if answer.choice == "chat":
            if chat is not None:
                chat.grant(rule_key(tool), scope)
            return Decision("allow", "user", None, "for this chat")
        if answer.choice == "always":
            rule = self.rules.add(rule_key(tool), scope, "allow", source="user")
            return Decision("allow", "user", rule.id, f"always: rule #{rule.id}")
        return Decision("deny", "user", None, f"unknown answer {answer.choice!r}")


def denial_text(name: str, decision: Decision) -> str:
    """The tool result the model reads for a denied call."""
    if decision.by == "user":
        text = f"the user denied tool '{name}'; it was not run."
        if decision.reason and decision.reason not in ("no answer",):
            text += f" Reason: {decision.reason}"
        return text
    why = decision.reason or "a rule denies it"
    return f"tool '{name}' was not run: {why}."
