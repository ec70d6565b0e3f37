"""The core names no game: everything above the domain contract goes through `mindagent.core.registry`.

A third domain must need no change above the contract, so the core's modules, dispatch,
evaluation, recordings, the model layer, the server (page included) and the CLI must not mention
a concrete game. Games register through the ``mindagent.domains`` entry point and bring their own
commands, so there are no exceptions.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAME_WORDS = re.compile(r"cuisine|CuisineSession|World\(")
ALLOWED: set[str] = set()


def core_files() -> list[Path]:
    core = ROOT / "mindagent"
    files = [p for p in core.glob("*.py")]
    for folder in ("core", "dispatch", "evaluation", "recordings", "llm", "server", "cli"):
        files += [p for p in (core / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return sorted(files)


def test_the_core_names_no_game() -> None:
    offenders = []
    for path in core_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel in ALLOWED:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if GAME_WORDS.search(line):
                offenders.append(f"{rel}:{n}: {line.strip()[:100]}")
    assert not offenders, "game names above the domain contract:\n" + "\n".join(offenders)


def test_the_minecraft_commands_module_is_gone() -> None:
    assert not (ROOT / "mindagent" / "cli" / "minecraft_cmds.py").exists()
