"""What an attached file becomes: :func:`attach_file` / :func:`attach_bytes` → an
:class:`~desktop_agent.core.messages.Attachment`.

- Text and code files (any file that decodes as text: UTF-8, UTF-16 with a byte order mark, or the encoding
  ``chardet`` finds) → their text, cut to :data:`TEXT_CAP_CHARS` characters (``truncated`` says so).
- PDFs → their text (``pypdf``, imported only when a PDF is attached), cut the same way; a damaged PDF or one
  without text (scanned pages) is ``unreadable``.
- PNG, JPEG, GIF and WebP images → images, sent as themselves to a model that can see; an image cut short or
  garbled (its structure read to its end: :mod:`desktop_agent.core.image_check`) is ``damaged``.
- Anything else (binary files), files over :data:`MAX_FILE_BYTES` and empty files → ``unreadable`` with the
  ``problem``: shown on the file's chip, and nothing of it is sent.

Core only (no Qt): the window, the terminal chat and the importer use it.
"""

from __future__ import annotations

import base64
import hashlib
import mimetypes
import os
from pathlib import Path

from desktop_agent.core.image_check import image_is_whole
from desktop_agent.core.messages import Attachment, AttachmentProblem, Message, images_of, text_for_model

#: the largest file that is read at all (bytes)
MAX_FILE_BYTES = 20 * 1024 * 1024
#: the largest image sent to a model (bytes; servers refuse bigger ones)
MAX_IMAGE_BYTES = 10 * 1024 * 1024
#: how much of a text file or PDF's text the model gets (characters, ≈ 25,000 tokens)
TEXT_CAP_CHARS = 100_000
#: how many pages of a PDF are read at most
MAX_PDF_PAGES = 500

#: image types every vision model takes, by their first bytes
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
#: image types models do not take (told as such rather than "binary")
_OTHER_IMAGES = (b"BM", b"II*\x00", b"MM\x00*", b"\x00\x00\x01\x00")


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def attach_file(path: str | os.PathLike[str]) -> Attachment:
    """The attachment for the file at ``path`` (never raises: a file that cannot be read is ``unreadable``)."""
    p = Path(path)
    name = p.name or str(p)
    try:
        size = p.stat().st_size
        if not p.is_file():
            return _unreadable(name, "", 0, "not_found")
        if size > MAX_FILE_BYTES:
            return _unreadable(name, "", size, "too_big")
        data = p.read_bytes()
    except OSError:
        return _unreadable(name, "", 0, "not_found")
    return attach_bytes(name, data)


def attach_bytes(name: str, data: bytes, mime: str | None = None) -> Attachment:
    """The attachment for ``data`` named ``name`` (a pasted image, an imported file). ``mime``: what the source
    says it is (the content decides what it becomes)."""
    sha = sha256_of(data)
    size = len(data)
    guessed = mime or mimetypes.guess_type(name)[0] or "application/octet-stream"
    if size == 0:
        return _unreadable(name, sha, 0, "empty", guessed)
    if size > MAX_FILE_BYTES:
        return _unreadable(name, sha, size, "too_big", guessed)
    image = _image_type(data)
    if image is not None:
        if size > MAX_IMAGE_BYTES:
            return _unreadable(name, sha, size, "too_big", image)
        if not image_is_whole(data, image):  # cut short or garbled: the model would invent what it shows
            return _unreadable(name, sha, size, "damaged", image, data)
        return Attachment(sha256=sha, name=name, mime=image, size=size, kind="image", data=data)
    if data.startswith(b"%PDF-"):
        return _pdf(name, sha, data)
    if data.startswith(_OTHER_IMAGES) or guessed.startswith("image/"):
        return _unreadable(name, sha, size, "unsupported_image", guessed, data)
    text = decode_text(data)
    if text is None:
        return _unreadable(name, sha, size, "binary", guessed, data)
    if not text.strip():
        return _unreadable(name, sha, size, "empty", guessed, data)
    mime = guessed if guessed.startswith("text/") or guessed in _TEXT_LIKE else "text/plain"
    cut = len(text) > TEXT_CAP_CHARS
    return Attachment(sha256=sha, name=name, mime=mime, size=size, kind="text", text=text[:TEXT_CAP_CHARS],
                      truncated=cut, data=data)


