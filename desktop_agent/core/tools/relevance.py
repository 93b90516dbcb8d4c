"""Many tools, small models: above a count, the model is offered the tools most relevant to the turn, plus a
``find_tools`` tool that finds the rest.

Small local models stop calling any tool when they are offered dozens (an MCP server or two bring that many).
:class:`ToolOffer` scores every tool offline — BM25 over the words of its name, description and parameters,
against the recent conversation (the new message counts double) — and offers the best ``max_offered - 1``
(the tools the chat used lately and the user's explicit ``tool_choice`` always among them) plus ``find_tools``.
Calling ``find_tools`` with a few words lists the matching tools that were not offered, and offers them from the
model's next step. Nothing is downloaded: the words are the index.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.messages import Message
from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.registry import ToolRegistry

__all__ = ["FIND_TOOLS", "Relevant", "ToolIndex", "ToolOffer", "judgeable", "relevant_tools", "words"]

#: the name of the tool that finds the tools not offered
FIND_TOOLS = "find_tools"
#: how many tools one ``find_tools`` call offers at most
FIND_LIMIT = 8
#: how many recent messages make up the turn's query (the new user message counts double)
RECENT_MESSAGES = 6

#: words that say nothing about which tool to use
_STOP_WORDS = (
    "a an and are as at be by can could do does for from get give how i if in into is it its me my no not of on "
    "or our please should so some tell that the their then there these this to tool tools us use using was we "
    "what when where which who why will with would you your"
)
_STOP = frozenset(_STOP_WORDS.split())
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _stem(word: str) -> str:
    """A light English stem, the same for the index and the query ("files" / "file", "searching" / "search",
    "calculate" / "calculation" / "calculator")."""
    for suffix in ("ations", "ation", "ators", "ator", "ates", "ate"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("ing", ""),
                         ("ed", ""), ("ss", "ss"), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    return word


def words(text: str) -> list[str]:
    """The index words of ``text``: split at non-letters, ``snake_case`` and ``camelCase``; lower-case,
    stemmed, without stop words."""
    out = []
    for raw in _WORD.findall(_CAMEL.sub(" ", text or "")):
        word = raw.lower()
        if word not in _STOP and (len(word) > 1 or word.isdigit()):
            out.append(_stem(word))
    return out


def _tool_words(tool: Tool) -> list[str]:
    name = words(tool.name.replace("-", " ").replace("_", " "))
    params: list[str] = []
    for pname, prop in (tool.parameters.get("properties") or {}).items():
        params += words(pname)
        if isinstance(prop, dict) and isinstance(prop.get("description"), str):
            params += words(prop["description"])
    return name * 3 + words(tool.description) + params  # the name says most about what a tool does


class ToolIndex:
    """BM25 (k1 = 1.2, b = 0.75) over the tools' words; :meth:`scores` gives each tool's relevance to a query."""

    K1, B = 1.2, 0.75

    def __init__(self, tools: Iterable[Tool]):
        self.docs: dict[str, Counter[str]] = {t.name: Counter(_tool_words(t)) for t in tools}
        self.lengths = {name: sum(doc.values()) for name, doc in self.docs.items()}
        self.avg = (sum(self.lengths.values()) / len(self.lengths)) if self.lengths else 1.0
        df: Counter[str] = Counter()
        for doc in self.docs.values():
            df.update(doc.keys())
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}

    def scores(self, query: Counter[str], among: Iterable[str] | None = None) -> dict[str, float]:
        """Tool name → BM25 score of ``query`` (word → weight), for the tools ``among`` (default: all)."""
        out: dict[str, float] = {}
        for name in self.docs if among is None else among:
            doc, length = self.docs[name], self.lengths[name] or 1
            score = 0.0
            for word, weight in query.items():
                tf = doc.get(word, 0)
                if tf:
                    norm = tf * (self.K1 + 1) / (tf + self.K1 * (1 - self.B + self.B * length / self.avg))
                    score += weight * self.idf[word] * norm
            out[name] = score
        return out


def conversation_query(messages: Sequence[Message], recent: int = RECENT_MESSAGES) -> Counter[str]:
    """The words of the recent conversation, the newest user message counted twice; tool results are left out
    (their text is about the answer, not about which tool to use next)."""
    query: Counter[str] = Counter()
    kept = [m for m in messages if m.role in ("user", "assistant") and m.content][-recent:]
    last_user = next((m for m in reversed(kept) if m.role == "user"), None)
    for m in kept:
        query.update(words(m.content or ""))
    if last_user is not None:
        query.update(words(last_user.content or ""))
    return query


def _recently_called(messages: Sequence[Message], recent: int = 2 * RECENT_MESSAGES) -> list[str]:
    names: list[str] = []
    for m in messages[-recent:]:
        for call in m.tool_calls:
            if call.name not in names:
                names.append(call.name)
    return names


class ToolOffer:
    """The tools offered in one turn of a chat whose registry holds more than ``max_offered`` tools.

    ``pinned``: tools always offered (the user's explicit ``tool_choice``). :attr:`registry` is what the turn
    dispatches through: every tool of ``registry`` plus ``find_tools`` (a tool the model learnt of from
    ``find_tools`` can be called even before it is offered). :meth:`schemas` is the ``tools=`` payload of the next
    model call: the offered tools (in the registry's order) and ``find_tools`` while some are not offered.
    """

    def __init__(self, registry: ToolRegistry, max_offered: int, messages: Sequence[Message] = (),
                 pinned: Iterable[str] = ()):
        self._all = registry
        self.index = ToolIndex(registry)
        self.find_name = FIND_TOOLS if FIND_TOOLS not in registry else "find_more_tools"
        budget = max(1, max_offered - 1)  # one place is find_tools'
        chosen = [n for n in dict.fromkeys([*pinned, *_recently_called(messages)]) if n in registry][:budget]
        scores = self.index.scores(conversation_query(messages))
        order = {name: i for i, name in enumerate(registry.names())}
        for name in sorted(scores, key=lambda n: (-scores[n], order[n])):
            if len(chosen) >= budget or scores[name] <= 0:
                break
            if name not in chosen:
                chosen.append(name)
        self.offered: set[str] = set(chosen)
        self.registry = registry.subset(registry.names())
        self.registry.register(self._find_tool(), source="built-in")

    @property
    def hidden(self) -> list[str]:
        """The tools not offered (yet), in the registry's order."""
        return [n for n in self._all.names() if n not in self.offered]

    def schemas(self) -> list[dict[str, Any]]:
        offered = [t.schema() for t in self._all if t.name in self.offered]
        if self.hidden:
            find = self.registry.get(self.find_name)
            if find is not None:
                offered.append(find.schema())
        return offered

    def find(self, query: str, limit: int = FIND_LIMIT) -> dict[str, Any]:
        """``find_tools``: the not-offered tools matching ``query`` (name and description), offered from the next
        step; without a match, the names of all of them."""
        hidden = self.hidden
        exact = [n for n in hidden if n.lower() == query.strip().lower()]
        scores = self.index.scores(Counter(words(query)), hidden)
        found = exact + [n for n in sorted(hidden, key=lambda n: -scores[n]) if scores[n] > 0 and n not in exact]
        found = found[:limit]
        self.offered.update(found)
        if not found:
            return {"found": [], "note": f"No tool matches '{query}'. Tools not offered yet: "
                    + ", ".join(hidden[:60]) + ". Ask again with one of these names to use it."}
        tools = [{"name": n, "description": _first_sentence(self._all.get(n))} for n in found]
        return {"found": tools, "note": "These tools can be called from your next step."}

    def _find_tool(self) -> Tool:
        def find_tools(query: Annotated[str, Field(description="what you need a tool for, in a few words")]) -> Any:
            return self.find(query)

        more = len(self._all) - len(self.offered)
        return Tool(
            find_tools, name=self.find_name, read_only=True, inline=True,
            description=(f"Find more tools: {more} other tools are available but not listed here. Call this when no "
                         "listed tool fits; the tools it finds can be called in your next step."),
        )


def _first_sentence(tool: Tool | None) -> str:
    text = (tool.description if tool is not None else "").strip()
    match = re.match(r"(.+?[.!?])(\s|$)", text, re.S)
    return " ".join((match.group(1) if match else text).split())[:200]


# ---- does any tool fit the message? ---------------------------------------------------------------------

#: words so common in messages (and in tool descriptions) that alone they say nothing about needing a tool:
#: "write one sentence", "say thank you in French", "translate this text", "how are you", "Hello!"
_GENERIC_WORDS = (
    "about accord all also answer any ask back best call check content create current default do doe each "
    "else every example find first fit get give given go good help here just know last let like line list "
    "long look lot made make many mean more most much name need new next note now number one only open "
    "other out over own part person read result return right run say see set short show some someone "
    "something still take tell text than thank thing think time today try turn two up user value very want "
    "way well word work write year yes hello hi hey thanks"
)
#: the words that, on their own, do say which tool fits (see :func:`relevant_tools`); "time", "now" and
#: "today" are generic alone ("how are you today?") but count beside another telling word
_WEAK_WORDS = frozenset({_stem(w) for w in ("time", "now", "today", "current", "day")})
_GENERIC = frozenset(_stem(w) for w in _GENERIC_WORDS.split()) - _WEAK_WORDS

_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_DATE = re.compile(rf"\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b"
                   rf"|\b(?:{_MONTHS})[a-z]*\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{3,4}}\b"
                   rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})[a-z]*\.?,?\s+\d{{3,4}}\b", re.I)
#: (a hyphen between digits is a subtraction only with spaces around it: "555-1234", "1999-2000" are not sums)
_ARITHMETIC = re.compile(r"\d\s*(?:\*\*|[+*/×÷^x])\s*\(?\s*-?\d|\d\s+-\s+\(?-?\d"
                         r"|\b(?:sqrt|log|sin|cos|tan)\s*\(", re.I)
_PERCENT = re.compile(r"\d\s*%|\bpercent", re.I)
_IN_WORDS = re.compile(r"\d\s+(?:plus|minus|times|divided\s+by|multiplied\s+by|to\s+the\s+power\s+of)\s+-?\d"
                       r"|\bsquare\s+root|\bfactorial\b", re.I)
_CLOCK = re.compile(r"\b(?:what|the)\s+time\b|\btime\s+is\s+it\b|\bwhat\s+(?:day|date)\s+is\s+(?:it|today)\b"
                    r"|\btoday'?s\s+date\b", re.I)
_URL = re.compile(r"https?://\S+|\bwww\.\S+", re.I)
#: (a file name starts where a run of name characters starts: ``\b`` would try again inside "a-b-c-…", whose every
#: letter follows a word boundary — quadratic on a long hyphenated message)
_PATH = re.compile(r"(?:^|\s)(?:~|\.{1,2})?/[\w.-]+"
                   r"|(?<![\w-])[\w-]+\.(?:txt|md|py|json|csv|log|toml|ya?ml|ini|cfg|html?|pdf)\b")
#: what a message holds → the words it stands for (an expression has no words, but a calculator fits it)
_CUES: tuple[tuple[re.Pattern[str], str], ...] = (
    (_DATE, "date"),
    (_ARITHMETIC, "arithmetic calculation expression"),
    (_IN_WORDS, "arithmetic calculation"),
    (_PERCENT, "percent percentage calculation"),
    (_CLOCK, "time now date today"),
    (_URL, "url web page"),
    (_PATH, "file path folder"),
)
#: how many tools a message is offered at most when some fit it
RELEVANT_LIMIT = 3
#: a tool scoring below this share of the best one's score is not offered beside it
_NEAR_BEST = 0.25
#: the best tool is the one the message means when it scores this many times the next one
_CLEAR_LEAD = 1.5
#: a message this short, right after a tool was used, is a follow-up ("and tomorrow?"): that tool still fits
_FOLLOW_UP_WORDS = 6


def _gate_words(tool: Tool) -> list[str]:
    """The words that can make a tool fit a message: its name, description and parameter names (not the
    parameters' descriptions, whose examples — "e.g. 'Paris'" — say nothing about when to use it)."""
    return [*words(tool.name.replace("-", " ").replace("_", " ")), *words(tool.description),
            *(w for p in (tool.parameters.get("properties") or {}) for w in words(p))]


def _verb(tool: Tool) -> list[str]:
    """The first word of a tool's name, the verb of a tool that changes something ("write", "run"); of an MCP
    server's tool (``server__tool``) the first word of its own name that is not the server's ("write" of
    ``filesystem__write_file``, "commit" of ``git__git_commit``)."""
    own = words(str(getattr(tool, "remote_name", None) or tool.name).replace("_", " ").replace("-", " "))
    server = set(words(str(getattr(tool, "server", None) or "").replace("_", " ").replace("-", " ")))
    return ([w for w in own if w not in server] or own)[:1]


def cue_words(text: str) -> list[str]:
    """The words for what ``text`` holds that has no words of its own: a date, an arithmetic expression, a
    percentage, a URL, a path."""
    out: list[str] = []
    rest = text or ""
    for pattern, meaning in _CUES:
        if pattern.search(rest):
            out += words(meaning)
            if pattern is _DATE:  # "2024-03-15" is a date, not a subtraction
                rest = pattern.sub(" ", rest)
    return out


@dataclass(frozen=True)
class Relevant:
    """The tools that fit one message, best first (empty: none does), the telling words each matched, and
    :attr:`sure`: the one tool the message clearly means — it names it, or two or more of its telling words
    match and it leads the next tool clearly."""

    names: tuple[str, ...] = ()
    matched: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sure: str | None = None
    named: bool = False
    #: the user chose the tool for this message (``--tool-choice NAME``, the Tools menu)
    chosen: bool = False

    def reason(self) -> str:
        """Why these tools (or none) are offered, in a few words: "matched 'week', 'day'"."""
        if not self.names:
            return QT_TRANSLATE_NOOP("ToolsOffered", "no tool fits the message")
        if self.chosen:
            return QT_TRANSLATE_NOOP("ToolsOffered", "the tool chosen for this message")
        if self.named:
            return QT_TRANSLATE_NOOP("ToolsOffered", "named in the message")
        hits = list(dict.fromkeys(w for n in self.names for w in self.matched.get(n, ())))
        if not hits:
            return QT_TRANSLATE_NOOP("ToolsOffered", "a follow-up of the tools used last")
        return QT_TRANSLATE_NOOP("ToolsOffered", "matched {words}").format(words=", ".join(f"'{w}'" for w in hits[:6]))


def _mentions(text: str, name: str) -> bool:
    """``text`` names the tool ``name``: as written (``say_hello``, ``getWeather``); a name that is a plain word
    ("today") only as "the today tool", "the tool called today", ```today``` or "today()" — not "a tool today"."""
    n = re.escape(name)
    if not re.fullmatch(r"[a-z]+", name):
        return re.search(rf"(?<![\w-]){n}(?![\w-])", text, re.I) is not None
    return re.search(rf"\b{n}\s+tool\b|\btool\s+(?:called|named)\s+[`'\"]?{n}\b|`{n}`|\b{n}\(", text,
                     re.I) is not None


def judgeable(text: str) -> bool:
    """Whether :func:`relevant_tools` can judge ``text``: its words are the index's (Latin script), or it holds a
    date, an expression, a URL or a path. A message in another script ("现在几点了") is not narrowed: the
    model is offered the tools as if no judge were there."""
    return bool(re.search(r"[A-Za-z]", text or "")) or bool(cue_words(text or ""))


def relevant_tools(registry: ToolRegistry, messages: Sequence[Message], limit: int = RELEVANT_LIMIT,
                   index: ToolIndex | None = None) -> Relevant:
    """The tools of ``registry`` that fit the newest user message of ``messages`` (see :class:`Relevant`).

    A tool fits when the message names it, or shares a telling word with its index words (name, description,
    parameter names; a weak word such as "time" or "today" counts only beside another telling word; a tool
    that changes something — not ``read_only`` — also needs the first word of its name: "write", "run"), or — for
    a short follow-up right after tool calls — when it was called in the last turn. Of those, the best ``limit``
    by BM25 (the recent conversation as the query) are kept, without any that scores under a quarter of the best;
    when the message clearly means one tool (:attr:`Relevant.sure`), only that one."""
    last = next((m for m in reversed(messages) if m.role == "user"), None)
    if last is None or not (last.content or "").strip() or not len(registry):
        return Relevant()  # (an empty message is not judged by the one before it)
    text = last.content or ""
    named = [n for n in registry.names() if _mentions(text, n)]
    cues = cue_words(text)  # (once: its patterns are the costly part of judging a long message)
    message_words = words(text) + cues
    telling = [w for w in dict.fromkeys(message_words) if w not in _GENERIC and not w.isdigit()]
    cued = set(cues)  # "what time" makes "time" telling on its own
    index = index if index is not None else ToolIndex(registry)
    telling_docs = {t.name: set(_gate_words(t)) for t in registry}
    query = conversation_query(messages)
    query.update(cues * 2)
    scores = index.scores(query)
    matched: dict[str, tuple[str, ...]] = {}
    for name, doc in telling_docs.items():
        hits = tuple(w for w in telling if w in doc)
        if (hits and any(w not in _WEAK_WORDS or w in cued for w in hits)) or len(hits) >= 2:
            matched[name] = hits
    for name in list(matched):  # a tool that changes something fits only a message that says its verb
        tool = registry.get(name)
        if tool is not None and not tool.read_only and not set(_verb(tool)) & set(message_words):
            del matched[name]
    order = {name: i for i, name in enumerate(registry.names())}
    ranked = sorted(matched, key=lambda n: (-scores.get(n, 0.0), order[n]))
    if not ranked and not named and len(words(text)) <= _FOLLOW_UP_WORDS:
        ranked = [n for n in _recently_called(messages[:-1], RECENT_MESSAGES) if n in registry]
    best = scores.get(ranked[0], 0.0) if ranked else 0.0
    kept = [n for n in ranked if scores.get(n, 0.0) >= _NEAR_BEST * best][:limit]
    names = tuple(dict.fromkeys([*named, *kept]))[: max(limit, len(named))]
    sure: str | None = None
    if len(named) == 1:
        sure = named[0]
    elif not named and kept and len(matched.get(kept[0], ())) >= 2:
        second = scores.get(ranked[1], 0.0) if len(ranked) > 1 else 0.0
        if scores.get(kept[0], 0.0) >= _CLEAR_LEAD * second:
            sure = kept[0]
    if sure is not None:
        names = (sure,)  # beside the tool it clearly means, others only tempt a small model away from it
    return Relevant(names, matched, sure, bool(named))
