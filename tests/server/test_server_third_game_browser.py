"""A game the page has never heard of gets a playable board in Debian's real headless Chromium.

`Chimes` is a tiny third game defined here: three tiles with bells, two verbs (`hop` to a tile,
`ring` the bell where you stand) in a command syntax unlike either shipped game, and orders that
ask for a bell to be rung. It describes its own page (tiles, action groups with keys, what each
legal command means, its words), and the test checks that the shared page draws it, enables its
buttons, sends the exact command a button carries, and follows the state as it changes, with no
kitchen words on screen and nothing serious for axe-core. It is registered by patching the domain
table of a server started in-process (the entry point will take its place).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from browser_support import ARGS, AXE, CHROMIUM, need_browser, serious_violations

from mindagent import domains
from mindagent.core.domain import Counts, DomainBase, DomainSession, DomainStep, PromptParts, SpecError, Verdict
from mindagent.core.plugin import DomainPlugin
from mindagent.core.spec import GameSpec
from mindagent.dispatch.brains import Brain, PolicyBrain
from mindagent.server import GameServer, ServerConfig

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
SHOTS = os.environ.get("MINDAGENT_SCREENSHOTS")

TILES = ("north", "south", "east")
LIFETIME = 12


class ChimesSession(DomainSession):
    """Agents stand at tiles; an order asks for the bell of one tile; ringing it there completes it."""

    domain = "chimes"
    name = "meadow"

    def __init__(self, agents: int, steps: int) -> None:
        self.n_agents, self.max_steps = agents, steps
        self.at: list[str] = []
        self.order: tuple[int, str, int] = (0, "", 0)  # id, tile, steps left
        self.t = 0
        self.done_orders = self.missed = 0

    @property
    def agent_names(self) -> list[str]:
        return [f"ringer{a}" for a in range(self.n_agents)]

    async def reset(self, seed: int | None = None) -> None:
        self.at, self.t, self.done_orders, self.missed = ["north"] * self.n_agents, 0, 0, 0
        self.order = (1, "south", LIFETIME)

    def _parse(self, command: str) -> tuple[str, int, str | None] | None:
        parts = command.split("@")
        if len(parts) not in (2, 3) or parts[1] not in self.agent_names:
            return None
        return parts[0], self.agent_names.index(parts[1]), parts[2] if len(parts) == 3 else None

    def _why_not(self, command: str) -> str | None:
        parsed = self._parse(command)
        if parsed is None:
            return "not a chimes command"
        verb, agent, tile = parsed
        if verb == "rest" and tile is None:
            return None
        if verb == "hop" and tile in TILES and tile != self.at[agent]:
            return None
        if verb == "ring" and tile == self.at[agent]:
            return None
        return f"cannot {verb} there"

    def check(self, commands: Sequence[str]) -> list[Verdict]:
        return [Verdict(c, (why := self._why_not(c)) is None, None, why) for c in commands]

    async def step(self, commands: Sequence[str]) -> DomainStep:
        verdicts = self.check(commands)
        completed, failed = [], []
        oid, want, left = self.order
        for v in verdicts:
            parsed = self._parse(v.command)
            if not v.ok or parsed is None:
                continue
            verb, agent, tile = parsed
            if verb == "hop" and tile is not None:
                self.at[agent] = tile
            elif verb == "ring" and tile == want and left > 0:
                completed.append(f"chime_{want}")
                left = 0
        self.t += 1
        if completed:
            self.done_orders += 1
        elif left <= 1:
            failed.append(f"chime_{want}")
            self.missed += 1
        if completed or failed:
            oid, want, left = oid + 1, TILES[(TILES.index(want) + 1) % len(TILES)], LIFETIME + 1
        self.order = (oid, want, left - 1)
        return DomainStep(verdicts, [], completed, failed)

    def legal_commands(self, agent: int) -> list[str]:
        me = self.agent_names[agent]
        out = [f"rest@{me}"] + [f"hop@{me}@{t}" for t in TILES if t != self.at[agent]]
        return out + [f"ring@{me}@{self.at[agent]}"]

    def extract_commands(self, text: str) -> list[str]:
        return [w for w in text.split() if self._parse(w) is not None]

    def state_text(self) -> str:
        return f"step {self.t}; ringers at {', '.join(self.at)}; ring the {self.order[1]} bell"

    def prompt_parts(self) -> PromptParts:
        return PromptParts("ring the bell an order names", "hop@name@tile, ring@name@tile", "")

    def idle_command(self, agent: int) -> str:
        return f"rest@{self.agent_names[agent]}"

    def orders_snapshot(self) -> list[dict[str, Any]]:
        oid, want, left = self.order
        return [{"id": oid, "dish": f"chime_{want}", "lifetime": left}]

    @property
    def step_index(self) -> int:
        return self.t

    @property
    def done(self) -> bool:
        return self.t >= self.max_steps

    @property
    def counts(self) -> Counts:
        return Counts(self.done_orders, self.missed, 1)

    # ---- the page
    def view(self) -> dict[str, Any]:
        base = super().view()
        for a, row in enumerate(base["agents"]):
            row["location"] = self.at[a]
        want = self.order[1]
        base["tiles"] = [{"id": t, "label": f"{t} bell", "kind": "bell", "holds": ["rung for the order"] if t == want else [],
                          "busy": None, "users": None, "goal": t == want, "stock": False} for t in TILES]
        base["locations"] = [{"name": t, "type": "bell", "content": [], "busy": 0, "in_use": False, "gettable": False}
                             for t in TILES]
        return base

    def static_view(self) -> dict[str, Any]:
        return {**super().static_view(), "display": {f"chime_{t}": f"a chime at {t}" for t in TILES},
                "howto": ["Hop to the bell an order names and ring it."],
                "page": {"words": {"title": "meadow", "board": "Meadow", "director": "bandleader", "completed": "rung",
                                   "failed": "silent", "completed_line": "Rang {}!"},
                         "groups": [{"id": "hop", "label": "Hop", "key": "h", "many": False},
                                    {"id": "ring", "label": "Ring", "key": "r", "many": False}]}}

    def page_actions(self, agent: int, legal: Sequence[str]) -> list[dict[str, Any]]:
        out = []
        for command in legal:
            parsed = self._parse(command)
            if parsed is not None and parsed[0] in ("hop", "ring"):
                verb, _, tile = parsed
                out.append({"command": command, "label": f"{verb} {'to' if verb == 'hop' else 'the bell at'} {tile}",
                            "group": verb, "tile": tile})
        return out


class ChimesDomain(DomainBase):
    name = "chimes"
    title = "Chimes"
    default_level = "meadow"
    default_agents = 1
    policies = ("rest",)
    has_demo = False
    live_world = False
    serve_agents = 1
    practice_level = None

    def validate(self, spec: GameSpec) -> GameSpec:
        if spec.level not in (None, "meadow"):
            raise SpecError(f"chimes has one level, meadow (not {spec.level})")
        return spec.with_(level="meadow")

    def make_session(self, spec: GameSpec) -> DomainSession:
        return ChimesSession(spec.agents, spec.steps or 30)

    def make_policy(self, name: str, seed: int) -> Any:
        return Resting()

    def level_names(self) -> list[str]:
        return ["meadow"]

    def reference_figures(self) -> None:
        return None

    def process_metrics(self, header: Any, steps: Any) -> dict[str, Any]:
        return {}

    def parse_levels(self, text: str) -> list[str]:
        return ["meadow"]


class Resting:
    """The dispatcher of agents no person plays: it rests (the person is the one under test)."""

    name = "rest"

    def reset(self, session: object) -> None:
        return None

    def act(self, session: Any) -> list[str]:
        return [session.idle_command(a) for a in range(session.n_agents)]


def _resting_brain(model: str, domain: str) -> Brain:
    return PolicyBrain(Resting())


async def test_a_third_game_gets_a_playable_board(tmp_path: Path, require: Any, request: Any) -> None:
    need_browser(require)
    if not AXE.exists():
        pytest.fail(f"{AXE} missing: bash scripts/setup.sh --dev (npm ci in tests/browser)")
    from playwright.async_api import async_playwright, expect

    # registered in this process, as a game being written is before it is installed (the entry-point
    # path itself is tested with examples/parcels in tests/plugins)
    domains.register(DomainPlugin("chimes", "Chimes", "chimes:DOMAIN"), ChimesDomain())
    request.addfinalizer(lambda: domains.unregister("chimes"))
    config = ServerConfig(port=0, model="rest", model_why="the test's resting policy", mode="turns", tick=0.05,
                          turn_timeout=600, countdown=0, recordings=tmp_path / "rooms",
                          startup=GameSpec("chimes", "meadow", 1, 1.0, 0, "reference", 30))
    async with GameServer(config, brain_factory=_resting_brain) as server, async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # to inject axe
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(server.url)
        await page.click("#join-player-0")
        room = server.startup_room
        assert room is not None
        await expect(page.locator("#board .tile")).to_have_count(len(TILES))
        await expect(page.locator("#board-title")).to_have_text("Meadow")
        await expect(page.locator("#board .tile[data-location='south'] .name")).to_have_text("south bell")
        await expect(page.locator("#orders .order .dish")).to_have_text(["a chime at south"])
        await expect(page.locator("#actions .act")).to_have_count(2)  # the game's two groups, nothing else
        assert await page.locator("#act-hop").get_attribute("aria-keyshortcuts") == "h"

        # Pick the south tile, hop there: the button carries the game's own command, sent as is.
        await page.click("#board .tile[data-location='south']")
        await expect(page.locator("#act-hop")).to_have_attribute("aria-disabled", "false")
        await expect(page.locator("#act-hop")).to_have_attribute("data-command", "hop@ringer0@south")
        await expect(page.locator("#act-hop")).to_contain_text("Hop to south")
        await expect(page.locator("#act-ring")).to_have_attribute("aria-disabled", "true")  # not standing there yet
        await page.click("#act-hop")
        await expect(page.locator("#step")).to_have_text("1")
        assert room.session.at == ["south"]  # type: ignore[attr-defined]
        await expect(page.locator("#board .tile[data-location='south']")).to_have_class(re.compile("has-me"))
        await expect(page.locator("#last-actions tr[data-agent='0'] .cmd")).to_have_text("hop@ringer0@south")

        # Now the bell is in reach: ring it by keyboard (the group's key), and the order is done.
        await expect(page.locator("#act-ring")).to_have_attribute("aria-disabled", "false")
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(Path(SHOTS) / "third-game.png"), full_page=True)
        await page.keyboard.press("r")
        await expect(page.locator("#step")).to_have_text("2")
        await expect(page.locator("#completed")).to_have_text("1")
        await expect(page.locator("#completed-label")).to_have_text("rung")
        await expect(page.locator("#feedback li.good")).to_have_text(["Rang chime_south!"])
        await expect(page.locator("#orders .order .dish")).to_have_text(["a chime at east"])

        # Every legal command is also listed as text; none of the shipped games' words are on screen.
        await page.locator("#all-commands").evaluate("d => d.open = true")
        shown = await page.locator("#legal button[data-command]").evaluate_all("bs => bs.map(b => b.dataset.command)")
        assert sorted(shown) == sorted(room.session.legal_commands(0))
        text = (await page.evaluate("() => document.body.innerText")).lower()
        for word in ("kitchen", "chef", "dish", "served", "cook"):
            assert word not in text, word
        await expect(page.locator("#pops .pop")).to_have_count(0, timeout=5000)  # its fade-out would be mid-contrast
        assert await serious_violations(page) == [], "the third game's page"
        await page.screenshot(path=str(tmp_path / "third-game.png"), full_page=True)
        await browser.close()
        assert not errors, errors
