"""The recordings' disk budget (issue #28): past it the oldest practice recordings are deleted
first, and the admin's rooms' recordings never."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig
from mindagent.server.disk_budget import PRACTICE_FOLDER, RecordingBudget

from .conftest import Client, tiny_brain


def write(path: Path, size: int, age: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    os.utime(path, (1_000_000 + age, 1_000_000 + age))
    return path


def test_the_oldest_practice_recordings_go_first(tmp_path: Path) -> None:
    folder = tmp_path / "rooms"
    admin = [write(folder / f"admin{n}.jsonl", 100, n) for n in range(3)]
    practice = [write(folder / PRACTICE_FOLDER / f"p{n}.jsonl", 100, 10 + n) for n in range(5)]
    report = RecordingBudget(folder, max_bytes=650).prune()
    assert report.deleted == 2 and report.freed_bytes == 200 and report.total_bytes == 600
    assert [p.exists() for p in practice] == [False, False, True, True, True]
    assert all(p.exists() for p in admin)


def test_the_admins_recordings_are_never_deleted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "rooms"
    admin = [write(folder / f"admin{n}.jsonl", 100, n) for n in range(3)]
    practice = write(folder / PRACTICE_FOLDER / "p.jsonl", 100, 50)
    report = RecordingBudget(folder, max_bytes=150).prune()
    assert report.deleted == 1 and not practice.exists() and all(p.exists() for p in admin)
    assert "only practice recordings are deleted" in caplog.text


def test_no_budget_deletes_nothing(tmp_path: Path) -> None:
    practice = write(tmp_path / PRACTICE_FOLDER / "p.jsonl", 1000, 0)
    assert RecordingBudget(tmp_path, max_bytes=None).prune().deleted == 0 and practice.exists()
    with pytest.raises(ValueError):
        RecordingBudget(tmp_path, max_bytes=-1)


@pytest.mark.asyncio
async def test_a_server_keeps_its_recordings_within_the_budget(tmp_path: Path) -> None:
    from websockets.asyncio.client import connect

    folder = tmp_path / "rooms"
    old = write(folder / PRACTICE_FOLDER / "old.jsonl", 95_000, 0)
    config = ServerConfig(port=0, model="tiny", tick=0.05, human_tick=None, countdown=0, recordings=folder,
                          startup=GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 500),
                          recordings_budget=100_000)
    async with GameServer(config, brain_factory=lambda model, domain: tiny_brain()) as server:
        async with connect(server.ws_url, max_size=None) as ws:
            me = Client(ws)
            await me.next("welcome")
            await me.request("practice")
            await me.request("start")
            room = next(r for r in server.registry.rooms.values() if r.settings.practice)
            await me.request("command", command=room.session.world.legal_commands(0)[0])
            async with asyncio.timeout(5):
                while room.session.step_index < 1:
                    await asyncio.sleep(0.02)
            await me.request("leave")
            async with asyncio.timeout(5):
                while room.id in server.registry.rooms:
                    await asyncio.sleep(0.02)
            await server.registry.disk.idle()
    files = list((folder / PRACTICE_FOLDER).iterdir())
    assert not old.exists() and len(files) == 1 and files[0].stat().st_size < 100_000
