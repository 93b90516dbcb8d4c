"""The tool sidebar's result images (ui/attachment_strip.py): a server's image is read at thumbnail
size, and one that says it is huge (a tiny file declaring 30000 × 30000 pixels) is a line saying so instead of
gigabytes decoded on the window's thread."""

from __future__ import annotations

import base64
import struct
import zlib

from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtGui import QColor, QImage

from desktop_agent.core.tools.results import Attachment
from desktop_agent.ui.attachment_strip import THUMBNAIL, AttachmentStrip


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _declared_png(width: int, height: int) -> str:
    """A valid PNG header for ``width`` × ``height`` RGBA with almost no pixel data (a decompression bomb's shape)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    body = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(b"\0" * 64))
    return base64.b64encode(body + _chunk(b"IEND", b"")).decode()


def _png(width: int, height: int) -> str:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("teal"))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return base64.b64encode(bytes(buffer.data())).decode()


def test_a_huge_declared_image_is_a_line_not_a_decode(qtbot):
    strip = AttachmentStrip()
    qtbot.addWidget(strip)
    strip.show_attachments((Attachment("image", "image/png", _declared_png(7000, 7000)),))
    (label,) = strip.labels
    assert label.pixmap().isNull()
    assert "7000 × 7000 pixels, too large to show here" in label.text()


def test_a_big_image_is_read_at_thumbnail_size(qtbot):
    strip = AttachmentStrip()
    qtbot.addWidget(strip)
    strip.show_attachments((Attachment("image", "image/png", _png(2000, 1000)),
                            Attachment("image", "image/png", _png(8, 8)),
                            Attachment("image", "image/png", base64.b64encode(b"not an image").decode())))
    big, small, broken = strip.labels
    assert (big.pixmap().width(), big.pixmap().height()) == (THUMBNAIL, THUMBNAIL // 2)
    assert small.pixmap().width() == 64
    assert "cannot be shown here" in broken.text()
