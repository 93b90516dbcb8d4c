"""What people read about a permission: what a rule or grant covers, and who decided a call and why — marked for
the window's translation (:mod:`desktop_agent.core.i18n`), English for the terminal and the audit."""

from __future__ import annotations

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP

#: who decided, as the audit and the sidebar say it (the English text is the key: saved decisions read the same)
_DECIDED_BY: dict[str, str] = {text: text for text in (
    QT_TRANSLATE_NOOP("Decision", "allowed by user"), QT_TRANSLATE_NOOP("Decision", "denied by user"),
    QT_TRANSLATE_NOOP("Decision", "allowed by default"), QT_TRANSLATE_NOOP("Decision", "denied by default"),
)}
#: the reasons the engine gives itself (a user's own reason for denying is shown as typed)
_REASONS: dict[str, str] = {text: text for text in (
    QT_TRANSLATE_NOOP("Decision", "once"), QT_TRANSLATE_NOOP("Decision", "for this chat"),
    QT_TRANSLATE_NOOP("Decision", "no answer"), QT_TRANSLATE_NOOP("Decision", "the turn was stopped before an answer"),
    QT_TRANSLATE_NOOP("Decision", "the question could not be asked"),
    QT_TRANSLATE_NOOP("Decision", "it needs the user's approval and no one could be asked"),
)}


def scope_label(kind: str, value: str | None, tool: str) -> str:
    """A scope for people: "any call of x", "paths under /home/me/notes", "commands starting with git"…"""
    if kind == "tool":
        return QT_TRANSLATE_NOOP("Scope", "any call of {tool}").format(tool=tool)
    if kind == "args":
        return QT_TRANSLATE_NOOP("Scope", "these exact arguments")
    if kind == "path":
        return QT_TRANSLATE_NOOP("Scope", "paths under {path}").format(path=value)
    if kind == "command":
        return QT_TRANSLATE_NOOP("Scope", "commands starting with {command}").format(command=value)
    return QT_TRANSLATE_NOOP("Scope", "the host {host}").format(host=value)


def decision_summary(allowed: bool, by: str, rule_id: int | None, reason: str | None) -> str:
    """``allowed by rule #3``, ``allowed by user (for this chat)``, ``denied by user: not now``."""
    head: str
    if by == "rule" and rule_id is not None:
        head = (QT_TRANSLATE_NOOP("Decision", "allowed by rule #{rule}") if allowed
                else QT_TRANSLATE_NOOP("Decision", "denied by rule #{rule}")).format(rule=rule_id)
    else:
        verb = "allowed" if allowed else "denied"
        head = _DECIDED_BY.get(f"{verb} by {by}") or f"{verb} by {by}"
    if not reason:
        return head
    shown = _REASONS.get(reason, reason)
    return head + (QT_TRANSLATE_NOOP("Decision", " ({reason})") if allowed
                   else QT_TRANSLATE_NOOP("Decision", ": {reason}")).format(reason=shown)
