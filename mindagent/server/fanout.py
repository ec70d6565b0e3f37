"""A broadcast is encoded once for all the members it goes to.

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
from typing import Any


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
