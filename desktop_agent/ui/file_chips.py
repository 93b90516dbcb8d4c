"""Attached files as chips: in the compose box before sending (:class:`FileTray`: dropped, pasted or picked
files, each read off the window's thread, removable, with the warning that the chosen model cannot see images),
and on a sent message (:class:`SentFiles`). A chip shows a thumbnail for an image, else a file icon, the file's
name, size and kind — or why it cannot be used; an image chip opens the image bigger (:class:`ImagePreview`).

What a file becomes is :mod:`desktop_agent.core.attachments`'s job (imported only when a file is attached).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QBuffer, QByteArray, QObject, QSize, Qt, Signal
from PySide6.QtGui import QImage, QImageReader, QImageWriter, QKeyEvent, QMouseEvent, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.vision import MAY_NOT_SEE, Sight, sight
from desktop_agent.ui import icons, theme
from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:
    from desktop_agent.core.messages import Attachment, AttachmentProblem
    from desktop_agent.core.model_info import ModelFacts

#: a chip's thumbnail, in pixels
THUMB = 36
#: the longest side of an image shown bigger
PREVIEW_MAX = QSize(1000, 760)

KINDS = {
    "text": QT_TRANSLATE_NOOP("Attachments", "text"),
    "pdf": QT_TRANSLATE_NOOP("Attachments", "PDF"),
    "image": QT_TRANSLATE_NOOP("Attachments", "image"),
}
PROBLEMS = {
    "binary": QT_TRANSLATE_NOOP("Attachments", "not a text file, PDF or image — not sent"),
    "too_big": QT_TRANSLATE_NOOP("Attachments", "too big to send"),
    "damaged": QT_TRANSLATE_NOOP("Attachments", "damaged or protected — not sent"),
    "no_text": QT_TRANSLATE_NOOP("Attachments", "this PDF has no text (scanned?) — not sent"),
    "empty": QT_TRANSLATE_NOOP("Attachments", "empty — not sent"),
    "unsupported_image": QT_TRANSLATE_NOOP("Attachments", "models take PNG, JPEG, GIF or WebP — not sent"),
    "missing": QT_TRANSLATE_NOOP("Attachments", "its stored copy is gone"),
    "not_found": QT_TRANSLATE_NOOP("Attachments", "cannot be opened — not sent"),
}


def size_text(n: int) -> str:
    if n < 1024:
        return translate("Attachments", "{n} B").format(n=n)
    if n < 1024 * 1024:
        return translate("Attachments", "{n} KB").format(n=f"{n / 1024:.0f}" if n >= 10240 else f"{n / 1024:.1f}")
    return translate("Attachments", "{n} MB").format(n=f"{n / 1048576:.1f}")


def detail_text(a: Attachment) -> str:
    """``12 KB · PDF``; ``12 KB · PDF · cut to fit``; or why it cannot be used."""
    if a.problem == "damaged" and a.mime.startswith("image/"):
        return translate("Attachments", "damaged — not sent")
    if a.problem:
        return translate("Attachments", PROBLEMS.get(a.problem, PROBLEMS["damaged"]))
    parts = [size_text(a.size), translate("Attachments", KINDS.get(a.kind, a.kind))]
    if a.truncated:
        parts.append(translate("Attachments", "only the beginning is sent"))
    return " · ".join(parts)


def thumbnail(data: bytes, side: int) -> QImage:
    """An image's thumbnail (read at that size: a big photo is not decoded whole); a null image when unreadable.
    Safe off the window's thread."""
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    reader = QImageReader(buffer)
    size = reader.size()
    if size.isValid() and size.width() * size.height() > 0:
        reader.setScaledSize(size.scaled(side, side, Qt.AspectRatioMode.KeepAspectRatio))
    return reader.read()


