"""The example plugin's board in Chromium, served by `mindagent serve` in its own process with the
plugin installed as a user installs it: the buttons come from the game's own page actions, are
enabled, and act (take, go, drop) at a person's pace until a parcel is delivered."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from browser_support import ARGS, AXE, CHROMIUM, need_browser, serious_violations

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
PACE_S = 1.2  # a person acts a second or two after the board changes


def _serve(env: dict[str, str], recordings: Path) -> tuple[subprocess.Popen[str], int, list[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", "from mindagent.cli import main; main()", "serve", "--domain", "parcels", "--houses", "3",
         "--agents", "1", "--port", "0", "--model", "planner", "--mode", "turns", "--turn-timeout", "120",
         "--countdown", "0", "--recordings", str(recordings)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**env, "COLUMNS": "200"})
    output: list[str] = []
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any("Ctrl-C" in line for line in output):
        line = proc.stdout.readline()
        if not line:
            raise AssertionError("serve exited:\n" + "".join(output))
        output.append(line)
    port = re.search(r"on http://127\.0\.0\.1:(\d+)/", "".join(output))
    assert port, "".join(output)
    stream = proc.stdout
    threading.Thread(target=lambda: output.extend(stream), daemon=True).start()
    return proc, int(port.group(1)), output


async def test_the_plugin_board_plays_in_chromium(parcels_env: dict[str, str], tmp_path: Path, require: Any) -> None:
    need_browser(require)
    if not AXE.exists():
        pytest.fail(f"{AXE} missing: bash scripts/setup.sh --dev (npm ci in tests/browser)")
    from playwright.async_api import async_playwright, expect

    proc, port, output = _serve(parcels_env, tmp_path / "rooms")
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = await browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            await page.goto(f"http://127.0.0.1:{port}/")
            await page.click("#join-player-0")
            await expect(page.locator("#board .tile")).to_have_count(4)  # the depot and three houses
            await expect(page.locator("#board-title")).to_have_text("The street")
            await expect(page.locator("#actions .act")).to_have_count(4)  # the game's four groups

            # take the waiting parcel at the depot: pick the tile, then the game's Take button
            await page.wait_for_timeout(PACE_S * 1000)
            await page.click("#board .tile[data-location='depot']")
            await expect(page.locator("#act-take")).to_have_attribute("aria-disabled", "false")
            await expect(page.locator("#act-take")).to_have_attribute("data-command", "take_agent0_depot")
            await page.click("#act-take")
            await expect(page.locator("#step")).to_have_text("1")

            # the order names its house; go there by keyboard (the Go group's key), then drop
            wanted = await page.locator("#orders .order .dish").first.inner_text()
            house = re.search(r"house (\d)", wanted)
            assert house, wanted
            await page.wait_for_timeout(PACE_S * 1000)
            await page.click(f"#board .tile[data-location='house{house.group(1)}']")
            await expect(page.locator("#act-move")).to_have_attribute("data-command", f"move_agent0_house{house.group(1)}")
            await page.keyboard.press("g")
            await expect(page.locator("#step")).to_have_text("2")
            await page.wait_for_timeout(PACE_S * 1000)
            await expect(page.locator("#act-drop")).to_have_attribute("aria-disabled", "false")
            await page.click("#act-drop")
            await expect(page.locator("#step")).to_have_text("3")
            await expect(page.locator("#completed")).to_have_text("1")
            await expect(page.locator("#completed-label")).to_have_text("delivered")

            await expect(page.locator("#pops .pop")).to_have_count(0, timeout=5000)
            assert await serious_violations(page) == [], "the plugin's page"
            await page.screenshot(path=str(tmp_path / "parcels.png"), full_page=True)
            await browser.close()
            assert not errors, errors
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        print("".join(output)[-2000:])
