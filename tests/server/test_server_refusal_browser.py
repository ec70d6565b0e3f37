"""The screen works for the player, in Debian's headless Chromium (1280x800 and 390x844).

- A refused command's reason shows on the board within one step: two people race for the one
  dish in a blender (the first agent's command runs first); the loser's page flashes the blender's
  tile with the reason in a few words, says it under the score, and the event log keeps it.
- After every key press the step, its timer and the score are in view (they stick to the top).
- A person picks a level and a partner in the lobby by keyboard and plays that game.
- axe-core finds no serious or critical violation on the lobby's form or the refused board.

The other person is a protocol client; the person in the browser uses only the keyboard and acts
about a second after each change, as a person would.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig

from .conftest import Client
from .test_server_play_browser import ARGS, CHROMIUM, _axe, _need_browser, _step_changes

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
SHOTS = os.environ.get("MINDAGENT_SCREENSHOTS")
SIZES = [(1280, 800), (390, 844)]
#: The other person (agent0) makes the salmon meatcake; the browser's person (agent1) waits at the blender.
OTHER = ["goto_agent0_storage0", "get_agent0_salmon_storage0", "goto_agent0_blender0", "put_agent0_blender0",
         "goto_agent0_storage0", "get_agent0_flour_storage0", "goto_agent0_blender0", "put_agent0_blender0",
         "activate_agent0_blender0"]
DISH = "salmonMeatcake"


async def _figures_in_view(page: Any) -> None:
    """The step, the step's timer and the score are inside the viewport."""
    for selector in ("#step", "#score", ".status .clock"):
        inside = await page.evaluate("sel => { const r = document.querySelector(sel).getBoundingClientRect(); "
                                     "return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }", selector)
        assert inside, f"{selector} is out of view"


async def _press(page: Any, key: str) -> None:
    await page.keyboard.press(key)
    await page.wait_for_timeout(150)
    await _figures_in_view(page)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_a_refused_command_shows_its_reason_on_the_board(tmp_path: Path, require: Any, size: tuple[int, int]) -> None:
    _need_browser(require)
    from playwright.async_api import async_playwright, expect

    config = ServerConfig(port=0, model="planner", model_why="the built-in planner", recordings=tmp_path / "rooms",
                          mode="turns", countdown=0, startup=GameSpec("cuisineworld", "level_0", 2, 1.0, 0, "reference", 30))
    width, height = size
    async with GameServer(config) as server, async_playwright() as p, connect(server.ws_url) as ws:
        room = server.startup_room
        assert room is not None
        other = Client(ws)
        await other.next("welcome")
        await other.request("join", room=room.id, role="player", agent=0)
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": width, "height": height}, bypass_csp=True)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(server.url)
        await page.locator("#join-player-1").focus()
        await page.keyboard.press("Enter")
        await expect(page.locator("#board .tile").first).to_be_visible()
        blender = page.locator("#board .tile[data-location='blender0']")
        key = str(await blender.get_attribute("data-key"))
        script, step, first = list(OTHER), "0", True
        for _ in range(20):
            if f"get_agent1_{DISH}_blender0" in room.session.legal_commands(1):
                break
            await other.request("command", command=script.pop(0) if script else "noop_agent0")
            await page.wait_for_timeout(1000)  # the person reads the change, then acts
            for k in ([key, "g"] if first else ["w"]):
                await _press(page, k)
            first = False
            step = await _step_changes(page, step)
        assert f"get_agent1_{DISH}_blender0" in room.session.legal_commands(1), "the dish never came out"
        # both reach for the one dish: the other person's command runs first
        await other.request("command", command=f"get_agent0_{DISH}_blender0")
        await _press(page, key)
        await _press(page, "t")
        for _ in range(10):
            if await page.evaluate("() => document.activeElement.dataset.item") == DISH:
                break
            await _press(page, "ArrowRight")
        await _press(page, "Enter")
        await _step_changes(page, step)
        why = blender.locator(".why")
        await expect(why).to_be_visible(timeout=1000)
        await expect(why).to_have_text("Nothing to take here now")
        await expect(page.locator("#refusal")).to_contain_text("Not done: take salmon meatcake from blender")
        await expect(page.locator("#events li.bad").first).to_contain_text("Nothing to take here now")
        await _figures_in_view(page)
        await page.wait_for_timeout(300)
        clear = await why.evaluate("el => { const r = el.getBoundingClientRect(); "
                                   "const top = document.getElementById('sticky').getBoundingClientRect().bottom; "
                                   "return r.top >= top - 1 && r.bottom <= window.innerHeight; }")
        assert clear, "the sticky figures cover the refused tile's banner"
        box = await blender.locator(".contents").bounding_box()
        assert box is not None and box["height"] > 0, "the tile hid its contents"
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(Path(SHOTS) / f"refused-{width}.png"))
        assert await _axe(page) == [], "the board with a refusal"
        assert await page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
        await browser.close()
        assert not errors, errors


