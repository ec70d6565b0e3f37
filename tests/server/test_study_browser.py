"""A participant walks a two-episode study (`serve --study`) in Debian's headless Chromium, by
keyboard only: agrees to the consent text, plays both episodes acting about 1 s after each
change, answers the questionnaire both times, reaches the thank-you, and `mindagent study export`
(the real command line) writes a CSV with their two rows, answers and scores."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cuisineworld.adapter.planners import CuisinePlanner
from mindagent.evaluation.study_table import study_rows
from mindagent.server import GameServer, ServerConfig
from mindagent.server.protocol import QUESTIONNAIRE
from mindagent.server.settings import PlayerLimits
from mindagent.server.study import load_study
from tests.server.test_server_play_browser import ARGS, AXE, CHROMIUM, KEY, _axe, _need_browser, _target

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
ROOT = Path(__file__).resolve().parents[2]
ENTRY = {"agents": 2, "partner": "planner", "pace": 1.0, "steps": 8}
STUDY = {"name": "pilot", "consent": "You will play two short games with a team. Nothing that names you is kept.",
         "entries": [{"level": "level_0", **ENTRY}, {"level": "level_1", **ENTRY, "seat": 1}]}


async def _play_by_keyboard(page: Any, server: GameServer) -> None:
    """Act about 1 s after each change, as the planner would for the person's agent, until the end."""
    from playwright.async_api import expect

    await expect(page.locator("#board .tile").first).to_be_visible()
    rooms = [r for r in server.registry.rooms.values() if r.settings.study is not None]
    assert len(rooms) == 1, "one private room per participant"
    room = rooms[0]
    seat = room.settings.study["seat"] if room.settings.study else 0
    planner = CuisinePlanner()
    deadline = time.monotonic() + 90
    while room.status != "finished" and time.monotonic() < deadline:
        if room.status != "running":
            await page.wait_for_timeout(200)
            continue
        step = str(await page.locator("#step").text_content())
        await page.wait_for_timeout(1000)
        if room.status != "running":
            break
        wanted = planner.act_for(room.session, [seat])[0]  # type: ignore[attr-defined]
        verb, item, place = _target(wanted)
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
        try:
            await page.wait_for_function("s => document.getElementById('step').textContent !== s "
                                         "|| !document.getElementById('survey').hidden", arg=step, timeout=10_000)
        except Exception:  # noqa: BLE001 - the loop's own deadline decides
            pass
    assert room.status == "finished"


async def _answer_by_keyboard(page: Any, value: int) -> None:
    from playwright.async_api import expect

    await expect(page.locator("#survey-items fieldset").first).to_be_visible(timeout=15_000)
    assert await page.locator("#survey-skip").is_hidden(), "a study asks every time"
    for q in QUESTIONNAIRE:
        await page.locator(f"input[name='{q['id']}'][value='{value}']").focus()
        await page.keyboard.press("Space")
    await page.locator("#survey-comment").focus()
    await page.keyboard.type(f"round {value}")
    await page.locator("#survey-submit").focus()
    await page.keyboard.press("Enter")
    await expect(page.locator("#survey-note")).to_contain_text("Answers saved")