class FileChip(QFrame):
    """One attached file. ``removable`` (the compose box): a × button, and Delete/Backspace on the focused chip.
    An image chip opens the image bigger on a click, Enter or Space."""

    remove_requested = Signal(object)

    def __init__(self, name: str, *, removable: bool, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("fileChip")
        self.attachment: Attachment | None = None
        self.image: QImage | None = None
        self.name = name
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 4, 4 if removable else 8, 4)
        row.setSpacing(6)
        self.thumb = QLabel()
        self.thumb.setFixedSize(THUMB, THUMB)
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        row.addWidget(self.thumb)
        texts = QVBoxLayout()
        texts.setSpacing(0)
        self.title = QLabel()
        self.title.setObjectName("fileChipName")
        self.detail = QLabel(translate("Attachments", "reading…"))
        self.detail.setObjectName("fileChipDetail")
        texts.addWidget(self.title)
        texts.addWidget(self.detail)
        row.addLayout(texts)
        self.remove: QToolButton | None = None
        if removable:
            self.remove = QToolButton()
            self.remove.setObjectName("fileChipRemove")
            self.remove.setText("×")
            self.remove.setAutoRaise(True)
            self.remove.setToolTip(translate("Attachments", "Remove this file (Delete)"))
            self.remove.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keyboard: Delete in the row of files
            self.remove.setAccessibleName(translate("Attachments", "Remove {name}").format(name=name))
            self.remove.clicked.connect(lambda: self.remove_requested.emit(self))
            row.addWidget(self.remove, 0, Qt.AlignmentFlag.AlignTop)
        self.title.setText(self.title.fontMetrics().elidedText(name, Qt.TextElideMode.ElideMiddle, 180))
        self.title.setToolTip(name)
        self._describe()
        self.restyle()

    def _icon(self, name: str) -> None:
        self.thumb.setPixmap(icons.icon(name, theme.current().muted).pixmap(22, 22))

    def set_attachment(self, attachment: Attachment, image: QImage | None = None) -> None:
        """What the file became (after it was read), with its thumbnail for an image."""
        self.attachment = attachment
        self.image = image if image is not None and not image.isNull() else None
        if self.image is not None:
            self.thumb.setPixmap(QPixmap.fromImage(self.image).scaled(
                    THUMB, THUMB, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation))
            self.setCursor(Qt.CursorShape.PointingHandCursor)
            self.setToolTip(translate("Attachments", "Click to see the image bigger"))
        self.detail.setText(detail_text(attachment))
        self.setProperty("problem", bool(attachment.problem))
        self._describe()
        self.restyle()

    def _describe(self) -> None:
        a = self.attachment
        if a is None:
            text = translate("Attachments", "{name}, being read").format(name=self.name)
        elif a.problem:
            text = translate("Attachments", "{name}, cannot be used: {why}").format(name=self.name, why=detail_text(a))
        else:
            text = translate("Attachments", "Attached file {name}, {detail}").format(name=self.name,
                                                                                   detail=detail_text(a))
        self.setAccessibleName(text)

    @property
    def shows_image(self) -> bool:
        return self.attachment is not None and self.attachment.kind == "image" and self.attachment.problem is None

    def open_preview(self) -> None:
        if self.shows_image and self.attachment is not None:
            ImagePreview(self.attachment, self.window()).open()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.open_preview()
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self.remove is not None and event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.remove_requested.emit(self)
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and self.shows_image:
            self.open_preview()
            return
        super().keyPressEvent(event)

    def restyle(self) -> None:
        th = theme.current()
        if self.attachment is None or (self.image is None and not self.attachment.problem):
            self._icon("file")
        elif self.image is None:
            self._icon("warning")
        self.setStyleSheet(
            f"""
            QFrame#fileChip {{ background: {th.base}; border: 1px solid {th.assistant_border}; border-radius: 9px; }}
            QFrame#fileChip:focus, QFrame#fileChip[current="true"] {{ border: 2px solid {th.accent}; }}
            QFrame#fileChip[problem="true"] {{ border-color: {th.err}; }}
            QLabel#fileChipName {{ color: {th.text}; font-weight: 600; }}
            QLabel#fileChipDetail {{ color: {th.err if self.property("problem") else th.muted}; }}
            QToolButton#fileChipRemove {{ color: {th.muted}; border: none; font-size: 15px; padding: 0 4px; }}
            QToolButton#fileChipRemove:hover {{ color: {th.text}; }}
            """
        )


