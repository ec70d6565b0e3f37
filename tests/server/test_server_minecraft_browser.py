"""The page in real headless Chromium, watching a Minecraft room that plays by itself (marked slow).

A game server runs in-process with a Minecraft start-up room (the embedded server and two
mineflayer bots, the built-in planner as dispatcher, autoplay for one 20-step episode). A person
opens the page, waits a moment on the room list and clicks "Watch". The test then checks what a
watcher reads: the orders, both bots with their position, inventory and health, the furnace,
chest, animal and block rows, the last step's commands, the live 3D view of the world beside the
orders (prismarine-viewer's WebGL canvas in its frame, drawn by Chromium's software renderer
SwiftShader: a screenshot of it must show a picture, not one flat colour), and, within the
episode, an order served (the score and the step's "Served ..." line), then the end-of-episode
summary. No script error may happen on the page. Screenshots land in the test's tmp_path (and in $MINDAGENT_SCREENSHOTS
when that is set); the mid-episode one is also copied to /tmp/mc_browser_mid.png. About 50 s;
needs Node with `npm ci` in minecraft/node, the playwright package and Debian's chromium.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import struct
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig
from minecraft.transport import NODE_DIR

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
CHROMIUM = "/usr/bin/chromium"
# WebGL without a GPU: Chromium's software renderer (SwiftShader) through ANGLE.
ARGS = ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
#: Distinct colours a screenshot of the 3D view needs to count as a drawn world (a blank or
#: one-colour canvas has 1; the kitchen with grass, blocks and animals has hundreds).
MIN_VIEW_COLOURS = 50
STEPS = 20
MID_COPY = Path("/tmp/mc_browser_mid.png")

# One frame's worth of what the page shows after a step that served an order (read in the page,
# so the score and that step's feedback lines come from the same render).
SERVED_FRAME = """() => {
  const good = [...document.querySelectorAll("#feedback li.good")].map((li) => li.textContent);
  if (!good.length) return null;
  return { step: Number(document.getElementById("step").textContent),
           completed: Number(document.getElementById("completed").textContent),
           feedback: [...document.querySelectorAll("#feedback li")].map((li) => li.textContent), good };
}"""


def png_colours(png: bytes) -> int:
    """Distinct colours of an 8-bit RGB/RGBA PNG (what Chromium's screenshots are), stdlib only."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, width, height, channels = 8, b"", 0, 0, 0
    while at < len(png):
        size, kind = struct.unpack(">I4s", png[at:at + 8])
        body = png[at + 8:at + 8 + size]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        at += size + 12
    raw, stride = zlib.decompress(idat), width * channels
    prev, seen = bytearray(stride), set()
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, row = line[0], bytearray(line[1:])
        for i in range(stride):  # undo the row filter (PNG spec, section 9)
            left = row[i - channels] if i >= channels else 0
            up, corner = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                row[i] = (row[i] + left) & 255
            elif kind == 2:
                row[i] = (row[i] + up) & 255
            elif kind == 3:
                row[i] = (row[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                row[i] = (row[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        seen.update(bytes(row[i:i + 3]) for i in range(0, stride, channels))
        prev = row
    return len(seen)


def need(require: Any) -> None:
    require("playwright", "pip install playwright (the browser itself is Debian's chromium)")
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        missing.append("needs Node 18+ and `npm ci` in minecraft/node")
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("; ".join(missing))
        pytest.skip("; ".join(missing))


async def test_watch_a_minecraft_room_in_chromium(tmp_path: Path, require: Any) -> None:
    need(require)
    from playwright.async_api import async_playwright, expect

    config = ServerConfig(port=0, model="planner", model_why="the built-in planner", tick=1.0,
                          recordings=tmp_path / "rooms", autoplay=True, episodes=1,
                          startup=GameSpec(domain="minecraft", agents=2, tau=1.0, steps=STEPS,
                                           options={"mc_port": 0, "cook_ticks": 20}))
    shots: list[str] = []

    async def shot(page: Any, name: str) -> None:
        await page.screenshot(path=str(tmp_path / name), full_page=True)
        shots.append(name)

    async with GameServer(config) as server, async_playwright() as p:
        room = server.startup_room
        assert room is not None
        join = room.session.static_view()["join"]
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1400, "height": 900})
            errors: list[str] = []
            console_errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("console", lambda msg: console_errors.append(msg.text) if msg.type == "error" else None)
            # everything, the 3D view's bundle and textures too, comes from this machine: no internet
            hosts: set[str] = set()
            page.on("request", lambda req: hosts.add(urlsplit(req.url).hostname or urlsplit(req.url).scheme))
            await page.goto(server.url)

            # The room list, as a person sees it; they read it a moment before clicking.
            card = page.locator(".room").filter(has_text="minecraft")
            await expect(card.get_by_role("heading")).to_have_text("minecraft · a team of 2", timeout=15_000)
            await expect(card.get_by_role("button", name="Play Alex")).to_be_visible()
            await expect(card.get_by_role("button", name="Play Steve")).to_be_visible()
            await page.wait_for_timeout(1500)
            await card.get_by_role("button", name="Watch").click()

            await expect(page.locator("#room-title")).to_have_text("minecraft · watching")
            await expect(page.locator("#dispatcher")).to_have_text("Dispatcher: planner")
            await expect(page.locator("#max-steps")).to_have_text(str(STEPS))
            await expect(page.locator("#status-line")).to_contain_text("real time: a step every 1s")
            await expect(page.locator("#status-line")).to_contain_text("1 watching")
            assert "cuisine" not in (await page.content()).lower()
            # "How to play" is the world's own (the page's default lines describe a kitchen's serving table)
            await expect(page.locator("#howto")).to_contain_text("Put each in the chest")
            await expect(page.locator("#howto")).not_to_contain_text("serving table")
            # The board draws the world; every detail is also in tables behind "The kitchen as tables".
            await expect(page.locator("#board .tile").first).to_be_visible(timeout=15_000)
            await page.get_by_text("The kitchen as tables").click()
            for name in ("", "app.js", "style.css"):
                assert "cuisine" not in (await (await page.request.get(server.url + name)).text()).lower(), name
            await expect(page.locator("#recipes")).to_contain_text(
                f"Join this world with a Minecraft client {join['version']} (offline mode) at "
                f"{join['host']}:{join['port']}")
            await expect(page.locator("#recipes li b").first).to_have_text(re.compile(r"^cooked_\w+$"))
            await shot(page, "watch_start.png")


            # Orders: cooked meats with their remaining steps.
            orders = page.locator("#orders li.order")
            await expect(orders.first.locator(".dish")).to_have_text(re.compile(r"^cooked (beef|chicken|mutton|porkchop)$"),
                                                                     timeout=20_000)
            await expect(orders.first.locator(".life")).to_have_text(re.compile(r"^\d+ steps? left$"))

            # Both bots: where (the place each is nearest, by name), inventory, health; no busy steps.
            agents = page.locator("#agents tbody tr")
            await expect(agents.locator("td:first-child")).to_have_text(["Alex", "Steve"])
            await expect(agents.locator(".by")).to_have_text(["dispatcher", "dispatcher"])
            await expect(page.locator("#agents thead th")).to_have_text(["agent", "played by", "position", "holding",
                                                                         "status"])
            await expect(agents.locator(".location")).to_have_text([re.compile(r"^[a-z][a-z ]*[a-z]$")] * 2)
            await expect(agents.locator(".busy")).to_have_text([re.compile(r"health \d+$")] * 2)
            carrying = agents.locator(".holding").filter(has_text=re.compile(r"^\w+ x\d+(, \w+ x\d+)*$"))
            await expect(carrying.first).to_be_visible(timeout=30_000)  # a bot picked something up

            # The kitchen: furnace (slots), chest (served dishes), the animals and the fuel blocks.
            kitchen = page.locator("#kitchen tbody tr")
            await expect(kitchen.locator("td:first-child").first).to_have_text("furnace")
            await expect(kitchen.locator("td:first-child").nth(1)).to_have_text("chest")
            for name, what in (("chicken", r"^\d+ in the pen$"), ("cow", r"^\d+ in the pen$"),
                               ("coal_ore", r"^\d+ to mine$")):
                row = page.get_by_role("row").filter(has=page.get_by_role("cell", name=name, exact=True))
                await expect(row.locator(".content")).to_have_text(re.compile(what))
            furnace = page.locator("#kitchen tr[data-location='furnace']")
            await expect(furnace.locator(".content")).to_have_text(
                re.compile(r"^(nothing|((input|fuel|output): \w+ x\d+)( & (input|fuel|output): \w+ x\d+)*)$"))
            await expect(furnace.locator("td.in-use")).to_have_text(re.compile(r"^(no|yes, \d+% cooked)$"))
            for table in ("#agents", "#kitchen"):  # no CuisineWorld-style step counts where nothing takes steps
                await expect(page.locator(table)).not_to_contain_text("step(s)")

            # The last step: one command per bot, in the domain's own syntax, and its result.
            for a, name in enumerate(("Alex", "Steve")):
                row = page.locator(f"#last-actions tr[data-agent='{a}']")
                await expect(row.locator("td").first).to_have_text(f"{name} (dispatcher)", timeout=15_000)
                await expect(row.locator(".cmd")).to_have_text(re.compile(rf"^\w+\({name}(, \w+)?\)$"))
                await expect(row.locator(".result")).to_have_text(re.compile(r"^(done|refused: .+|dispatcher not ready: idle)$"))

            # Within the episode an order is served: the score counts it and the step says so. Meanwhile
            # the live 3D view beside the orders draws the bots' world in WebGL in its frame.
            serving = asyncio.ensure_future(page.wait_for_function(SERVED_FRAME, timeout=60_000, polling="raf"))
            view = room.session.static_view()["view3d"]
            assert view is not None and view["port"] > 0
            await expect(page.locator("#view3d-card")).to_be_visible()
            await expect(page.locator("#view3d")).to_have_attribute("src", re.compile(rf":{view['port']}/$"))
            canvas = page.frame_locator("#view3d").locator("canvas")
            await expect(canvas).to_be_visible(timeout=30_000)
            colours = 0
            for _ in range(40):  # the world arrives chunk by chunk and is meshed in a worker
                colours = png_colours(await canvas.screenshot())
                if colours >= MIN_VIEW_COLOURS:
                    break
                await page.wait_for_timeout(1000)
            drawn_at = room.session.step_index
            assert colours >= MIN_VIEW_COLOURS, f"the 3D view shows {colours} colour(s): blank"
            assert drawn_at < STEPS, "the 3D view was drawn only after the episode"
            await page.locator("#view3d-card").screenshot(path=str(tmp_path / "watch_3d.png"))
            shots.append("watch_3d.png")
            served = await (await serving).json_value()
            assert served["completed"] >= 1, served
            dishes = [m.group(1) for line in served["good"] if (m := re.fullmatch(r"Served (\w+)!", line))]
            assert dishes, served
            assert all(f"Order for {dish} completed." in served["feedback"] for dish in dishes), served
            await shot(page, "watch_served.png")


            # Mid-episode: the picture a watcher has half-way through.
            await page.wait_for_function(f"() => Number(document.getElementById('step').textContent) >= {STEPS // 2}",
                                         timeout=40_000)
            await expect(page.locator("#completed")).not_to_have_text("0")
            await shot(page, "watch_mid.png")

            # The end: spectators get the summary, not the questionnaire's restart button.
            survey = page.locator("#survey")
            await expect(survey).to_be_visible(timeout=60_000)
            counts = room.session.counts
            await expect(page.locator("#survey-summary")).to_contain_text(
                f"Team: served {counts.completed}, expired {counts.failed}, still open {counts.active}.")
            await expect(survey.locator("fieldset.likert")).to_have_count(0)  # the questionnaire is for players
            for restart in ("#restart", "#restart-inline"):  # a watcher cannot restart the room
                await expect(page.locator(restart)).to_be_hidden()
            await expect(page.locator("#step")).to_have_text(str(STEPS))
            await expect(page.locator("#completed")).to_have_text(str(counts.completed))
            assert counts.completed >= 1
            await shot(page, "watch_end.png")
            assert not errors, errors
            assert not console_errors, console_errors
            assert hosts <= {"127.0.0.1", "data", "blob"}, hosts
        finally:
            await browser.close()

    shutil.copy(tmp_path / "watch_mid.png", MID_COPY)
    saved = os.environ.get("MINDAGENT_SCREENSHOTS")
    if saved:
        Path(saved).mkdir(parents=True, exist_ok=True)
        for name in shots:
            shutil.copy(tmp_path / name, Path(saved) / f"minecraft_{name}")
