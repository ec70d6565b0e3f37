"""Policies that ship with the package: ``--model policy:level_1`` plays one with no training.

Each released policy is two files in ``policies/`` beside this module: ``NAME.zip``, an SB3
``MaskablePPO`` file whose optimizer state was reset (it plays exactly like the checkpoint it came
from, at a third of the size), and ``NAME.json``, the run's ``policy.json`` (what the loader checks
a session against) plus how it was made and how well it plays: the training command and seed,
the checkpoint's step count, package versions, the CoS and per-tau rates under `mindagent eval`'s
protocol, and the zip's sha256.

An SB3 file is unpickled when loaded, so the loader hashes the zip first and refuses one whose
sha256 is not the one its metadata records (`ReleaseMismatch`, one line). ``policy:NAME`` means a
released policy whenever NAME is a released name; a run folder of that name is reached as
``policy:./NAME``.

Example::

    released_names()                 # ('level_1', 'level_4')
    model, meta = resolve_released("level_4")
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from mindagent.core.domain import SpecError

RELEASE_DIR = Path(__file__).with_name("policies")


class ReleaseMismatch(SpecError):
    """A released policy's zip is not the file its metadata describes (edited, truncated, replaced)."""


def released_names() -> tuple[str, ...]:
    """The names ``policy:NAME`` resolves, sorted."""
    if not RELEASE_DIR.is_dir():
        return ()
    return tuple(sorted(p.stem for p in RELEASE_DIR.glob("*.json") if p.with_suffix(".zip").is_file()))


def is_released(name: str) -> bool:
    return "/" not in name and "\\" not in name and name in released_names()


def sha256_of(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def release_meta(name: str) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads((RELEASE_DIR / f"{name}.json").read_text())
    return meta


def resolve_released(name: str) -> tuple[Path, Path]:
    """(zip, metadata) of a released policy, after checking the zip's sha256 against the metadata."""
    if not is_released(name):
        known = ", ".join(released_names()) or "none"
        raise SpecError(f"policy:{name} is not a released policy (released: {known})")
    model, meta_path = RELEASE_DIR / f"{name}.zip", RELEASE_DIR / f"{name}.json"
    verify(model, release_meta(name))
    return model, meta_path


def verify(model: Path, meta: dict[str, Any]) -> None:
    """Refuse a zip whose sha256 differs from the recorded one, before anything unpickles it."""
    expected = str(meta.get("sha256", ""))
    actual = sha256_of(model)
    if actual != expected:
        raise ReleaseMismatch(f"policy: {model} has sha256 {actual[:16]}..., its metadata records "
                              f"{expected[:16] or 'none'}...; refusing to load it (restore the file from the release)")
