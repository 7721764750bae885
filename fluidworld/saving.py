"""The save format of :meth:`World.snapshot` and :meth:`LevelSession.save`.

A save is a header and a payload::

    b"FLUIDWORLD-SAVE\\n"  magic (16 bytes)
    version              uint32, little-endian (this module writes :data:`VERSION`)
    length               uint64, the payload's length in bytes
    sha256               32 bytes, of the payload
    payload              a pickle of a dict (``{"world": World, ...}``)

Reading checks each part in turn and raises :class:`SaveError` (a ``ValueError``) naming what is
wrong: not a save (foreign data), a newer format, truncated, corrupt. Nothing is unpickled before
the checksum holds. The payload is a pickle: load only saves you trust.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import struct
from typing import Any

__all__ = ["MAGIC", "VERSION", "SaveError", "pack", "read_file", "unpack", "write_file"]

MAGIC = b"FLUIDWORLD-SAVE\n"
#: The format this fluidworld writes; it reads this one and older.
VERSION = 1
_HEAD = struct.Struct("<IQ32s")


class SaveError(ValueError):
    """A save that cannot be read: foreign, truncated, corrupt or of a newer format."""


def pack(payload: dict[str, Any]) -> bytes:
    """Header and pickled ``payload`` as bytes."""
    from . import __version__

    body = pickle.dumps({**payload, "fluidworld": __version__}, protocol=pickle.HIGHEST_PROTOCOL)
    return MAGIC + _HEAD.pack(VERSION, len(body), hashlib.sha256(body).digest()) + body


def unpack(data: bytes) -> dict[str, Any]:
    """The payload of :func:`pack` bytes.

    Raises:
        SaveError: Foreign, newer-format, truncated or corrupt data.
        TypeError: ``data`` is not bytes.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    data = bytes(data)
    if not data.startswith(MAGIC):
        raise SaveError("not a fluidworld save (no FLUIDWORLD-SAVE header)")
    start = len(MAGIC) + _HEAD.size
    if len(data) < start:
        raise SaveError("the save is truncated (its header is incomplete)")
    version, length, digest = _HEAD.unpack_from(data, len(MAGIC))
    if version > VERSION:
        raise SaveError(f"the save has format {version}; this fluidworld reads up to {VERSION}")
    body = data[start:]
    if len(body) < length:
        raise SaveError(f"the save is truncated ({len(body)} of {length} payload bytes)")
    body = body[:length]
    if hashlib.sha256(body).digest() != digest:
        raise SaveError("the save is corrupt (its checksum does not match)")
    try:
        payload = pickle.loads(body)
    except Exception as exc:  # a save written by an incompatible version of a class
        raise SaveError(f"the save cannot be read by this version: {exc}") from None
    if not isinstance(payload, dict):
        raise SaveError("the save's payload is not a fluidworld save")
    return payload


def write_file(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` through a temporary file, so a crash mid-write keeps the old save.

    Raises:
        TypeError: ``path`` is not a str or path.
        IsADirectoryError: ``path`` is a folder (name a file in it).
        FileNotFoundError: ``path``'s folder does not exist.
    """
    _check_path(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{os.fspath(path)!r} is a folder: give the save a file name in "
                                "it, e.g. 'game.fwsave'")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot save to {os.fspath(path)!r}: the folder {folder!r} "
                                "does not exist")
    tmp = f"{os.fspath(path)}.tmp"
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def _check_path(path: object) -> None:
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a str or os.PathLike, got {path!r}")


def read_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a save file (``FileNotFoundError`` if there is none, ``IsADirectoryError``
    naming the folder if ``path`` is one)."""
    _check_path(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{os.fspath(path)!r} is a folder, not a save file")
    with open(path, "rb") as fh:
        return fh.read()