class FileTray(QWidget):
    """The files attached to the message being written (hidden when none): chips in a row, and a warning when the
    chosen model cannot see the attached images (the message is then not sent: :meth:`blocked`), or may not (its
    server does not say and it is not a model known to see: the first Send is held, the next sends anyway).

    The row is one stop of the Tab order (just before Attach files and the text): Left and Right choose a file,
    Delete or Backspace removes it, Enter or Space shows an image bigger; its accessible name says which file.

    Files are read off the window's thread through ``run_task`` (``run_task(fn, on_done)``, the controller's task
    runner; set by the window once it has one — before, a file is read at once)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("fileTray")
        self.setAccessibleName(translate("Attachments", "Attached files"))
        self.setAccessibleDescription(translate("Attachments", "Left and Right choose a file, Delete removes it"))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        #: the file the keyboard is on
        self.current = 0
        self.run_task: Callable[[Callable[[Any], Any], Callable[[Any, BaseException | None], None]], Any] | None = None
        self.chips: list[FileChip] = []
        #: images pasted for this message (their names count them)
        self._pasted = 0
        self.model = ""
        #: whether the model sees images: as its server says, else by its name (``core.vision``)
        self.sight: Sight = "yes"
        self.can_see: bool = True
        #: the user was told the model may not see the images: the next Send sends them anyway
        self.send_anyway = False
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(4)
        self.warning = QLabel()
        self.warning.setObjectName("visionWarning")
        self.warning.setWordWrap(True)
        self.warning.setVisible(False)
        col.addWidget(self.warning)
        self.strip = QScrollArea()
        self.strip.setWidgetResizable(True)
        self.strip.setFrameShape(QFrame.Shape.NoFrame)
        self.strip.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.strip.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.strip.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        inner = QWidget()
        inner.setObjectName("fileTrayRow")
        self.row = QHBoxLayout(inner)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(6)
        self.row.addStretch(1)
        self.strip.setWidget(inner)
        col.addWidget(self.strip)
        self.setVisible(False)
        self.restyle()

    # ---- adding and removing ---------------------------------------------------------------------------

    def add_paths(self, paths: list[str]) -> None:
        """Attach files by path (a drop, the file dialog)."""
        from pathlib import Path

        for path in paths:
            self._read(Path(path).name or path, functools.partial(_read_path, path))

    def add_image(self, image: QImage, name: str = "") -> None:
        """Attach an image from the clipboard (saved as PNG)."""
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QBuffer.OpenModeFlag.WriteOnly)
        QImageWriter(buffer, QByteArray(b"PNG")).write(image)
        png = bytes(data.data())
        self._pasted += 1
        name = name or translate("Attachments", "pasted image {n}.png").format(n=self._pasted)
        self._read(name, lambda _task: _read_bytes(name, png))

    def _new_chip(self, name: str) -> FileChip:
        chip = FileChip(name, removable=True)
        chip.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the row takes the keyboard (see the class docstring)
        chip.remove_requested.connect(self.remove_chip)
        return chip

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = Qt.Key(event.key())
        if self.chips and key in (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home, Qt.Key.Key_End):
            last = len(self.chips) - 1
            self.current = {Qt.Key.Key_Left: max(0, self.current - 1), Qt.Key.Key_Right: min(last, self.current + 1),
                            Qt.Key.Key_Home: 0, Qt.Key.Key_End: last}[key]
            self._mark()
        elif self.chips and key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.remove_chip(self.chips[min(self.current, len(self.chips) - 1)])
        elif self.chips and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.chips[min(self.current, len(self.chips) - 1)].open_preview()
        else:
            super().keyPressEvent(event)

    def focusInEvent(self, event: Any) -> None:
        super().focusInEvent(event)
        self._mark()

    def focusOutEvent(self, event: Any) -> None:
        super().focusOutEvent(event)
        self._mark()

    def _mark(self) -> None:
        """The file the keyboard is on has a ring (while the row has the focus), and the row's name says it."""
        self.current = max(0, min(self.current, len(self.chips) - 1))
        for i, chip in enumerate(self.chips):
            on = self.hasFocus() and i == self.current
            if bool(chip.property("current")) != on:
                chip.setProperty("current", on)
                chip.style().unpolish(chip)
                chip.style().polish(chip)
        if self.chips:
            chip = self.chips[self.current]
            self.strip.ensureWidgetVisible(chip)
            self.setAccessibleName(translate("Attachments", "Attached files: {file} ({n} of {count})").format(
                    file=chip.accessibleName(), n=self.current + 1, count=len(self.chips)))
        else:
            self.setAccessibleName(translate("Attachments", "Attached files"))

    def _read(self, name: str, fn: Callable[[Any], tuple[Attachment, QImage | None]]) -> None:
        chip = self._new_chip(name)
        self.chips.append(chip)
        self.row.insertWidget(self.row.count() - 1, chip)
        self._update()

        def done(result: Any, error: BaseException | None) -> None:
            if chip not in self.chips:
                return  # removed while it was read
            if error is not None or result is None:
                from desktop_agent.core.attachments import attach_bytes

                result = (attach_bytes(name, b""), None)
            chip.set_attachment(*result)
            self._update()

        if self.run_task is None:
            try:
                done(fn(None), None)
            except Exception as exc:  # noqa: BLE001 - a file that cannot be read is told on its chip
                done(None, exc)
        else:
            self.run_task(fn, done)

    def remove_chip(self, chip: FileChip) -> None:
        if chip not in self.chips:
            return
        index = self.chips.index(chip)
        self.chips.remove(chip)
        self.row.removeWidget(chip)
        chip.hide()
        chip.deleteLater()
        if not self.chips and self.hasFocus():  # the last file went: the keyboard goes on to the text
            self.focusNextChild()
        self.current = min(index, len(self.chips) - 1)  # the keyboard stays in the row: on the next file
        self._update()

    def clear(self) -> None:
        self._pasted = 0
        for chip in list(self.chips):
            self.chips.remove(chip)
            self.row.removeWidget(chip)
            chip.hide()  # gone from the row now, whenever it is deleted
            chip.deleteLater()
        self._update()

    def restore(self, attachments: list[Attachment]) -> None:
        """Put back the files of a message that could not be sent (nothing the user attached is lost)."""
        if self.chips:
            return
        for a in attachments:
            chip = self._new_chip(a.name)
            image = thumbnail(a.read_bytes(), THUMB * 2) if a.kind == "image" and a.data is not None else None
            chip.set_attachment(a, image)
            self.chips.append(chip)
            self.row.insertWidget(self.row.count() - 1, chip)
        self._update()

    # ---- what is sent -----------------------------------------------------------------------------------

    def attachments(self) -> list[Attachment]:
        """The files that will be sent (read, and usable)."""
        return [c.attachment for c in self.chips if c.attachment is not None and c.attachment.kind != "unreadable"]

    def reading(self) -> bool:
        return any(c.attachment is None for c in self.chips)

    def take(self) -> list[Attachment]:
        """The files to send, and the tray emptied."""
        out = self.attachments()
        self.clear()
        return out

    def has_images(self) -> bool:
        return any(a.kind == "image" for a in self.attachments())

    def blocked(self) -> str:
        """Why the message cannot be sent as it is ("" when it can): files still being read, images for a model
        whose server says it cannot see, or — the first time only — images for a model not known to see (the
        warning says so; the next Send sends them anyway)."""
        if self.reading():
            return translate("Attachments", "Wait a moment: the attached files are still being read.")
        if self.chips and self.run_task is None:  # the window is still starting: files go once it can send them
            return translate("Attachments", "Wait a moment: the app is still starting.")
        if self.has_images() and not self.can_see:
            return self.warning.text()
        if self.has_images() and self.sight == "unknown" and not self.send_anyway:
            self.send_anyway = True  # told once, in the tray and the status bar: Send again sends
            return self.warning.text()
        return ""

    def set_model(self, model: str, facts: ModelFacts | None) -> None:
        """The model the message goes to, and what its server says it can do (None: not known yet)."""
        if model != self.model:
            self.send_anyway = False
        self.model = model
        self.sight = sight(model, facts)
        self.can_see = self.sight != "no"
        self._update()

    def _update(self) -> None:
        images = self.has_images()
        model = self.model or translate("Attachments", "This model")
        if images and not self.can_see:
            self.warning.setText(translate(
                    "Attachments", "⚠ {model} cannot see images (its server says it has no vision). Remove the "
                    "image or pick a model that can see images, such as llava, gemma3 or qwen2.5vl.").format(
                    model=model))
        elif images and self.sight == "unknown":
            self.warning.setText(translate("Attachments", MAY_NOT_SEE).format(model=model))
        if not images:
            self.send_anyway = False
        maybe = self.sight == "unknown"
        if bool(self.warning.property("maybe")) != maybe:
            self.warning.setProperty("maybe", maybe)
            self.warning.style().unpolish(self.warning)
            self.warning.style().polish(self.warning)
        self.warning.setVisible(images and self.sight != "yes")
        self.strip.setFixedHeight(THUMB + 16 + (self.strip.horizontalScrollBar().sizeHint().height()
                                                 if self.row.sizeHint().width() > self.strip.width() else 0))
        self.setVisible(bool(self.chips))
        self._mark()
        self.changed.emit()

    def restyle(self) -> None:
        th = theme.current()
        self.setStyleSheet(f"QLabel#visionWarning {{ color: {th.err}; }} "
                           f"QLabel#visionWarning[maybe=\"true\"] {{ color: {th.warn}; }} "
                           f"QWidget#fileTrayRow, QScrollArea {{ background: transparent; }}")
        for chip in self.chips:
            chip.restyle()


