"""One episode of Parcels behind MindAgent's domain contract."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mindagent.domain import JSON, Counts, DomainSession, DomainStep, PromptParts, Verdict
from parcels.rules import COMMAND, REASONS, Refusal, Street, parse


class ParcelsSession(DomainSession):
    """Example: ``ParcelsSession(houses=3, agents=2, tau=1.0, seed=0, max_steps=30)``."""

    domain = "parcels"

    def __init__(self, houses: int, agents: int, tau: float, seed: int, max_steps: int) -> None:
        self.houses, self.n_agents, self.tau, self.seed, self.max_steps = houses, agents, tau, seed, max_steps
        self.name = f"street_{houses}"
        self.street = Street.new(houses, agents, tau, seed)
        self._started = False

    @property
    def agent_names(self) -> list[str]:
        return [f"agent{k}" for k in range(self.n_agents)]

    async def reset(self, seed: int | None = None) -> None:
        # without a seed the parcel stream carries on from the last episode's generator
        rng = self.street.rng
        self.street = Street.new(self.houses, self.n_agents, self.tau, self.seed if seed is None else seed)
        if seed is None and self._started:
            self.street.rng = rng
        else:
            self.seed = self.seed if seed is None else seed
        self._started = True

    def _verdicts(self, commands: Sequence[str], street: Street) -> tuple[list[Verdict], list[str]]:
        verdicts: list[Verdict] = []
        completed: list[str] = []
        seen: set[int] = set()
        for command in commands:
            parsed = parse(command)
            refusal: Refusal | None
            if parsed is None:
                refusal = Refusal("malformed", command[:40])
            elif parsed[1] in seen:
                refusal = Refusal("twice", f"agent{parsed[1]}")
            else:
                refusal = street.judge(*parsed)
            if refusal is None and parsed is not None:
                seen.add(parsed[1])
                completed += street.apply(*parsed)
                verdicts.append(Verdict(command, True))
            else:
                assert refusal is not None
                if parsed is not None and 0 <= parsed[1] < street.agents:
                    seen.add(parsed[1])
                text = f"{command[:60]} {REASONS[refusal.code]}" + (f" ({refusal.detail})" if refusal.detail else "")
                verdicts.append(Verdict(command, False, refusal, text))
        return verdicts, completed

    async def step(self, commands: Sequence[str]) -> DomainStep:
        verdicts, completed = self._verdicts(list(commands), self.street)
        failed = self.street.end_step()
        notes = [v.text for v in verdicts if v.text] + [f"{name} expired" for name in failed]
        return DomainStep(verdicts, notes, completed, failed)

    def check(self, commands: Sequence[str]) -> list[Verdict]:
        return self._verdicts(list(commands), self._copy())[0]

    def _copy(self) -> Street:
        twin = Street.new(self.houses, self.n_agents, self.tau, 0)
        twin.places = list(self.street.places)
        twin.orders = [type(o)(o.id, o.house, o.lifetime, o.carrier) for o in self.street.orders]
        return twin

    def legal_commands(self, agent: int) -> list[str]:
        street = self.street
        out = [f"wait_agent{agent}"]
        out += [f"move_agent{agent}_{p}" for p in street.place_names() if street.judge("move", agent, p) is None]
        if street.judge("take", agent, "depot") is None:
            out.append(f"take_agent{agent}_depot")
        here = street.places[agent]
        if street.judge("drop", agent, here) is None:
            out.append(f"drop_agent{agent}_{here}")
        return out

    def extract_commands(self, text: str) -> list[str]:
        found: list[str] = []
        agents: set[int] = set()
        for match in COMMAND.finditer(text[:65_536]):
            agent = int(match.group(2))
            if agent not in agents and 0 <= agent < self.n_agents:
                agents.add(agent)
                found.append(match.group(0))
        return found

    def state_text(self) -> str:
        street = self.street
        lines = [f"Step {street.step_index} of {self.max_steps}."]
        waiting = street.waiting()
        lines.append("Depot: " + (", ".join(f"parcel{o.id} for house{o.house} ({o.lifetime} steps left)" for o in waiting)
                                   or "no parcels waiting") + ".")
        for k, place in enumerate(street.places):
            held = street.carrying(k)
            carried = f"carrying parcel{held.id} for house{held.house} ({held.lifetime} steps left)" if held else "hands empty"
            lines.append(f"agent{k}: at {place}, {carried}.")
        return "\n".join(lines)

    def prompt_parts(self) -> PromptParts:
        places = ", ".join(self.street.place_names())
        return PromptParts(
            recipes=f"A parcel is delivered by taking it at the depot and dropping it at its house. Places: {places}.",
            instructions=("You dispatch couriers. Each step, write one command per courier, one per line:\n"
                          "move_agentK_PLACE, take_agentK_depot, drop_agentK_houseH, wait_agentK."),
            knowledge="Parcels expire; deliver the most urgent first and send couriers to different houses.",
            director="The dispatcher's supervisor says",
        )

    def idle_command(self, agent: int) -> str:
        return f"wait_agent{agent}"

    def orders_snapshot(self) -> list[dict[str, JSON]]:
        orders = sorted(self.street.orders, key=lambda o: (o.lifetime, o.id))
        return [{"id": o.id, "dish": f"house{o.house}", "lifetime": o.lifetime} for o in orders]

    def episode_header(self) -> dict[str, JSON]:
        return {"houses": self.houses, "episode_seed": self.seed}

    async def restore(self, header: Mapping[str, JSON]) -> None:
        """Replay: a fresh street from the recorded seed (declares the Replayable capability)."""
        seed = header.get("episode_seed")
        await self.reset(seed=int(seed) if isinstance(seed, int) else self.seed)

    # ---- the page: tiles, the buttons' groups and what each legal command means (PageActions)
    def view(self) -> dict[str, JSON]:
        base = super().view()
        street = self.street
        agents = base["agents"]
        assert isinstance(agents, list)
        for k, row in enumerate(agents):
            held = street.carrying(k)
            row.update({"location": street.places[k], "holding": None if held is None else f"parcel{held.id}"})
        waiting = street.waiting()
        tiles: list[JSON] = [{"id": "depot", "label": "depot", "kind": "depot", "stock": False, "busy": None,
                              "users": None, "goal": bool(waiting),
                              "holds": [f"parcel{o.id} for house{o.house}" for o in waiting]}]
        wanted = {o.house for o in street.orders}
        tiles += [{"id": f"house{h}", "label": f"house {h}", "kind": "house", "stock": False, "busy": None,
                   "users": None, "goal": h in wanted, "holds": []} for h in range(self.houses)]
        base["tiles"] = tiles
        base["locations"] = [{"name": t["id"], "type": t["kind"], "content": t["holds"], "busy": 0, "in_use": False,
                              "gettable": t["id"] == "depot"} for t in tiles if isinstance(t, dict)]
        return base

    def static_view(self) -> dict[str, JSON]:
        return {**super().static_view(),
                "display": {f"house{h}": f"a parcel for house {h}" for h in range(self.houses)},
                "howto": ["Take a parcel at the depot, carry it to its house and drop it there before it expires."],
                "page": {"words": {"title": "street", "board": "The street", "director": "supervisor",
                                   "completed": "delivered", "failed": "expired", "completed_line": "Delivered {}!"},
                         "groups": [{"id": "move", "label": "Go", "key": "g", "many": False},
                                    {"id": "take", "label": "Take", "key": "t", "many": False},
                                    {"id": "drop", "label": "Drop", "key": "d", "many": False},
                                    {"id": "wait", "label": "Wait", "key": "w", "many": False}]}}

    def page_actions(self, agent: int, legal: Sequence[str]) -> list[dict[str, JSON]]:
        words = {"move": "go to {}", "take": "take a parcel at the {}", "drop": "drop the parcel at {}"}
        out: list[dict[str, JSON]] = []
        for command in legal:
            parsed = parse(command)
            if parsed is None:
                continue
            verb, _, place = parsed
            label = "wait" if place is None else words[verb].format(place.replace("house", "house "))
            out.append({"command": command, "label": label, "group": verb, "tile": place})
        return out

    @property
    def step_index(self) -> int:
        return self.street.step_index

    @property
    def done(self) -> bool:
        return self.street.step_index >= self.max_steps

    @property
    def counts(self) -> Counts:
        return Counts(self.street.completed, self.street.failed, len(self.street.orders))
