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
from collections.abc import Iterable, Sequence
from typing import Annotated, Any

from pydantic import Field

from desktop_agent.core.messages import Message
from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.registry import ToolRegistry

__all__ = ["FIND_TOOLS", "ToolIndex", "ToolOffer", "words"]

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
    """A light English stem, the same for the index and the query ("files" / "file", "searching" / "search")."""
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
