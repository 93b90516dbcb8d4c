"""Whether an image file is whole: its structure read to its end, without decoding its pixels (so a valid image
of any size is whole, and a cut or garbled one is not sent to a model that would invent what it shows).

- PNG: the chunks, each with its CRC, from ``IHDR`` to ``IEND``, with image data (``IDAT``) between.
- JPEG: the segments from SOI to the start of the scan, a frame header (SOF) among them, then EOI after the scan.
- GIF: the screen descriptor, colour tables, extensions and image blocks to the trailer, at least one image.
- WebP: the RIFF size matches the file, and its first chunk (``VP8 ``, ``VP8L``, ``VP8X``) fits in it.

Core only (no Qt, no imaging library).
"""

from __future__ import annotations

import struct
import zlib

__all__ = ["image_is_whole"]


def image_is_whole(data: bytes, mime: str) -> bool:
    """True when ``data`` (of type ``mime``: ``image/png``, ``image/jpeg``, ``image/gif``, ``image/webp``) is a
    whole image file; other types are taken as whole."""
    check = _CHECKS.get(mime)
    if check is None:
        return True
    try:
        return check(data)
    except (struct.error, IndexError, ValueError):
        return False


def _png(data: bytes) -> bool:
    pos, first, has_data = 8, True, False
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from(">I", data, pos)
        kind = data[pos + 4:pos + 8]
        end = pos + 8 + length
        if length > 0x7FFFFFFF or end + 4 > len(data):
            return False  # cut short
        (crc,) = struct.unpack_from(">I", data, end)
        if zlib.crc32(data[pos + 4:end]) & 0xFFFFFFFF != crc:
            return False  # garbled
        if first and kind != b"IHDR":
            return False
        first = False
        has_data = has_data or kind == b"IDAT"
        if kind == b"IEND":
            return has_data
        pos = end + 4
    return False  # no IEND: cut short


#: JPEG markers without a length (SOI, EOI, RSTn, TEM)
_STANDALONE = {0xD8, 0xD9, 0x01, *range(0xD0, 0xD8)}
#: frame headers (SOF0…SOF15 but DHT, JPG and DAC)
_SOF = set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg(data: bytes) -> bool:
    pos, frame = 2, False
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            return False
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in _STANDALONE:
            if marker == 0xD9:
                return False  # EOI before any scan
            pos += 2
            continue
        (length,) = struct.unpack_from(">H", data, pos + 2)
        if length < 2 or pos + 2 + length > len(data):
            return False
        frame = frame or marker in _SOF
        pos += 2 + length
        if marker == 0xDA:  # start of scan: the entropy-coded data runs to EOI
            return frame and data.find(b"\xff\xd9", pos) != -1
    return False


def _gif(data: bytes) -> bool:
    if len(data) < 13:
        return False
    flags = data[10]
    pos = 13 + (3 * 2 ** ((flags & 7) + 1) if flags & 0x80 else 0)
    images = 0
    while pos < len(data):
        block = data[pos]
        if block == 0x3B:  # trailer
            return images > 0
        if block == 0x21:  # extension: label, then sub-blocks
            pos = _sub_blocks(data, pos + 2)
        elif block == 0x2C:  # image descriptor, local colour table, LZW code size, sub-blocks
            if pos + 10 > len(data):
                return False
            local = data[pos + 9]
            pos += 10 + (3 * 2 ** ((local & 7) + 1) if local & 0x80 else 0)
            pos = _sub_blocks(data, pos + 1)
            images += 1
        else:
            return False
        if pos < 0:
            return False
    return False  # no trailer: cut short


def _sub_blocks(data: bytes, pos: int) -> int:
    """The position after the sub-blocks at ``pos`` (-1: they run past the end)."""
    while pos < len(data):
        size = data[pos]
        pos += 1 + size
        if size == 0:
            return pos if pos <= len(data) else -1
    return -1


def _webp(data: bytes) -> bool:
    (riff,) = struct.unpack_from("<I", data, 4)
    if riff < 12 or riff + 8 > len(data) or data[12:16] not in (b"VP8 ", b"VP8L", b"VP8X"):
        return False
    (chunk,) = struct.unpack_from("<I", data, 16)
    return 20 + chunk <= riff + 8


_CHECKS = {"image/png": _png, "image/jpeg": _jpeg, "image/gif": _gif, "image/webp": _webp}
