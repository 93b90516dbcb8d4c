"""Presets ("assistants"): a named system prompt with optional model, temperature and tools, picked for a new chat.

The app ships a few (:data:`SHIPPED`); the user's edits and their own presets live in the settings
(:class:`~desktop_agent.core.settings.PresetSettings`: a preset with a shipped id replaces the shipped one, a shipped
id in ``removed`` hides it). :func:`all_presets` gives the list the user sees, :func:`find` looks one up by name
(case-insensitive; the terminal's ``chat --preset NAME``), :func:`chat_options_of` turns one into the options of a
new chat (:attr:`~desktop_agent.core.messages.Conversation.options`) — so a chat started from a preset keeps its
prompt, model and tools even when the preset changes later.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.settings import Preset, Settings, chat_options

#: the shipped presets' names, as the window translates them (their prompts are for the model: English)
SHIPPED_NAMES = (QT_TRANSLATE_NOOP("Presets", "Coder"), QT_TRANSLATE_NOOP("Presets", "Writer"),
                 QT_TRANSLATE_NOOP("Presets", "Researcher"))

#: the presets the app ships (their prompts are the app's, in English; the user may edit or delete them)
SHIPPED: tuple[Preset, ...] = (
    Preset(
        id="coder", name="Coder", temperature=0.2, tools=True,
        system_prompt=(
            "You are an expert software engineer pairing with the user. Read the question carefully and answer "
            "with working code: complete functions or files rather than fragments, in fenced code blocks with "
            "the language named. Prefer the standard library and the project's existing style; mention the "
            "edge cases and how to test the change. When something is ambiguous, state the assumption you make. "
            "Explain briefly after the code, not before. Never invent APIs: say when you are unsure a function "
            "exists. Use the file and command tools only when the user asked you to look at or change their "
            "files."
        ),
    ),
    Preset(
        id="writer", name="Writer", temperature=0.8, tools=False,
        system_prompt=(
            "You are a skilled editor and writer. Help the user draft, rewrite and polish text: keep their "
            "voice and meaning, make it clear, concise and well structured, and match the tone they ask for "
            "(formal, friendly, persuasive…). When editing, return the improved text first, then at most a "
            "few bullet points on what changed and why. Do not pad with filler or clichés; vary sentence "
            "length; prefer concrete words. Ask one short question only when the purpose or audience is "
            "truly unclear."
        ),
    ),
    Preset(
        id="researcher", name="Researcher", temperature=0.3, tools=True,
        system_prompt=(
            "You are a careful research assistant. Answer questions accurately and show your reasoning: "
            "separate what is well established from what is uncertain or disputed, and say so when you do "
            "not know. Use the tools (web pages, calculator, date) to check facts and figures instead of "
            "guessing, and cite where each fact came from (the page's address or the tool). Structure long "
            "answers with a short summary first, then the details as headed sections or lists. Never invent "
            "sources, quotes or numbers."
        ),
    ),
)
SHIPPED_IDS = frozenset(p.id for p in SHIPPED)


def shipped(preset_id: str) -> Preset | None:
    """The shipped preset with this id, as shipped (None: not a shipped one)."""
    return next((p for p in SHIPPED if p.id == preset_id), None)


def all_presets(settings: Settings) -> list[Preset]:
    """The presets the user has: the shipped ones (as edited, unless deleted) in their order, then their own."""
    mine = {p.id: p for p in settings.presets.items}
    out = [mine.pop(p.id, p) for p in SHIPPED if p.id not in settings.presets.removed]
    return out + list(mine.values())


def find(settings: Settings, name: str) -> Preset | None:
    """The preset named ``name`` (case-insensitive, spaces ignored at the ends) or with that id; None: none is.
    The user's own presets come first: their "Coder" beside the shipped one is the one they mean."""
    key = " ".join(name.split()).casefold()
    presets = sorted(all_presets(settings), key=lambda p: shipped(p.id) is not None)
    return next((p for p in presets if p.name.casefold() == key), None) or next(
        (p for p in presets if p.id == key), None)


def shown_name(preset: Preset) -> str:
    """The name to show: a shipped preset's own name as a marked text (the window translates it), else the name."""
    original = shipped(preset.id)
    if original is not None and original.name == preset.name:
        return next((n for n in SHIPPED_NAMES if n == preset.name), preset.name)
    return preset.name


def is_modified(preset: Preset) -> bool:
    """Whether ``preset`` is a shipped one the user changed (Reset brings the shipped version back)."""
    original = shipped(preset.id)
    return original is not None and original != preset


def new_id(used: Iterable[str], name: str) -> str:
    """A fresh preset id made from ``name`` ("My Helper" → "my-helper", "my-helper-2" when it is in ``used`` or a
    shipped preset's)."""
    base = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")[:30].strip("-") or "preset"
    taken = set(used) | SHIPPED_IDS
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def with_preset(settings: Settings, preset: Preset) -> dict[str, Any]:
    """The ``presets`` settings changes that save ``preset`` (added, or replacing the one with its id); a shipped
    preset saved exactly as shipped is no edit and is not stored."""
    items = [p for p in settings.presets.items if p.id != preset.id]
    if shipped(preset.id) != preset:
        items.append(preset)
    removed = [i for i in settings.presets.removed if i != preset.id]
    return {"presets.items": [p.model_dump() for p in items], "presets.removed": removed}


def without_preset(settings: Settings, preset_id: str) -> dict[str, Any]:
    """The ``presets`` settings changes that delete the preset ``preset_id`` (a shipped one is hidden)."""
    items = [p.model_dump() for p in settings.presets.items if p.id != preset_id]
    removed = list(settings.presets.removed)
    if preset_id in SHIPPED_IDS and preset_id not in removed:
        removed.append(preset_id)
    return {"presets.items": items, "presets.removed": removed}


def reset_preset(settings: Settings, preset_id: str) -> dict[str, Any]:
    """The ``presets`` settings changes that bring a shipped preset back as shipped."""
    items = [p.model_dump() for p in settings.presets.items if p.id != preset_id]
    return {"presets.items": items, "presets.removed": [i for i in settings.presets.removed if i != preset_id]}


def chat_options_of(preset: Preset, settings: Settings) -> dict[str, Any]:
    """The options of a chat started from ``preset`` (over ``settings``, the defaults): its system prompt always,
    then what it chooses — backend and model, temperature, tools on or off and the tools not offered."""
    options: dict[str, Any] = {"loop.system_prompt": preset.system_prompt}
    backend = preset.backend or settings.backend
    if preset.backend:
        options["backend"] = preset.backend
    if preset.model.strip():
        options[f"{backend}.model"] = preset.model.strip()
    if preset.temperature is not None:
        options["generation.temperature"] = preset.temperature
    if preset.tools is not None:
        options["tools.enabled"] = preset.tools
    if preset.disabled_tools:
        options["tools.disabled"] = list(preset.disabled_tools)
    return chat_options(options)


def names(settings: Settings) -> list[str]:
    """The names of the user's presets, in order (for messages listing them)."""
    return [p.name for p in all_presets(settings)]