_TEXT_LIKE = {"application/json", "application/xml", "application/javascript", "application/x-sh",
              "application/toml", "application/x-yaml", "application/sql"}


def _unreadable(name: str, sha: str, size: int, problem: AttachmentProblem, mime: str = "application/octet-stream",
                data: bytes | None = None) -> Attachment:
    return Attachment(sha256=sha, name=name, mime=mime, size=size, kind="unreadable", problem=problem, data=data)


def _image_type(data: bytes) -> str | None:
    for magic, mime in _IMAGE_MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def decode_text(data: bytes) -> str | None:
    """``data`` as text, or None when it is not text (NUL bytes outside UTF-16, control characters, or no
    encoding fits)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return _decoded(data[3:], "utf-8")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return _decoded(data, "utf-16")
    head = data[:65536]
    if b"\x00" in head:
        return None
    text = _decoded(data, "utf-8")
    if text is not None:
        return text if _looks_like_text(text) else None
    import chardet  # lazily: only a file that is not UTF-8 needs it

    guess = chardet.detect(head)
    encoding = guess.get("encoding")
    if not encoding or (guess.get("confidence") or 0) < 0.3:
        return None
    text = _decoded(data, encoding)
    return text if text is not None and _looks_like_text(text) else None


def _decoded(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def _looks_like_text(text: str) -> bool:
    sample = text[:8192]
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f\v\x1b")
    return controls <= len(sample) // 100


def _pdf(name: str, sha: str, data: bytes) -> Attachment:
    import io
    import logging

    from pypdf import PdfReader  # lazily: a big library, needed only when a PDF is attached

    size = len(data)
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # a damaged PDF is told on its chip, not in the log
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception:  # noqa: BLE001 - a password-protected PDF is a PDF that cannot be read
                return _unreadable(name, sha, size, "damaged", "application/pdf", data)
        count = len(reader.pages)
        pages: list[str] = []
        total = 0
        for i, page in enumerate(reader.pages):
            if i >= MAX_PDF_PAGES or total > TEXT_CAP_CHARS:
                break
            text = (page.extract_text() or "").strip()
            pages.append(text)
            total += len(text)
    except Exception:  # noqa: BLE001 - pypdf raises many kinds of errors for damaged files
        return _unreadable(name, sha, size, "damaged", "application/pdf", data)
    text = "\n\n".join(p for p in pages if p)
    if not text.strip():
        return _unreadable(name, sha, size, "no_text", "application/pdf", data)
    cut = len(text) > TEXT_CAP_CHARS or len(pages) < count
    return Attachment(sha256=sha, name=name, mime="application/pdf", size=size, kind="pdf",
                      text=text[:TEXT_CAP_CHARS], truncated=cut, data=data)


def without_images(messages: list[Message]) -> tuple[list[Message], list[str]]:
    """``messages`` for a model that cannot see: each attached image left out, and named in its message's text
    instead (the messages given are not changed); and the names of the images left out."""
    out: list[Message] = []
    left: list[str] = []
    for m in messages:
        images = images_of(m)
        if not images:
            out.append(m)
            continue
        left += [a.name for a in images]
        notes = "\n".join(f"[The attached image {a.name} was left out: this model cannot see images.]" for a in images)
        out.append(m.model_copy(update={"attachments": [a for a in m.attachments if a.kind != "image"],
                                        "content": f"{m.content}\n\n{notes}" if m.content else notes}))
    return out, left


def wire_parts(m: Message) -> tuple[str, list[tuple[str, str]]]:
    """A user message as a backend sends it: its text for the model (:func:`text_for_model`) and its images as
    ``(mime, base64)``; an image whose bytes are gone is named in the text instead."""
    text = text_for_model(m)
    images: list[tuple[str, str]] = []
    for a in images_of(m):
        try:
            images.append((a.mime, base64.b64encode(a.read_bytes()).decode("ascii")))
        except OSError:
            text += f"\n\n[The attached image {a.name} could not be sent: its stored copy is gone.]"
    return text, images