def _read_path(path: str, _task: Any = None) -> tuple[Attachment, QImage | None]:
    from desktop_agent.core.attachments import attach_file

    a = attach_file(path)
    return a, (thumbnail(a.read_bytes(), THUMB * 2) if a.kind == "image" else None)


def _read_bytes(name: str, data: bytes) -> tuple[Attachment, QImage | None]:
    from desktop_agent.core.attachments import attach_bytes

    a = attach_bytes(name, data)
    return a, (thumbnail(data, THUMB * 2) if a.kind == "image" else None)


class SentFiles(QWidget):
    """The files of a sent message, as chips (in its bubble, above its text)."""

    def __init__(self, attachments: list[Attachment], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("sentFiles")
        self.setAccessibleName(translate("Attachments", "Attached files"))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.chips: list[FileChip] = []
        waiting = False
        for a in attachments:
            chip = FileChip(a.name, removable=False)
            image = thumbnails().get(a) if a.kind == "image" and a.problem is None else None
            waiting = waiting or (a.kind == "image" and a.problem is None and image is None)
            if image is not None and image.isNull():
                a.problem = _unshown(a)
            chip.set_attachment(a, image)
            self.chips.append(chip)
            row.addWidget(chip)
        row.addStretch(1)
        if waiting:  # an image's thumbnail is made off the window's thread (a chat of big photos opens at once)
            thumbnails().ready.connect(self._thumbnail_ready)

    def _thumbnail_ready(self, sha256: str, image: QImage) -> None:
        for chip in self.chips:
            a = chip.attachment
            if a is not None and a.sha256 == sha256 and a.kind == "image" and chip.image is None:
                if image.isNull():
                    a.problem = _unshown(a)
                chip.set_attachment(a, image)

    def restyle(self) -> None:
        for chip in self.chips:
            chip.restyle()


def _unshown(a: Attachment) -> AttachmentProblem | None:
    """Why an image has no thumbnail: its stored copy is gone, or it is damaged; None for a whole image Qt would
    not decode (bigger than its allocation limit, such as 30000×30000 pixels: a file icon stands in)."""
    if a.data is None and a.path and not os.path.exists(a.path):
        return "missing"
    from desktop_agent.core.image_check import image_is_whole

    try:
        return None if image_is_whole(a.read_bytes(), a.mime) else "damaged"
    except OSError:
        return "missing"


class Thumbnails(QObject):
    """Thumbnails of sent images, made one at a time on a thread of their own and kept (by content) for the
    session: :meth:`get` gives a kept one at once, or None and :attr:`ready` ``(sha256, image)`` later (a null
    image when the file cannot be read)."""

    ready = Signal(str, QImage)
    #: how many thumbnails are kept
    KEEP = 500

    def __init__(self) -> None:
        super().__init__()
        self.kept: dict[str, QImage] = {}
        self._asked: set[str] = set()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="thumbnails")
        self._made.connect(self._keep, Qt.ConnectionType.QueuedConnection)

    _made = Signal(str, QImage)

    def get(self, attachment: Attachment) -> QImage | None:
        sha = attachment.sha256
        if sha in self.kept:
            return self.kept[sha]
        if sha not in self._asked:
            self._asked.add(sha)
            self._pool.submit(self._make, attachment)
        return None

    def _make(self, attachment: Attachment) -> None:  # on the pool's thread
        try:
            image = thumbnail(attachment.read_bytes(), THUMB * 2)
        except OSError:
            image = QImage()
        with contextlib.suppress(RuntimeError):  # the app is quitting
            self._made.emit(attachment.sha256, image)

    def _keep(self, sha256: str, image: QImage) -> None:
        self._asked.discard(sha256)
        if len(self.kept) >= self.KEEP:
            self.kept.pop(next(iter(self.kept)))
        self.kept[sha256] = image
        self.ready.emit(sha256, image)


