"""Rooms sharded over worker processes behind one port (`serve --workers N`), through real
websockets and real worker processes: clients see one server; a killed worker costs only its rooms."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from websockets.asyncio.client import connect

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig
from mindagent.server.rooms import NO_ROOM_TEXT
from mindagent.server.shards import ShardSet

from .conftest import Client

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
ADMIN = "a-long-enough-admin-token-for-tests"


@pytest_asyncio.fixture
async def sharded(tmp_path: Path) -> AsyncIterator[GameServer]:
    config = ServerConfig(port=0, model="planner", model_why="test", tick=0.05, human_tick=None, countdown=0,
                          recordings=tmp_path / "rooms", admin_token=ADMIN, workers=2,
                          startup=GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", None))
    server = GameServer(config)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def open_client(server: GameServer, opened: list[Any]) -> Client:
    ws = await connect(server.ws_url, max_size=None)
    opened.append(ws)
    client = Client(ws)
    await client.next("welcome")
    return client


def shards(server: GameServer) -> ShardSet:
    assert isinstance(server.rooms, ShardSet)
    return server.rooms


async def test_rooms_in_two_workers_answer_through_one_port(sharded: GameServer) -> None:
    opened: list[Any] = []
    try:
        admin = await open_client(sharded, opened)
        a = await open_client(sharded, opened)
        b = await open_client(sharded, opened)
        assert sharded.startup is not None
        first = sharded.startup.id
        made = await admin.request("create_room", admin_token=ADMIN, level="level_1", agents=2, public=True, tick=0.05)
        second = made["room"]
        hidden = (await admin.request("create_room", admin_token=ADMIN, level="level_2", agents=2, public=False))
        pids = shards(sharded).pids
        assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
        directory = shards(sharded).directory
        assert directory[first] == 0 and directory[second] == 1  # each new room to the emptier worker
        assert directory[hidden["room"]] == 0

        listing = await a.request("list_rooms")
        assert [r["room"] for r in listing["rooms"]] == [first, second]  # opening order; private rooms unlisted
        admin_list = await admin.request("list_rooms", admin_token=ADMIN)
        assert [r["room"] for r in admin_list["rooms"]] == [first, second, hidden["room"]]
        assert sharded._health()["rooms"] == 3 and sharded._health()["workers"] == 2

        # a private room without its secret reads exactly like a missing one
        wrong = await a.request("join", room=hidden["room"], role="spectator", secret="nope")
        missing = await a.request("join", room="0" * 32, role="spectator")
        assert (wrong["code"], wrong["message"]) == (missing["code"], missing["message"]) == ("no_room", NO_ROOM_TEXT)

        # a spectator in the first worker's room, then a player in the second worker's room
        joined = await a.request("join", room=first, role="spectator")
        assert joined["type"] == "joined" and joined["room"] == first
        await b.request("join", room=first, role="spectator")
        moved = await a.request("join", room=second, role="player", agent=0)
        assert moved["type"] == "joined" and moved["room"] == second and moved["state"]["you"]["agent"] == 0
        # the mover left its old room (the lobby's counts may lag by LISTING_FRESH_S)
        want = {first: {"head_chef": 0, "player": 0, "spectator": 1}, second: {"head_chef": 0, "player": 1, "spectator": 0}}
        deadline = time.monotonic() + 3
        while (people := {r["room"]: r["people"] for r in (await b.request("list_rooms"))["rooms"]}) != want:
            assert time.monotonic() < deadline, people
            await asyncio.sleep(0.2)
        await a.request("start")
        queued = await a.request("command", command=moved["state"]["you"]["legal"][0])
        assert queued["type"] == "queued", queued
        await a.next("state", lambda m: m["step"] >= 2)  # the second worker's room steps for its player
        assert (await a.request("leave"))["type"] == "left"
        assert (await a.request("command", command=moved["state"]["you"]["legal"][0]))["code"] == "no_room"

        # admin actions reach the worker holding the room
        closed = await admin.request("close_room", admin_token=ADMIN, room=hidden["room"])
        assert closed["type"] == "ack"
        assert hidden["room"] not in shards(sharded).directory
        refused = await a.request("close_room", admin_token="wrong-token", room=second)
        assert refused["code"] == "unauthorized"
    finally:
        for ws in opened:
            await ws.close()


async def test_a_killed_worker_costs_only_its_rooms(sharded: GameServer) -> None:
    opened: list[Any] = []
    lost: list[tuple[int, int | None]] = []
    shards(sharded).on_lost = lambda index, code: lost.append((index, code))
    try:
        admin = await open_client(sharded, opened)
        watcher = await open_client(sharded, opened)
        victim = await open_client(sharded, opened)
        assert sharded.startup is not None
        first = sharded.startup.id
        second = (await admin.request("create_room", admin_token=ADMIN, level="level_1", agents=2, public=True,
                                      tick=0.05))["room"]
        await watcher.request("join", room=first, role="spectator")
        await watcher.request("start", admin_token=ADMIN)
        await victim.request("join", room=second, role="spectator")
        await victim.request("start", admin_token=ADMIN)
        await victim.next("state", lambda m: m["step"] >= 1)

        os.kill(shards(sharded).pids[1], signal.SIGKILL)
        closed = await victim.next("room_closed", timeout=10)
        assert closed["room"] == second
        assert lost and lost[0][0] == 1
        # the other worker's room keeps its clock, and the victim's connection stays in the lobby
        before = (await watcher.next("state"))["step"]
        later = await watcher.next("state", lambda m: m["step"] >= before + 5, timeout=10)
        assert later["step"] >= before + 5
        assert (await victim.request("ping"))["type"] == "pong"
        assert [r["room"] for r in (await victim.request("list_rooms"))["rooms"]] == [first]
        assert (await victim.request("command", command="noop"))["code"] == "no_room"

        # a fresh worker takes the dead one's place for new rooms
        deadline = time.monotonic() + 60
        # a replacement counts once it has answered a ping, not when its process exists
        while not sharded._health()["ok"] and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert len(shards(sharded).pids) == 2 and sharded._health()["ok"]
        third = await admin.request("create_room", admin_token=ADMIN, level="level_1", agents=2, public=True)
        assert third["type"] == "room_created" and shards(sharded).directory[third["room"]] == 1
        assert (await victim.request("join", room=third["room"], role="spectator"))["type"] == "joined"
    finally:
        for ws in opened:
            await ws.close()


async def test_a_connection_closing_leaves_its_room_in_the_worker(sharded: GameServer) -> None:
    opened: list[Any] = []
    try:
        assert sharded.startup is not None
        first = sharded.startup.id
        stays = await open_client(sharded, opened)
        goes = await open_client(sharded, opened)
        await stays.request("join", room=first, role="spectator")
        await goes.request("join", room=first, role="player", agent=1)
        await goes.ws.close()
        left = await stays.next("event", lambda m: "left" in m.get("text", ""))
        assert "agent" in left["text"] or "player" in left["text"]
        deadline = time.monotonic() + 3
        while (people := (await stays.request("list_rooms"))["rooms"][0]["people"]) != {"head_chef": 0, "player": 0,
                                                                                          "spectator": 1}:
            assert time.monotonic() < deadline, people
            await asyncio.sleep(0.2)
    finally:
        for ws in opened:
            await ws.close()


async def test_clock_stats_gather_every_worker(sharded: GameServer) -> None:
    info = await sharded.rooms.open_room(sharded.config.startup_settings())  # type: ignore[arg-type]
    assert shards(sharded).directory[info["room"]] == 1
    stats = await sharded.rooms.clock_stats()
    assert stats.rooms == 2 and stats.processes == 3 and stats.cpu_s > 0


async def test_the_page_plays_through_the_front_and_says_when_a_worker_dies(sharded: GameServer, require: Any) -> None:
    """In Debian's Chromium: the page joins the start-up room (in a worker) as a player, sees the
    steps come, and when that worker is killed says the room closed and why, back in the lobby."""
    require("playwright", "pip install playwright (the browser itself is Debian's chromium)")
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"no chromium at {chromium}")
        pytest.skip(f"no chromium at {chromium} (apt-get install chromium)")
    from playwright.async_api import async_playwright, expect

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(chromium), args=["--no-sandbox", "--disable-gpu"])
        page = await browser.new_page(viewport={"width": 390, "height": 844})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(sharded.url)
        await page.wait_for_timeout(1000)  # a person reads the lobby first
        await page.click("#join-player-0")
        await expect(page.locator("#room-title")).to_contain_text("you play agent0")
        await page.wait_for_function("() => Number(document.getElementById('step').textContent) >= 3", timeout=20_000)
        os.kill(shards(sharded).pids[0], signal.SIGKILL)
        await expect(page.locator("#toast")).to_contain_text("the room was closed (the room's process stopped)",
                                                             timeout=10_000)
        await expect(page.locator("#join-player-0")).to_have_count(0, timeout=10_000)  # its room left the lobby
        await browser.close()
    assert not errors, errors
