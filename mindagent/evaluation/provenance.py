"""What made a results file: code version and commit, served models, input-file hashes, settings sent.

A results file is evidence only if it says what produced it. `openai:gpt-4o` is a moving alias (the
provider names the snapshot it served), a custom level or recipe file can change under the same
name, a half-done sweep could resume on other code, and a backend may drop a setting the model
refuses (Anthropic's temperature on some models) while the file claims it was used. So:

- `code_version` and `code_commit` name the installed mindagent and, in a git checkout, its commit
  (with ``+dirty`` when the tree has changes); the version is part of the resume key;
- `input_files` hashes every level and option value that names a file on disk (game-neutral: no
  game's option names are known here), also part of the resume key;
- `run_provenance` gathers the served models and the settings not sent from the finished taus.

Example::

    input_files(["level_1", "levels/my.json"], {"recipes": "my_recipes.json"})
    # {"levels/my.json": "9f2c...", "my_recipes.json": "41ab..."}
"""

from __future__ import annotations

import functools
import hashlib
import logging
import subprocess
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path

log = logging.getLogger(__name__)

#: Seconds a `git` query may take before the commit is left unknown.
GIT_TIMEOUT_S = 5.0
#: Largest input file hashed (levels and recipes are a few kilobytes; anything larger is not one).
MAX_HASHED_BYTES = 64 * 1024 * 1024


@functools.cache
def code_version() -> str:
    """The installed mindagent's version ("unknown" when it runs from a tree that was never installed)."""
    try:
        return metadata.version("mindagent")
    except metadata.PackageNotFoundError:
        return "unknown"


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=GIT_TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@functools.cache
def code_commit() -> str | None:
    """The commit of the checkout this mindagent package was imported from, ``+dirty`` when it has
    uncommitted changes; None outside a git checkout (an installed wheel) or without git."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    commit = _git(root, "rev-parse", "HEAD")
    if not commit:
        return None
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return commit + ("+dirty" if status else "")


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _as_file(value: object) -> Path | None:
    if not isinstance(value, str) or not value or len(value) > 4096 or "\0" in value:
        return None
    path = Path(value)
    try:
        return path if path.is_file() and path.stat().st_size <= MAX_HASHED_BYTES else None
    except OSError:
        return None


def input_files(levels: Iterable[str], options: Mapping[str, object]) -> dict[str, str]:
    """{name as given: sha256} of every level and option value that names a file, sorted by name."""
    candidates = [*levels, *options.values()]
    found: dict[str, str] = {}
    for value in candidates:
        path = _as_file(value)
        if path is not None and str(value) not in found:
            found[str(value)] = _sha256(path)
    return dict(sorted(found.items()))


def run_provenance(generation: Mapping[str, object], served: Iterable[str], not_sent: Iterable[str]) -> dict[str, object]:
    """The `provenance` block of a results file: code, served models, and the settings really sent.

    `generation` is what was asked for; a setting in `not_sent` is written as "not sent" so the file
    never claims a temperature the provider never saw."""
    dropped = sorted(set(not_sent))
    sent = {key: ("not sent" if key in dropped else value) for key, value in generation.items()}
    return {"mindagent_version": code_version(), "commit": code_commit(), "served_models": sorted(set(served)),
            "generation_sent": sent, "not_sent": dropped}
