"""Size limits on what others hand us, in one place so the docs (docs/reference/limits.md), the checks and the tests agree.

Every limit here exists because an input without it was seen to stall or exhaust something: a
10 MB model reply made a 302 MB recording, a 100,000-location kitchen hung the loader, a
``replay:/dev/zero`` model spec read until memory ran out.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: The most steps an episode may last; a game's own level limits stay at or under it.
MAX_EPISODE_STEPS = 100_000

#: Characters of one model reply kept, recorded and parsed; the rest is dropped and noted.
MAX_REPLY_CHARS = 65_536
#: Bytes of a file named by a model spec (``replay:<file>``) or given as a recording.
MAX_MODEL_FILE_BYTES = 64 * 1024 * 1024
#: Recording header bounds: agents, steps, tau (also the most steps a level may last).
MAX_AGENTS = 64
MAX_STEPS = MAX_EPISODE_STEPS
MAX_TAU = 1000.0
#: Bytes one recording may grow to while written (``MINDAGENT_MAX_RECORDING_MB`` changes it); at
#: the cap the file gets a ``cut`` line and no more. Also the most `mindagent replay` reads.
MAX_RECORDING_BYTES = 64 * 1024 * 1024
#: Characters of a recording header's text fields (level, domain, recipes path, rules).
MAX_HEADER_TEXT = 4096


def read_regular_file(path: Path, limit: int, error: type[ValueError], hint: str = "") -> bytes:
    """The bytes of a regular file of at most `limit` bytes, refused by its size before a byte is
    read (a FIFO or a device in its place is refused too, not waited on); every failure is one
    `error` line naming the file (`hint` says how to raise the limit, where one can)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise error(f"{path}: not a regular file")
            if info.st_size > limit:
                raise error(f"{path}: {info.st_size} bytes, over the limit of {limit}{hint}")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise error(f"{path}: grew past the limit of {limit} bytes while read")
    return data
