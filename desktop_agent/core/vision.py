"""Whether a model can see the images attached to a message: as its server says (Ollama's ``capabilities``), or,
when the server does not say (OpenAI-compatible servers such as llama.cpp's, vLLM's, LM Studio's), from its name —
the model families known to see (:data:`KNOWN_VISION`).

:func:`sight` answers ``yes`` / ``no`` / ``unknown``: ``unknown`` is a model whose server does not say and whose
name is not a known vision model — the window and the terminal warn before sending an image to it (it would
probably invent an answer), and let the user send anyway.

Core only (no Qt).
"""

from __future__ import annotations

import re
from typing import Literal

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.model_info import ModelFacts

Sight = Literal["yes", "no", "unknown"]

#: model names (lower case, any prefix such as ``org/`` or ``hf.co/...``) of families known to see images
KNOWN_VISION = re.compile(
    r"llava|bakllava|moondream|minicpm-?v|pixtral|qwen[\d.]*-?vl|qvq|internvl|cogvlm|idefics|smolvlm|paligemma"
    r"|florence|phi-?3(\.5)?-vision|phi-?4-multimodal|llama-?3\.2-?(\d+b-)?vision|llama-?4|granite[\d.]*-vision"
    r"|mistral-small-?3\.[1-9]|mistral-medium|gemma-?3(?![a-z0-9]*[-:_]?1b\b)"
    r"|gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4-vision|gpt-5|chatgpt-4o|\bo1\b(?!-mini)|\bo3\b|\bo4-mini"
    r"|claude|gemini|grok-[\w.-]*vision|grok-4|-vl\b|-vl[-:]|vision")

#: the warning before sending an image to a model not known to see (the window translates it; ``{model}``)
MAY_NOT_SEE = QT_TRANSLATE_NOOP(
        "Attachments", "⚠ {model} may not see images: its server does not say, and it is not a model known to. "
                       "Send anyway (press Send again), or pick a model that can see, such as llava, gemma3 or "
                       "qwen2.5vl.")
#: the same on the terminal (``chat --attach``)
MAY_NOT_SEE_CLI = ("desktop-agent: warning: {model} may not see images: its server does not say, and it is not a "
                   "model known to. The image is sent anyway; pick a model that can see (--model) if the answer "
                   "does not describe it.")


def known_to_see(model: str) -> bool:
    """True when ``model``'s name is one of a family known to see images (llava, gemma3 but not gemma3:1b,
    qwen2.5vl, llama3.2-vision, gpt-4o, claude, gemini…)."""
    return bool(KNOWN_VISION.search(model.strip().lower()))


def sight(model: str, facts: ModelFacts | None) -> Sight:
    """``yes``: the server says the model sees, or it does not say and the name is known to; ``no``: the server
    says it does not; ``unknown``: the server does not say and the name is not one known to see."""
    if facts is not None and facts.capabilities is not None:
        return "yes" if "vision" in facts.capabilities else "no"
    return "yes" if known_to_see(model) else "unknown"