async def test_a_participant_walks_a_two_episode_study_and_the_export_has_their_rows(tmp_path: Path,
                                                                                     require: Any) -> None:
    _need_browser(require)
    if not AXE.exists():
        pytest.fail(f"{AXE} missing: bash scripts/setup.sh --dev (npm ci in tests/browser)")
    from playwright.async_api import async_playwright, expect

    study_file = tmp_path / "study.json"
    study_file.write_text(json.dumps(STUDY))
    rooms = tmp_path / "rooms"
    config = ServerConfig(port=0, model="planner", model_why="the built-in planner", recordings=rooms, startup=None,
                          countdown=1.0, player_limits=PlayerLimits(paces=(1.0,)), study=load_study(study_file))
    async with GameServer(config) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # to inject axe
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(server.url)
        await expect(page.locator("#study-text")).to_have_text(STUDY["consent"])
        assert await page.locator("#lobby").is_hidden(), "consent comes before anything else"
        assert await _axe(page) == [], "consent page"
        assert await page.evaluate("() => document.activeElement.id") == "study-agree"
        await page.keyboard.press("Enter")
        await expect(page.locator("#study-progress")).to_have_text("Episode 1 of 2")
        await _play_by_keyboard(page, server)
        await _answer_by_keyboard(page, 4)
        await expect(page.locator("#study-next")).to_be_focused()
        await page.keyboard.press("Enter")
        await expect(page.locator("#study-progress")).to_have_text("Episode 2 of 2")
        await _play_by_keyboard(page, server)
        await _answer_by_keyboard(page, 2)
        await expect(page.locator("#study-title")).to_have_text("Thank you")
        assert await page.locator("#lobby").is_hidden() and await page.locator("#study-agree").is_hidden()
        assert await _axe(page) == [], "thank-you page"
        await page.wait_for_timeout(300)
        assert not any(r.settings.study for r in server.registry.rooms.values()), "the last room closed"
        await browser.close()
        assert not errors, errors
    out = tmp_path / "study.csv"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", "from mindagent.cli import main; main()", "study", "export",
                           "--recordings", str(rooms), "--out", str(out)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open()))
    assert [(r["index"], r["level"], r["seat"]) for r in rows] == [("0", "level_0", "0"), ("1", "level_1", "1")]
    assert len({r["participant"] for r in rows}) == 1
    assert [r["trust"] for r in rows] == ["4", "2"] and [r["comment"] for r in rows] == ["round 4", "round 2"]
    for r in rows:
        assert r["ended"] == "True" and r["steps"] == "8" and r["score"] != "" and 0 <= float(r["score"]) <= 1
        assert int(r["commands"]) > 0, "the person's keyboard commands are in the recording"


def _study_room(server: GameServer) -> Any:
    rooms = [r for r in server.registry.rooms.values() if r.settings.study is not None]
    assert len(rooms) == 1, "one private room per participant"
    return rooms[0]


async def test_a_participant_who_reloads_comes_back_as_the_same_participant(tmp_path: Path, require: Any) -> None:
    """A reload mid-episode replays that episode, a reload after the questionnaire goes on to the
    next; neither asks for consent again nor makes a new participant."""
    _need_browser(require)
    from playwright.async_api import async_playwright, expect

    study_file = tmp_path / "study.json"
    study_file.write_text(json.dumps(STUDY))
    config = ServerConfig(port=0, model="planner", model_why="the built-in planner", recordings=tmp_path / "rooms",
                          startup=None, countdown=1.0, player_limits=PlayerLimits(paces=(1.0,)),
                          study=load_study(study_file))
    async with GameServer(config) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(server.url)
        await expect(page.locator("#study-agree")).to_be_focused()
        await page.keyboard.press("Enter")
        await expect(page.locator("#board .tile").first).to_be_visible()
        first = _study_room(server).settings.study
        assert first is not None and first["index"] == 0
        await page.wait_for_function("() => Number(document.getElementById('step').textContent) >= 2",
                                     timeout=15_000)  # two steps into the episode, then the tab reloads
        await page.reload()
        await expect(page.locator("#study-title")).to_have_text(f"Welcome back: {STUDY['name']}")
        await expect(page.locator("#study-text")).to_contain_text("Episode 1 of 2 was cut off")
        assert await page.locator("#lobby").is_hidden()
        assert await _axe(page) == [], "welcome-back page"
        await expect(page.locator("#study-agree")).to_be_focused()
        await page.keyboard.press("Enter")
        await expect(page.locator("#study-progress")).to_have_text("Episode 1 of 2")
        await expect(page.locator("#board .tile").first).to_be_visible()
        await page.wait_for_timeout(300)
        again = _study_room(server).settings.study
        assert again is not None and again["participant"] == first["participant"] and again["index"] == 0
        await _play_by_keyboard(page, server)
        await _answer_by_keyboard(page, 3)
        await page.reload()
        await expect(page.locator("#study-text")).to_have_text("Episode 2 of 2 is next.")
        await page.keyboard.press("Enter")
        await expect(page.locator("#study-progress")).to_have_text("Episode 2 of 2")
        await page.wait_for_timeout(300)
        second = _study_room(server).settings.study
        assert second is not None and second["participant"] == first["participant"] and second["index"] == 1
        await browser.close()
        assert not errors, errors
    rows, _ = study_rows(tmp_path / "rooms")
    cut = [r for r in rows if r["index"] == 0 and r["steps"] < 8]
    full = [r for r in rows if r["index"] == 0 and r["steps"] == 8]
    assert len(cut) == 1 and len(full) == 1, rows
    assert {r["participant"] for r in rows} == {first["participant"]}
    assert full[0]["answers"] and not cut[0]["answers"]
    assert cut[0]["ended"] is False and full[0]["ended"] is True, "the export tells the cut-off attempt apart"
