"""A budget on the disk the rooms' recordings take: past it, the oldest practice recordings go.

Practice rooms are anonymous, so their recordings are the ones a stranger can make the server
write; they go in their own folder (`PRACTICE_FOLDER`) under the recordings folder. Whenever a
practice room closes, the folder is measured (every file under the recordings folder counts) and,
while the total is over the budget, the oldest practice recordings are deleted. Recordings of the
admin's rooms are never deleted: they are the study's data. If they alone pass the budget, a
warning says so (and practice recordings are still pruned down to none but the open ones).

The scan runs in a thread, one at a time; requests that arrive meanwhile make one more pass.

Example::

    budget = RecordingBudget(Path("recordings/rooms"), max_bytes=2 * 1024**3)
    budget.request()               # from the event loop, after a practice room closed
    report = budget.prune()        # or at once, in this thread
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

#: Where practice rooms' recordings go, under the server's recordings folder.
PRACTICE_FOLDER = "practice"
#: Bytes every recording under the server's recordings folder may take by default (2 GiB).
RECORDINGS_BUDGET = 2 * 1024**3


@dataclass(frozen=True)
class PruneReport:
    total_bytes: int
    deleted: int
    freed_bytes: int


def _files(folder: Path) -> list[tuple[float, int, Path]]:
    """(modified time, size, path) of every regular file under `folder`."""
    found: list[tuple[float, int, Path]] = []
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root) / name
            try:
                stat = path.lstat()
            except OSError:  # deleted meanwhile
                continue
            if path.is_file() and not path.is_symlink():
                found.append((stat.st_mtime, stat.st_size, path))
    return found


class RecordingBudget:
    def __init__(self, folder: Path, max_bytes: int | None = RECORDINGS_BUDGET) -> None:
        if max_bytes is not None and max_bytes < 0:
            raise ValueError("a recordings budget is a number of bytes, zero or more")
        self.folder = folder
        self.practice = folder / PRACTICE_FOLDER
        self.max_bytes = max_bytes
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._warned = False

    def prune(self) -> PruneReport:
        """Measure, and delete the oldest practice recordings while over the budget."""
        if self.max_bytes is None or not self.folder.is_dir():
            return PruneReport(0, 0, 0)
        files = _files(self.folder)
        total = sum(size for _, size, _ in files)
        deleted = freed = 0
        if total > self.max_bytes:
            practice = sorted((f for f in files if f[2].parent == self.practice), key=lambda f: (f[0], str(f[2])))
            for _, size, path in practice:
                if total <= self.max_bytes:
                    break
                try:
                    path.unlink()
                except OSError as exc:
                    log.warning("could not delete the practice recording %s: %s", path.name, exc)
                    continue
                total -= size
                deleted += 1
                freed += size
        if deleted:
            log.info("recordings over their budget of %d bytes: deleted the %d oldest practice recordings (%d bytes)",
                     self.max_bytes, deleted, freed)
        if total > self.max_bytes and not self._warned:
            self._warned = True
            log.warning("recordings in %s take %d bytes, over their budget of %d, and only practice recordings are "
                        "deleted: move some away or raise the budget", self.folder, total, self.max_bytes)
        return PruneReport(total, deleted, freed)

    def request(self) -> None:
        """Prune soon, in a thread (from the event loop; never blocks it)."""
        if self.max_bytes is None:
            return
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            self._again = False
            try:
                await asyncio.to_thread(self.prune)
            except Exception:
                log.exception("measuring the recordings folder %s failed", self.folder)
            if not self._again:
                return

    async def idle(self) -> None:
        """Wait for a prune in progress (tests; and the server's stop)."""
        if self._task is not None:
            await asyncio.shield(self._task)
