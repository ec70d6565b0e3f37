"""The page in real headless Chromium: join with one click, play steps by clicking, answer the survey.

What the page shows is checked against the engine's own state after every step. The screenshot
lands in the test's tmp_path (and in $MINDAGENT_SCREENSHOTS when that is set).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from browser_support import ARGS, CHROMIUM, need_browser

from mindagent.core.spec import GameSpec
from mindagent.recordings.recording import read_recording
from mindagent.server import GameServer, ServerConfig

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
PLAN = ["goto_agent0_storage0", "get_agent0_tuna_storage0", "goto_agent0_chopboard0", "put_agent0_chopboard0",
        "activate_agent0_chopboard0"]


def _items(content: list[str]) -> str:
    return " & ".join(content) if content else "nothing"


async def check_page_matches_engine(page: Any, server: GameServer) -> None:
    from playwright.async_api import expect

    room = server.startup_room
    world = room.session.world
    await expect(page.locator("#step")).to_have_text(str(world.time))
    display = room.session.static_view()["display"]
    dishes = [display[o.dish] for o in world.orders]
    await expect(page.locator("#orders .order .dish")).to_have_text(dishes)
    await expect(page.locator("#orders .order .life")).to_have_text(
        [f"{o.lifetime} step{'' if o.lifetime == 1 else 's'} left" for o in world.orders])
    for a in range(world.n_agents):
        row = page.locator(f"#agents tr[data-agent='{a}']")
        await expect(row.locator(".location")).to_have_text(world.agent_location(a))
        await expect(row.locator(".holding")).to_have_text(world.agent_holding(a) or "nothing")
    for loc in world.level.locations:
        row = page.locator(f"#kitchen tr[data-location='{loc.name}']")
        want = "everything" if loc.type == "storage" else _items(world.location_content(loc.name))
        await expect(row.locator(".content")).to_have_text(want)
        busy = world.location_busy(loc.name)
        await expect(row.locator("td.in-use")).to_have_text(f"yes, {busy} step(s)" if busy else "no")
    counts = world.counts
    await expect(page.locator("#completed")).to_have_text(str(counts.completed))
    await expect(page.locator("#failed")).to_have_text(str(counts.failed))
    await expect(page.locator("#active")).to_have_text(str(counts.active))
    if not room.session.done:
        shown = await page.locator("#legal button[data-command]").evaluate_all(
            "buttons => buttons.map(b => b.dataset.command)")
        assert sorted(shown) == sorted(room.session.legal_commands(0))


async def test_play_a_short_episode_in_chromium(tmp_path: Path, brain_factory: Any, require: Any) -> None:
    need_browser(require)
    from playwright.async_api import async_playwright, expect

    config = ServerConfig(port=0, model="tiny", model_why="the test's tiny policy stands in for the planner",
                          mode="turns", tick=0.05, turn_timeout=600, countdown=0, recordings=tmp_path / "rooms",
                          startup=GameSpec("cuisineworld", "level_3", 3, 1.0, 0, "reference", len(PLAN)))
    async with GameServer(config, brain_factory=brain_factory) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(server.url)
        await page.click("#join-player-0")  # one click from opening the page to playing
        await expect(page.locator("#room-title")).to_contain_text("you play agent0")
        await expect(page.locator("#dispatcher")).to_have_text("Dispatcher: tiny")
        await page.locator("#all-commands").evaluate("d => d.open = true")
        await expect(page.locator("#status-line")).to_contain_text("the test's tiny policy stands in for the planner")
        await check_page_matches_engine(page, server)

        room = server.startup_room
        for step, wanted in enumerate(PLAN):
            legal = room.session.legal_commands(0)
            command = wanted if wanted in legal else next(c for c in legal if not c.startswith("noop"))
            await page.locator(f"#legal button[data-command='{command}']").click()
            await expect(page.locator("#step")).to_have_text(str(step + 1))
            await check_page_matches_engine(page, server)
            mine = page.locator("#last-actions tr[data-agent='0']")
            await expect(mine.locator(".cmd")).to_have_text(command)
            await expect(mine.locator(".result")).to_have_text("done")
            if step == 3:
                await page.screenshot(path=str(tmp_path / "game.png"), full_page=True)

        survey = page.locator("#survey")
        await expect(survey).to_be_visible()
        await page.screenshot(path=str(tmp_path / "survey.png"))
        for item, value in zip(("enjoyment", "productivity", "trust", "predictability", "dependability", "helpfulness"),
                               (5, 4, 4, 3, 2, 5), strict=True):
            await page.locator(f"fieldset[data-item='{item}'] input[value='{value}']").check()
        await page.fill("#survey-comment", "the robots were quick")
        await page.click("#survey-submit")
        await expect(page.locator("#survey-note")).to_contain_text("Thank you")
        records = read_recording(room.log.path)
        assert records[-1]["type"] == "questionnaire"
        assert records[-1]["answers"] == {"enjoyment": 5, "productivity": 4, "trust": 4, "predictability": 3,
                                          "dependability": 2, "helpfulness": 5}
        assert records[-1]["comment"] == "the robots were quick"

        await page.click("#restart")
        await expect(survey).to_be_hidden()
        await expect(page.locator("#step")).to_have_text("0")
        await check_page_matches_engine(page, server)
        await browser.close()
        assert not errors, errors
    saved = os.environ.get("MINDAGENT_SCREENSHOTS")
    if saved:
        Path(saved).mkdir(parents=True, exist_ok=True)
        for name in ("game.png", "survey.png"):
            shutil.copy(tmp_path / name, Path(saved) / name)


async def test_the_page_says_who_reaches_each_station(tmp_path: Path, brain_factory: Any, require: Any) -> None:
    """On a split kitchen every tile names the agents who can use it, in text and in its label,
    and the player's own out-of-reach stations say so (not by colour alone)."""
    need_browser(require)
    from playwright.async_api import async_playwright, expect

    config = ServerConfig(port=0, model="tiny", model_why="the test's tiny policy stands in for the planner",
                          mode="turns", tick=0.05, turn_timeout=600, countdown=0, recordings=tmp_path / "rooms",
                          startup=GameSpec("cuisineworld", "pass_sushi", 2, 1.0, 0, "reference", 4))
    async with GameServer(config, brain_factory=brain_factory) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(server.url)
        await page.click("#join-player-0")
        await expect(page.locator("#room-title")).to_contain_text("you play agent0")
        await check_page_matches_engine(page, server)
        reach = server.startup_room.session.static_view()["reach"]
        for loc in server.startup_room.session.world.level.location_names:
            who = [a for a, names in enumerate(reach) if loc in names]
            tile = page.locator(f".tile[data-location='{loc}']")
            names = ", ".join("you" if a == 0 else f"agent{a}" for a in who)  # the page's player is agent0
            await expect(tile.locator(".reach")).to_have_text(("reach: " if 0 in who else "not yours: ") + names)
            label = await tile.get_attribute("aria-label")
            assert label is not None and ("reachable by " + ", ".join(f"agent{a}" for a in who)) in label
            assert ("(not by you)" in label) == (0 not in who), label
        assert reach[0] == ["storage0", "chopboard0", "chopboard1", "counter0", "counter1"]
        await browser.close()
        assert not errors, errors
