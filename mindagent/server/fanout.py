"""A broadcast is encoded (and compressed) once for all the members it goes to.

`Frame` is the message dict (so test doubles and in-process members read it as before) with its
JSON text attached; `Connection.push` sends that text instead of encoding the dict again. The
attack run found a room of N spectators encoding the ~3.3 KB state N times per change, which made
a join cost O(N) encodings and let join churn in one room stall every other room.

Example::

    frame = Frame(server_message("event", room="r1", text="hi"))
    frame.text  # '{"type":"event",...}' computed once
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import Frame as WsFrame
from websockets.frames import Opcode
from websockets.typing import ExtensionParameter


def encode(message: dict[str, Any]) -> str:
    """The one wire encoding of a message (compact separators)."""
    return json.dumps(message, separators=(",", ":"))


class Frame(dict[str, Any]):
    """A message plus its encoded text; treat it as read-only once built."""

    __slots__ = ("text",)

    def __init__(self, message: dict[str, Any], text: str | None = None) -> None:
        super().__init__(message)
        self.text = encode(message) if text is None else text

    @classmethod
    def encoded(cls, message: dict[str, Any], text: str) -> Frame:
        """A frame whose text the caller built (parts encoded once and spliced); it must be the
        encoding of `message`, key order aside."""
        return cls(message, text)


def text_of(message: dict[str, Any]) -> str:
    """The wire text: the cached one of a `Frame`, else a fresh encoding."""
    return message.text if isinstance(message, Frame) else encode(message)


#: Compressed payloads kept for reuse (a broadcast reaches its members within a few loop turns).
SHARED_DEFLATE_ENTRIES = 256
#: Payloads shorter than this are compressed per connection (cheap, and rarely shared).
SHARED_DEFLATE_MIN_BYTES = 256


class _DeflateCache:
    """Compressed payloads by their uncompressed bytes (LRU), shared by every connection of the process."""

    def __init__(self, entries: int = SHARED_DEFLATE_ENTRIES) -> None:
        self.entries = entries
        self.items: OrderedDict[tuple[bytes, int], bytes] = OrderedDict()
        self.hits = 0
        self.misses = 0


deflate_cache = _DeflateCache()


class SharedDeflate(PerMessageDeflate):
    """permessage-deflate whose server side keeps no context between messages, so a message's
    compressed bytes are the same for every connection: a broadcast is compressed once (the cache
    above) instead of once per member. Costs some ratio on similar consecutive states."""

    def encode(self, frame: WsFrame) -> WsFrame:
        if (frame.opcode not in (Opcode.TEXT, Opcode.BINARY) or not frame.fin or not self.local_no_context_takeover
                or len(frame.data) < SHARED_DEFLATE_MIN_BYTES):
            return super().encode(frame)
        cache = deflate_cache
        key = (bytes(frame.data), self.local_max_window_bits)
        data = cache.items.get(key)
        if data is None:
            cache.misses += 1
            data = bytes(super().encode(frame).data)
            cache.items[key] = data
            if len(cache.items) > cache.entries:
                cache.items.popitem(last=False)
        else:
            cache.hits += 1
            cache.items.move_to_end(key)
        return WsFrame(frame.opcode, data, frame.fin, True, frame.rsv2, frame.rsv3)


class SharedDeflateFactory(ServerPerMessageDeflateFactory):
    """The server's deflate offer: websockets' defaults (12-bit windows, memLevel 5) plus
    ``server_no_context_takeover``, answered with `SharedDeflate`."""

    def __init__(self) -> None:
        super().__init__(server_no_context_takeover=True, server_max_window_bits=12, client_max_window_bits=12,
                         compress_settings={"memLevel": 5})

    def process_request_params(self, params: Sequence[ExtensionParameter],
                               accepted_extensions: Sequence[Extension]) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, ext = super().process_request_params(params, accepted_extensions)
        return response, SharedDeflate(ext.remote_no_context_takeover, ext.local_no_context_takeover,
                                       ext.remote_max_window_bits, ext.local_max_window_bits, ext.compress_settings)
