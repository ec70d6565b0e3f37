"""A person plays a whole Overcooked episode in Debian's headless Chromium, with the planner as partner.

The server is the one `mindagent serve` runs, at the pace people play Overcooked at (a timestep
every 0.2 s). The person reads the page like a player would (where the chefs stand and what they
hold, how the pot is doing: the page's tables, the picture's text alternative), waits about 0.3 s
after each change, and presses one arrow key or Space: take a dish, wait for the soup, scoop it,
serve it. The test checks that the sprite grid is drawn from the package's own sheets, that the
keys queue the game's primitive commands, that the team serves at least one soup in the 400
timesteps, that axe-core finds nothing serious, and that the room's pace is in its recording.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig
from overcooked_game.layouts import load_layout

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
AXE = Path(__file__).resolve().parents[1] / "browser" / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = os.environ.get("MINDAGENT_SCREENSHOTS")
ADMIN = "the-test-admin-token"
OTHER_LAYOUT = "coordination_ring"
TICK_S = 0.2
REACTION_S = 0.3
HORIZON = 400
LAYOUT = "cramped_room"
STEPS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
KEYS = {"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight"}
FACING = {"north": "up", "south": "down", "west": "left", "east": "right"}

Cell = tuple[int, int]


class Person:
    """A simple scripted player of chef0 on cramped_room: dishes to the pot, soup to the window."""

    def __init__(self) -> None:
        rows = load_layout(LAYOUT).rows
        self.floor = {(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c in " 12"}
        # where to stand and which way to face for each station (read off the map once, as a person does)
        self.dishes = ((1, 2), "down")
        self.pot = ((2, 1), "up")
        self.window = ((3, 2), "down")

    def first_step(self, start: Cell, goal: Cell, blocked: Cell) -> str | None:
        """The first move of a shortest floor path around the partner (None: there, or boxed in)."""
        seen = {start: ""}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if here == goal:
                return seen[here] or None
            for name, (dx, dy) in STEPS.items():
                nxt = (here[0] + dx, here[1] + dy)
                if nxt in self.floor and nxt != blocked and nxt not in seen:
                    seen[nxt] = seen[here] or name
                    queue.append(nxt)
        return None

    def key(self, me: Cell, facing: str, holding: str, partner: Cell, pot: str) -> str | None:
        """The key to press now (None: wait)."""
        if holding == "soup":
            target = self.window
        elif holding == "dish":
            if "ready" not in pot:
                return None  # the soup is not ready: wait where the dishes are, out of the pot's way
            target = self.pot
        else:
            target = self.dishes
        (cell, face) = target
        if me != cell:
            move = self.first_step(me, cell, partner)
            return KEYS[move] if move else None
        if FACING.get(facing) != face:
            return KEYS[face]  # the station is not floor: the chef turns to it without moving
        return " "


LOOK = """() => {
  const text = (sel) => (document.querySelector(sel) || {}).textContent || "";
  return {step: text("#step"), me: text("#agents tr[data-agent='0'] .location"),
          holding: text("#agents tr[data-agent='0'] .holding"), partner: text("#agents tr[data-agent='1'] .location"),
          pot: text("#kitchen tr[data-location='pot0'] .content"), served: text("#completed"),
          over: !document.querySelector("#survey").hidden};
}"""
WHERE = re.compile(r"\((\d+), (\d+)\) facing (\w+)")


def _where(text: str) -> tuple[Cell, str]:
    found = WHERE.search(text)
    assert found, text
    return (int(found.group(1)), int(found.group(2))), found.group(3)


async def _axe(page: Any, toasts: bool = True) -> list[dict[str, Any]]:
    """Serious or critical violations; with ``toasts=False`` the fading "served" toasts are left out."""
    if not await page.evaluate("() => !!window.axe"):
        await page.add_script_tag(path=str(AXE))
    result = await page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                                 ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => ({target: "
                                 "n.target.join(' '), html: n.html}))}))")
    out = []
    for v in result:
        nodes = [n["target"] for n in v["nodes"] if toasts or not n["html"].startswith('<span class="pop ')]
        if v["impact"] in ("serious", "critical") and (nodes or not v["nodes"]):
            out.append({"id": v["id"], "impact": v["impact"], "nodes": nodes})
    return out


async def _axe_settled(page: Any, tries: int = 3) -> list[dict[str, Any]]:
    """An axe scan of a page that redraws five times a second: a violation must show in every one of
    `tries` scans half a second apart. The toasts are left out: soups are served every few seconds
    and a toast's fade-out passes through low contrast for a moment (the kitchen's browser tests
    scan after the toasts are gone; here they never are for long)."""
    found: list[dict[str, Any]] = []
    for _ in range(tries):
        found = [v for v in await _axe(page, toasts=False) if v["nodes"]]
        if not found:
            return found
        await asyncio.sleep(0.5)
    return found


async def test_a_person_and_the_planner_serve_soup_in_real_time(tmp_path: Path, require: Any) -> None:
    require("playwright", "pip install playwright (the browser itself is Debian's chromium)")
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"no chromium at {CHROMIUM}")
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    if not AXE.exists():
        pytest.fail(f"{AXE} missing: bash scripts/setup.sh --dev (npm ci in tests/browser)")
    from playwright.async_api import async_playwright, expect

    config = ServerConfig(port=0, model="planner", model_why="the test's partner", mode="realtime", tick=TICK_S,
                          admin_token=ADMIN,
                          human_tick=TICK_S, countdown=0, recordings=tmp_path / "rooms",
                          startup=GameSpec("overcooked", LAYOUT, 2, 1.0, 0, "reference", None))
    person = Person()
    async with GameServer(config) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # to inject axe
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(server.url + f"#admin={ADMIN}")
        room = server.startup_room
        assert room is not None

        # The lobby's room form lists the game's layouts and starts from its defaults; a room on
        # another layout is made from it as an admin makes one.
        await expect(page.locator("#create-level option")).to_have_count(len(server.domain.level_names()))
        assert await page.locator("#create-level").input_value() == LAYOUT  # the game's default layout
        assert await page.locator("#create-tick").input_value() == str(TICK_S)  # the game's own pace, offered
        assert await page.locator("#create-agents").input_value() == "2"
        await page.select_option("#create-level", OTHER_LAYOUT)
        await page.check("#create-public")
        await page.click("#create-form button[type=submit]")
        await expect(page.locator("#create-result")).to_contain_text("created")
        await expect(page.locator(f"#rooms .room h3:has-text('{OTHER_LAYOUT}')")).to_have_count(1)
        made = [r for r in server.registry.rooms.values() if r.settings.spec.level == OTHER_LAYOUT]
        assert len(made) == 1 and made[0].settings.tick == TICK_S and made[0].session.static_view()["page"]["grid"]["cols"] == 5

        await page.click(f"#rooms .room[data-room='{room.id}'] [data-join='player-0']")

        # The picture: the game declared a grid, so the canvas replaces the tiles, drawn from the sheets
        # the package ships (served by name from where it is installed).
        await expect(page.locator("#grid-wrap")).to_be_visible()
        await expect(page.locator("#board")).to_be_hidden()
        await page.wait_for_function("() => grid.images.size >= 4 && "
                                     "[...grid.images.values()].every(i => i.complete && i.naturalWidth > 0)")
        drawn = await page.evaluate("""() => { const c = document.querySelector('#grid-canvas');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let lit = 0;
            for (let i = 3; i < d.length; i += 4) if (d[i]) lit++; return [c.width, c.height, lit]; }""")
        assert drawn[0] > 0 and drawn[2] == drawn[0] * drawn[1], drawn  # every pixel of the kitchen painted
        assert await page.locator("#act-up").get_attribute("aria-keyshortcuts") == "ArrowUp"
        await expect(page.locator("#grid-hud")).to_contain_text("Time left")
        await expect(page.locator("#howto li").first).to_contain_text("Arrow keys")

        keys_pressed = 0
        held: set[str] = set()
        scanned = shot = False
        last = ""
        while True:
            await page.wait_for_function("(s) => document.querySelector('#step').textContent !== s || "
                                         "!document.querySelector('#survey').hidden", arg=last, timeout=10_000)
            await asyncio.sleep(REACTION_S)
            seen = await page.evaluate(LOOK)
            if seen["over"]:
                break
            last = seen["step"]
            held.add(seen["holding"])
            me, facing = _where(seen["me"])
            partner, _ = _where(seen["partner"])
            key = person.key(me, facing, seen["holding"], partner, seen["pot"])
            if key is not None:
                await page.keyboard.press(key)
                keys_pressed += 1
            if not scanned and int(last) >= 100:
                assert await _axe_settled(page) == [], "the Overcooked page mid-game"
                scanned = True
            if not shot and SHOTS and int(seen["served"]) >= 1 and ("cooking" in seen["pot"] or seen["holding"] == "soup"):
                Path(SHOTS).mkdir(parents=True, exist_ok=True)
                await page.evaluate("() => window.scrollTo(0, 0)")
                await page.screenshot(path=str(Path(SHOTS) / "overcooked-room.png"), full_page=True)
                shot = True

        served = int(await page.locator("#completed").inner_text())
        assert room.session.engine.timestep == HORIZON  # type: ignore[attr-defined]
        assert served >= 1 and room.session.score == 20 * served  # type: ignore[attr-defined]
        assert keys_pressed > 50 and scanned
        assert {"dish", "soup"} <= held, held  # the person's own chef carried a dish, then a soup
        await page.screenshot(path=str(tmp_path / "overcooked-end.png"))
        await browser.close()
        assert not errors, errors

    recording = next((tmp_path / "rooms").rglob("*.jsonl"))
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    header = lines[0]
    assert header["pacing"]["step_every_s"] == TICK_S and header["tick"] == TICK_S  # the room's pace, kept
    by_person = [line for line in lines if line.get("type") == "actors" and "human" in line["actors"]]
    assert len(by_person) > 50  # the keys reached the game as the person's own commands
    ends = [line for line in lines if line.get("type") == "end"]
    assert ends and ends[0]["completed"] == served