_THUMBNAILS: list[Thumbnails] = []


def thumbnails() -> Thumbnails:
    """The window's one :class:`Thumbnails` (made on first use, on the window's thread)."""
    if not _THUMBNAILS:
        _THUMBNAILS.append(Thumbnails())
    return _THUMBNAILS[0]


class ImagePreview(QDialog):
    """An attached image, bigger (at most :data:`PREVIEW_MAX`); Esc or a click closes it."""

    def __init__(self, attachment: Attachment, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(attachment.name)
        self.setAccessibleName(translate("Attachments", "Image {name}").format(name=attachment.name))
        self.label = QLabel()
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        try:
            image = QImage.fromData(attachment.read_bytes())
        except OSError:
            image = QImage()
        if image.isNull():
            self.label.setText(translate("Attachments", "The image cannot be shown."))
        else:
            if image.width() > PREVIEW_MAX.width() or image.height() > PREVIEW_MAX.height():
                image = image.scaled(PREVIEW_MAX, Qt.AspectRatioMode.KeepAspectRatio,
                                     Qt.TransformationMode.SmoothTransformation)
            self.label.setPixmap(QPixmap.fromImage(image))
            self.label.setAccessibleName(self.accessibleName())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 8)
        lay.addWidget(self.label)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self.accept()

