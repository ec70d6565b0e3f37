"""Records between the front process and its room workers, over one Unix socket pair per worker.

A record is a small JSON header plus an opaque payload (a websocket frame's text, a broadcast's
text, or a pickled object the front made itself): ``u32 header length, u32 payload length,
header, payload``. Texts travel as payload bytes so a 3 KB state is not escaped into JSON twice.
Both ends are this program, so the limits guard against bugs, not attackers: the front never
forwards a client's bytes beyond the frame size the protocol allows.

Example::

    write_record(writer, {"k": "frame", "c": 7}, b'{"v":1,"type":"ping"}')
    header, payload = await read_record(reader)
"""

from __future__ import annotations

import asyncio
import json
import struct
from typing import Any

_PREFIX = struct.Struct("!II")
#: A header is a few fields; a payload at most a broadcast state or a room listing.
MAX_HEADER_BYTES = 1 << 20
MAX_PAYLOAD_BYTES = 64 << 20


class RecordError(Exception):
    """The other side sent something that is not a record (a bug, or a process that died mid-write)."""


def pack(header: dict[str, Any], payload: bytes = b"") -> bytes:
    head = json.dumps(header, separators=(",", ":")).encode()
    return _PREFIX.pack(len(head), len(payload)) + head + payload


def write_record(writer: asyncio.StreamWriter, header: dict[str, Any], payload: bytes = b"") -> None:
    """Queue one record on the transport (never blocks; the peer is our own process)."""
    writer.write(pack(header, payload))


async def read_record(reader: asyncio.StreamReader) -> tuple[dict[str, Any], bytes]:
    """The next record; `asyncio.IncompleteReadError` at the end of the stream."""
    head_len, body_len = _PREFIX.unpack(await reader.readexactly(_PREFIX.size))
    if head_len > MAX_HEADER_BYTES or body_len > MAX_PAYLOAD_BYTES:
        raise RecordError(f"record of {head_len} + {body_len} bytes is over the limits")
    head = await reader.readexactly(head_len)
    payload = await reader.readexactly(body_len) if body_len else b""
    try:
        header = json.loads(head)
    except ValueError as exc:
        raise RecordError(f"record header is not JSON: {exc}") from None
    if not isinstance(header, dict) or not isinstance(header.get("k"), str):
        raise RecordError("record header has no kind")
    return header, payload
