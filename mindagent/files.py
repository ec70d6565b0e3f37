"""Reading a file someone else named (a recording, a cassette, a model spec's file) without
letting it stall or swamp the process: only a regular file, only up to a size limit.

A FIFO would block the reader on open (in a game server, every room with it) and a device like
``/dev/zero`` would never end; both are refused before a byte is read, and a file that grows
while read is refused rather than read past its limit.

Example::

    try:
        data = read_bounded(Path("run.jsonl"), 64 << 20)
    except BoundedReadError as exc:
        print(f"run.jsonl: {exc}")
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class BoundedReadError(Exception):
    """Why the file was not read, in words that follow its name."""


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of `path` if it is a regular file of at most `limit` bytes."""
    try:
        # O_NONBLOCK: a FIFO in the file's place is not waited on at open
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise BoundedReadError("not a regular file")
            if info.st_size > limit:
                raise BoundedReadError(f"{info.st_size} bytes, over the limit (at most {limit} are read)")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise BoundedReadError(f"cannot read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise BoundedReadError(f"grew past the limit of {limit} bytes while read")
    return data
