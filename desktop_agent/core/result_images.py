"""The images of a tool's result kept with the chat: what the live turn shows (base64, as the tool gave them;
:class:`~desktop_agent.core.tools.results.Attachment`) becomes the ``role="tool"`` message's attachments —
stored once by content with the chat (:mod:`desktop_agent.core.store.attachments`) and never sent to the model
(the model reads the result's one-line summary) — and, when the chat is opened again, what the sidebar shows."""

from __future__ import annotations

import base64
import binascii
import hashlib
import mimetypes
from collections.abc import Iterable

from desktop_agent.core.messages import Attachment, Message
from desktop_agent.core.tools.results import Attachment as Shown


def to_saved(shown: Iterable[Shown], call_id: str = "") -> list[Attachment]:
    """The images of a result as attachments of its tool message (one that is not valid base64, or audio, is
    left out: only images are kept)."""
    out: list[Attachment] = []
    for i, item in enumerate(shown, 1):
        if item.kind != "image":
            continue
        try:
            data = base64.b64decode(item.data, validate=False)
        except (ValueError, binascii.Error):
            continue
        if not data:
            continue
        mime = item.mime_type or "image/png"
        ext = mimetypes.guess_extension(mime) or ".img"
        name = f"result-{call_id or 'image'}-{i}{ext}"
        out.append(Attachment(sha256=hashlib.sha256(data).hexdigest(), name=name, mime=mime, size=len(data),
                              kind="image", data=data))
    return out


def to_shown(message: Message) -> tuple[Shown, ...]:
    """The images a saved tool message keeps, as the sidebar shows a live result's (one whose stored copy is gone
    shows as "cannot be shown here")."""
    out = []
    for a in message.attachments:
        if a.kind != "image":
            continue
        try:
            data = base64.b64encode(a.read_bytes()).decode("ascii")
        except OSError:
            data = ""
        out.append(Shown("image", a.mime, data))
    return tuple(out)