async def test_a_person_picks_a_level_and_a_partner_by_keyboard(tmp_path: Path, require: Any) -> None:
    _need_browser(require)
    from playwright.async_api import async_playwright, expect

    config = ServerConfig(port=0, model="planner", model_why="the built-in planner", recordings=tmp_path / "rooms",
                          countdown=0, startup=GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 30))
    async with GameServer(config) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
        await page.goto(server.url)
        level = page.locator("#play-level")
        await expect(level).to_be_visible()
        await expect(page.locator("#rooms .room h3")).to_contain_text("level_3 · a team of 2")
        lobby = str(await page.locator("#lobby").inner_text())
        assert "tau" not in lobby and not re.search(r"[0-9a-f]{32}", lobby), lobby
        assert "a step every 3 s" in lobby and "1s a step" not in lobby, lobby
        phone = await browser.new_page(viewport={"width": 390, "height": 844}, bypass_csp=True)
        await phone.goto(server.url)
        await expect(phone.locator("#play-level")).to_be_visible()
        assert await _axe(phone) == [], "the lobby on a phone"
        assert await phone.evaluate("document.documentElement.scrollWidth") <= 390, "the lobby scrolls sideways"
        await phone.close()
        assert "(easy)" in str(await level.locator("option[value='level_2']").text_content())
        assert await _axe(page) == [], "the lobby with its form"
        await level.focus()
        for _ in range(30):
            if await level.input_value() == "level_2":
                break
            await page.keyboard.press("ArrowUp")  # the form starts on the game's default level, level_3
            await page.wait_for_timeout(100)
        assert await level.input_value() == "level_2"
        await page.keyboard.press("Tab")  # the team
        await page.keyboard.press("Tab")  # the partners
        assert await page.evaluate("() => document.activeElement.id") == "play-partner"
        for _ in range(5):
            if await page.locator("#play-partner").input_value() == "random":
                break
            await page.keyboard.press("ArrowDown")
            await page.wait_for_timeout(100)
        assert await page.locator("#play-partner").input_value() == "random"
        await page.keyboard.press("Tab")  # the pace
        await page.keyboard.press("Tab")  # Play
        await page.wait_for_timeout(1000)
        await page.keyboard.press("Enter")
        await expect(page.locator("#board .tile").first).to_be_visible()
        await expect(page.locator("#room-title")).to_contain_text("level_2")
        assert "room" not in str(await page.locator("#room-title").text_content())
        mine = [r for r in server.registry.rooms.values() if r.settings.chosen is not None]
        assert len(mine) == 1 and mine[0].settings.spec.level == "level_2" and mine[0].settings.model == "random"
        assert mine[0].settings.chosen == {"level": "level_2", "agents": 2, "partner": "random", "pace": 3.0}
        await expect(page.locator("#status-line")).to_contain_text("a step every 3s", timeout=10_000)
        if SHOTS:
            await page.screenshot(path=str(Path(SHOTS) / "chosen-1280.png"))
        await page.keyboard.press("Tab")
        await page.click("#to-lobby")
        await expect(page.locator("#play-form")).to_be_visible()
        json.dumps(mine[0].settings.describe())  # what the room list says of it is plain data
        await browser.close()


async def test_the_end_of_episode_window_closes_for_a_spectator_when_the_next_episode_plays(tmp_path: Path,
                                                                                           require: Any) -> None:
    _need_browser(require)
    from playwright.async_api import async_playwright, expect

    config = ServerConfig(port=0, model="planner", model_why="the built-in planner", recordings=tmp_path / "rooms",
                          tick=1.0, human_tick=None, countdown=0, autoplay=True,
                          startup=GameSpec("cuisineworld", "level_0", 2, 1.0, 0, "reference", 3))
    async with GameServer(config) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await page.goto(server.url)
        await page.locator(".room.first [data-join='spectator']").click()
        await expect(page.locator("#survey")).to_be_visible(timeout=15_000)
        await expect(page.locator("#survey-title")).to_have_text("Episode over")
        await expect(page.locator("#survey")).to_be_hidden(timeout=5_000)
        await page.locator("#details summary").click()  # nothing blocks a click any more
        await expect(page.locator("#details")).to_have_attribute("open", "")
        await browser.close()
