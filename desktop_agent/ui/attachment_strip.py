"""The images of a tool call's result, as thumbnails under it in the tool-activity sidebar (they are not sent to
the model): read at thumbnail size, and a huge or broken image is a line saying so, never seconds of decoding on
the window's thread."""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:
    from desktop_agent.core.tools.results import Attachment

#: the longest side of a result's image thumbnail, in pixels (at most / at least)
THUMBNAIL = 160
SMALLEST = 64
#: the largest image (in pixels) a thumbnail is made of: a server's huge image (or a tiny file that says it is
#: 30000 × 30000) is a line saying so, not seconds of decoding and gigabytes on the window's thread
MOST_PIXELS = 40_000_000


class AttachmentStrip(QWidget):
    """The images of the shown call's result, as thumbnails in a row (hidden when there are none); an image that
    cannot be read is a line saying so."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("toolAttachments")
        self.setAccessibleName(translate("ToolSidebar", "Images of the result"))
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 4, 0, 0)
        self._row.setSpacing(6)
        self.labels: list[QLabel] = []
        self.setVisible(False)

    def show_attachments(self, attachments: tuple[Attachment, ...]) -> None:
        for label in self.labels:
            self._row.removeWidget(label)
            label.deleteLater()
        self.labels = []
        while self._row.count():  # the stretch
            self._row.takeAt(0)
        for att in attachments:
            label = QLabel()
            label.setObjectName("toolAttachment")
            pixmap, why = _thumbnail(att) if att.kind == "image" else (None, translate("ToolSidebar",
                    "cannot be shown here"))
            if pixmap is not None:
                label.setPixmap(pixmap)
                label.setToolTip(translate("ToolSidebar", "{mime_type}, {size:,} bytes").format(
                        mime_type=att.mime_type or 'image', size=len(att.data) * 3 // 4))
                label.setAccessibleName(translate("ToolSidebar", "Image of the result ({mime_type})").format(
                        mime_type=att.mime_type or 'image'))
            else:
                label.setText(f"[{att.kind}: {att.mime_type or 'unknown type'} — {why}]")
            self._row.addWidget(label)
            self.labels.append(label)
        self._row.addStretch(1)
        self.setVisible(bool(self.labels))


def _thumbnail(att: Attachment) -> tuple[QPixmap | None, str]:
    """The image of ``att`` read at thumbnail size (a big one is never decoded whole), or None and why not."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImageReader, QPixmap

    buffer = QBuffer()
    buffer.setData(QByteArray(_decoded(att.data)))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    size = reader.size()
    if not size.isValid() or size.isEmpty():
        return None, translate("ToolSidebar", "cannot be shown here")
    if size.width() * size.height() > MOST_PIXELS:
        return None, translate("ToolSidebar", "{width} × {height} pixels, too large to show here").format(
                width=size.width(), height=size.height())
    side = max(size.width(), size.height())
    if side > THUMBNAIL:  # big ones read shrunk
        reader.setScaledSize(size.scaled(THUMBNAIL, THUMBNAIL, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    if image.isNull():
        return None, translate("ToolSidebar", "cannot be shown here")
    if side < SMALLEST:  # icon-sized ones made visible
        image = image.scaled(SMALLEST, SMALLEST, Qt.AspectRatioMode.KeepAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
    return QPixmap.fromImage(image), ""


def _decoded(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=False)
    except (ValueError, binascii.Error):
        return b""
