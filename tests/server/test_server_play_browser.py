"""Playing the kitchen as a person would, in Debian's real headless Chromium.

- A simulated person who acts 1.5 s after each state change, in a room with the defaults a human
  room gets (real time, the human tick, the countdown), clicks where the controls were when they
  looked and serves a dish; no click lands on anything but the control they aimed at.
- A keyboard-only player serves a dish; focus never drops to the page between steps.
- The tutorial (the practice kitchen) is followed to its end.
- axe-core finds no serious or critical violation on the lobby, the game page and the
  questionnaire, and at 390x844 nothing scrolls sideways.

The person decides with the planner's idea of a good next command for their agent (reading the
engine directly); what is tested is whether the page lets them do it in time.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import ARGS, AXE, CHROMIUM
from browser_support import need_browser as _need_browser
from browser_support import serious_violations as _axe

from cuisineworld.adapter.planners import CuisinePlanner
from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig
from mindagent.server.pacing import COUNTDOWN_S, HUMAN_TICK_S

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
SLOT = {"goto": "#act-go", "put": "#act-put", "activate": "#act-start", "noop": "#act-wait"}
KEY = {"goto": "g", "put": "p", "activate": "s", "noop": "w"}
SHOTS = os.environ.get("MINDAGENT_SCREENSHOTS")


def _human_room(tmp_path: Path, agents: int = 1) -> ServerConfig:
    """The pacing defaults `mindagent serve` gives a room people play in (only level and team are chosen:
    one agent, so the dish served is the person's own and not a teammate's)."""
    return ServerConfig(port=0, model="planner", model_why="the built-in planner", recordings=tmp_path / "rooms",
                        startup=GameSpec("cuisineworld", "level_0", agents, 1.0, 0, "reference", 60))


def _wanted(server: GameServer, planner: CuisinePlanner) -> str:
    return planner.act_for(server.startup_room.session, [0])[0]  # type: ignore[union-attr, attr-defined]


async def _step_changes(page: Any, last: str, timeout: float = 15.0) -> str:
    await page.wait_for_function("s => document.getElementById('step').textContent !== s", arg=last,
                                 timeout=timeout * 1000)
    return str(await page.locator("#step").text_content())


async def _served_by_me(server: GameServer) -> int:
    room = server.startup_room
    assert room is not None
    return room.card.cards[0].served


async def _box(page: Any, selector: str) -> tuple[float, float]:
    box = await page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def _aimed_click(page: Any, selector: str, x: float, y: float) -> bool:
    """Click at (x, y), where the person saw `selector`; True if that is what is there now."""
    hit = await page.evaluate("([x, y, sel]) => { const e = document.elementFromPoint(x, y); "
                              "const t = document.querySelector(sel); return !!(e && t && t.contains(e)); }",
                              [x, y, selector])
    await page.mouse.click(x, y)
    return bool(hit)


def _target(command: str) -> tuple[str, str | None, str]:
    parts = command.split("_")
    verb, place = parts[0], parts[-1] if len(parts) > 2 else ""
    item = parts[2] if len(parts) == 4 else None
    return verb, item, place


async def test_a_person_acting_after_1_5_s_serves_a_dish_with_no_misdirected_click(tmp_path: Path, require: Any) -> None:
    _need_browser(require)
    from playwright.async_api import async_playwright, expect

    config = _human_room(tmp_path)
    assert (config.human_tick, config.countdown) == (HUMAN_TICK_S, COUNTDOWN_S)
    async with GameServer(config) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(server.url)
        await page.wait_for_timeout(1500)
        await page.click("#join-player-0")
        await expect(page.locator("#countdown")).to_contain_text("Starting in")
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            await page.wait_for_timeout(300)
            await page.screenshot(path=str(Path(SHOTS) / "board-start.png"))
        await expect(page.locator("#status-line")).to_contain_text(f"a step every {HUMAN_TICK_S:g}s", timeout=10_000)
        planner = CuisinePlanner()
        room = server.startup_room
        assert room is not None
        step, misdirected, clicks = "0", 0, 0
        deadline = time.monotonic() + 150
        while await _served_by_me(server) == 0 and room.status == "running" and time.monotonic() < deadline:
            seen_at = time.monotonic()
            wanted = _wanted(server, planner)
            verb, item, place = _target(wanted)
            tile = f"#board .tile[data-location='{place}']"
            tile_xy = await _box(page, tile) if place else None
            await page.wait_for_timeout(max(0, 1500 - (time.monotonic() - seen_at) * 1000))  # the person's reaction
            if tile_xy is not None:
                clicks += 1
                misdirected += not await _aimed_click(page, tile, *tile_xy)
            action = f"#takes .act[data-item='{item}']" if verb == "get" else SLOT[verb]
            action_xy = await _box(page, action)
            await page.wait_for_timeout(300)
            clicks += 1
            misdirected += not await _aimed_click(page, action, *action_xy)
            await expect(page.locator("#queued")).to_contain_text("Next step you will")
            assert room._queued.get(0) == wanted, (room._queued, wanted)
            if SHOTS and step == "9":
                await page.screenshot(path=str(Path(SHOTS) / "board-mid.png"))
            step = await _step_changes(page, step)
        assert await _served_by_me(server) >= 1, f"served nothing by step {step}"
        assert misdirected == 0 and clicks > 10
        header = room.log.path.read_text().splitlines()[0] if room.log.path else ""
        assert '"pacing"' in header and f'"step_every_s": {HUMAN_TICK_S}' in header
        await browser.close()
        assert not errors, errors


async def test_a_dish_played_keyboard_only(tmp_path: Path, require: Any) -> None:
    _need_browser(require)
    from playwright.async_api import async_playwright, expect

    async with GameServer(_human_room(tmp_path)) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900})
        await page.goto(server.url)
        await page.locator("#join-player-0").focus()  # Tab order reaches it; Enter presses it
        await page.keyboard.press("Enter")
        await expect(page.locator("#ready")).to_be_visible()
        await page.locator("#ready").focus()
        await page.keyboard.press("Enter")  # the ready check: start now
        room = server.startup_room
        assert room is not None
        await expect(page.locator("#status-line")).to_contain_text("real time", timeout=10_000)
        planner = CuisinePlanner()
        step = "0"
        deadline = time.monotonic() + 150
        while await _served_by_me(server) == 0 and room.status == "running" and time.monotonic() < deadline:
            wanted = _wanted(server, planner)
            verb, item, place = _target(wanted)
            await page.wait_for_timeout(400)
            if place:
                key = await page.locator(f"#board .tile[data-location='{place}']").get_attribute("data-key")
                await page.keyboard.press(str(key))
            if verb == "get":
                await page.keyboard.press("t")
                for _ in range(30):
                    if await page.evaluate("() => document.activeElement.dataset.item") == item:
                        break
                    await page.keyboard.press("ArrowRight")
                await page.keyboard.press("Enter")
            else:
                await page.keyboard.press(KEY[verb])
            await expect(page.locator("#queued")).to_contain_text("Next step you will")
            assert room._queued.get(0) == wanted
            step = await _step_changes(page, step)
            assert await page.evaluate("() => document.activeElement !== document.body"), "focus dropped to the page"
        assert await _served_by_me(server) >= 1
        await browser.close()


async def test_the_tutorial_is_followed_to_its_end(tmp_path: Path, require: Any) -> None:
    _need_browser(require)
    from playwright.async_api import async_playwright, expect

    async with GameServer(_human_room(tmp_path, agents=2)) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900})
        await page.goto(server.url)
        await page.click("#practice")
        coach = page.locator("#coach-text")
        await expect(coach).to_contain_text("Next:")
        for _ in range(40):
            text = str(await coach.text_content())
            if text.startswith("Tutorial complete"):
                break
            hint = page.locator("#board .tile.hint")
            if "wait" not in text.split(".")[0]:
                await hint.click()
            first = text.split(".")[0].removeprefix("Next: ")
            step = str(await page.locator("#step").text_content())
            if first.startswith("take "):
                item = first.removeprefix("take ").split(" from ")[0]
                await page.locator("#takes .act").filter(has_text=f"Take {item}").click()
            else:
                slot = {"go": "#act-go", "put": "#act-put", "start": "#act-start", "wait": "#act-wait"}[first.split(" ")[0]]
                await page.click(slot)
            await _step_changes(page, step)
        await expect(coach).to_contain_text("Tutorial complete: you served a dish!")
        practice = [r for r in server.registry.rooms.values() if r.settings.practice]
        assert len(practice) == 1 and practice[0].session.n_agents == 1
        await page.click("#to-lobby")  # leaving closes the practice kitchen
        await expect(page.locator("#lobby")).to_be_visible()
        await page.wait_for_timeout(300)
        assert not any(r.settings.practice for r in server.registry.rooms.values())
        await browser.close()


async def test_axe_finds_nothing_serious_and_a_phone_does_not_scroll_sideways(tmp_path: Path, require: Any) -> None:
    _need_browser(require)
    if not AXE.exists():
        pytest.fail(f"{AXE} missing: bash scripts/setup.sh --dev (npm ci in tests/browser)")
    from playwright.async_api import async_playwright, expect

    config = ServerConfig(port=0, model="planner", model_why="the built-in planner", recordings=tmp_path / "rooms",
                          mode="turns", countdown=0, startup=GameSpec("cuisineworld", "level_3", 2, 1.0, 0, "reference", 4))
    async with GameServer(config) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for width, height in ((1280, 900), (390, 844)):
            page = await browser.new_page(viewport={"width": width, "height": height}, bypass_csp=True)  # to inject axe
            await page.goto(server.url)
            await expect(page.locator("#join-player-0")).to_be_visible()
            await page.locator("#admin").evaluate("d => d.open = true")
            assert await _axe(page) == [], "lobby"
            assert await page.evaluate("document.documentElement.scrollWidth") <= width, "lobby scrolls sideways"
            await page.click("#join-player-0")
            await expect(page.locator("#board .tile").first).to_be_visible()
            assert await _axe(page) == [], "game page"
            assert await page.evaluate("document.documentElement.scrollWidth") <= width, "game page scrolls sideways"
            if width == 390:
                await page.screenshot(path=str(tmp_path / "phone.png"))
                if SHOTS:
                    await page.screenshot(path=str(Path(SHOTS) / "phone.png"))
            for _ in range(4):
                step = str(await page.locator("#step").text_content())
                await page.keyboard.press("w")
                await _step_changes(page, step)
            await expect(page.locator("#survey")).to_be_visible()
            await expect(page.locator("#survey-items fieldset")).to_have_count(6)
            if SHOTS and width == 1280:
                await page.screenshot(path=str(Path(SHOTS) / "board-end.png"))
            assert await _axe(page) == [], "questionnaire"
            assert await page.evaluate("document.documentElement.scrollWidth") <= width, "questionnaire scrolls sideways"
            await page.click("#survey-skip")
            await page.click("#restart-inline")
            await page.click("#to-lobby")
            await page.close()
        await browser.close()
