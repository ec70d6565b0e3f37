"""One Overcooked episode under our commands: tasks per chef, timesteps, collisions, deliveries.

A dispatcher step hands each chef a command. Medium-level commands become tasks the action
manager carries out one timestep at a time with the package's motion planner (re-aimed every
timestep, so a chef follows a moving target and detours around its partner); primitive commands,
``wait`` and ``move_away`` last one timestep. The step then advances timesteps until some chef is
free again (its task finished or stopped), `STEP_CAP` timesteps have passed, or the horizon ends:
the dispatcher is asked when a chef needs it, as LLM-Coordination does. No I/O, no randomness:
the same commands from the same start give the same episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from overcooked_game.commands import Command, Unreadable, parse
from overcooked_game.kitchen import DIRECTIONS, Kitchen, Pos, Refusal, refuse
from overcooked_game.wording import describe

HORIZON = 400
#: Most timesteps one dispatcher step may advance before the dispatcher hears back.
STEP_CAP = 8
#: A task that has not finished after this many timesteps is stopped (a soup cooks in 20).
TASK_LIMIT = 60
#: Timesteps a chef may stand blocked by its partner, with no way around, before its task stops.
BLOCKED_LIMIT = 4
STAY: Any = (0, 0)
INTERACT = "interact"
PRIMITIVE_ACTIONS: dict[str, Any] = {"up": (0, -1), "down": (0, 1), "right": (1, 0), "left": (-1, 0),
                                     "stay": STAY, "interact": INTERACT}
_DONE_WHEN_HOLDING = {"pickup_onion": "onion", "pickup_dish": "dish", "pickup_soup": "soup", "fill_dish": "soup"}
_DONE_WHEN_EMPTY = ("put_onion", "deliver", "place")


@dataclass(slots=True)
class Task:
    """A command being carried out: when it started and how long it has been blocked."""

    command: Command
    started: int
    blocked: int = 0
    #: A cell the chef is routing around (where a partner steering by primitives stood still when
    #: they would have collided); kept while someone still stands there, so the chef does not step
    #: back onto its old path. Two chefs under medium-level commands resolve it as before.
    avoid: Pos | None = None
    #: A partner steering by primitives this chef has once detoured around: for the rest of the
    #: task it keeps to the side of the kitchen that partner is not on (no turning back into it).
    around: int | None = None


@dataclass(slots=True)
class Judged:
    """The verdicts of a joint command list, and the command each chef accepted (if any)."""

    refusals: list[Refusal | None]
    accepted: dict[int, Command] = field(default_factory=dict)


@dataclass(slots=True)
class Advance:
    """What one dispatcher step did to the world."""

    start: int
    end: int
    notes: list[str] = field(default_factory=list)
    delivered: list[str] = field(default_factory=list)


class Engine:
    """The episode state and its stepping. Example::

        engine = Engine(Kitchen(load_layout("cramped_room")))
        engine.reset()
        engine.step(["pickup_onion(chef0)", "pickup_dish(chef1)"]).end   # the timestep now
    """

    def __init__(self, kitchen: Kitchen, n_chefs: int = 2, horizon: int = HORIZON) -> None:
        self.kitchen = kitchen
        self.n = n_chefs
        self.horizon = horizon
        self.reset()

    def reset(self) -> None:
        self.state = self.kitchen.mdp.get_standard_start_state().deepcopy()
        self.tasks: list[Task | None] = [None] * self.n
        self.delivered = 0
        self.reward = 0
        self.steps = 0

    @property
    def timestep(self) -> int:
        return int(self.state.timestep)

    @property
    def done(self) -> bool:
        return self.timestep >= self.horizon

    def held(self, chef: int) -> str | None:
        obj = self.state.players[chef].held_object
        return None if obj is None else str(obj.name)

    # ------------------------------------------------------------------ judging
    def judge(self, commands: Sequence[str]) -> Judged:
        """Each command's refusal (None: accepted), in order; a chef's second command is refused."""
        self._own_recipes()
        judged = Judged([])
        for text in commands:
            refusal, command = self._judge_one(text, judged.accepted)
            judged.refusals.append(refusal)
            if refusal is None and command is not None:
                judged.accepted[command.chef] = command
        return judged

    def _judge_one(self, text: str, accepted: dict[int, Command]) -> tuple[Refusal | None, Command | None]:
        if self.done:
            return refuse("episode_over"), None
        try:
            command = parse(text, self.n)
        except Unreadable as exc:
            return refuse(exc.code, None, why=str(exc)), None
        if command.chef in accepted:
            return refuse("second_command", command.chef, first=str(accepted[command.chef])), None
        return self.kitchen.refusal(self.state, command), command

    # ------------------------------------------------------------------ stepping
    def step(self, commands: Sequence[str]) -> tuple[Judged, Advance]:
        judged = self.judge(commands)
        if self.done:
            return judged, Advance(self.timestep, self.timestep)
        for chef, command in judged.accepted.items():
            task = self.tasks[chef]
            if task is None or task.command != command or command.primitive or command.verb in ("wait", "move_away"):
                self.tasks[chef] = Task(command, self.timestep)
        advance = Advance(self.timestep, self.timestep)
        while True:  # every task here was judged feasible now (new ones just now, kept ones at the last step's end)
            self._tick(advance)
            self._stop_infeasible(advance)
            if self.done or any(t is None for t in self.tasks) or advance.end - advance.start >= STEP_CAP:
                break
        self.steps += 1
        return judged, advance

    def _stop_infeasible(self, advance: Advance) -> None:
        for chef, task in enumerate(self.tasks):
            if task is None:
                continue
            refusal = self.kitchen.refusal(self.state, task.command)
            if refusal is None and self.timestep - task.started >= TASK_LIMIT:
                refusal = refuse("too_long", chef, limit=TASK_LIMIT)
            if refusal is None and task.blocked >= BLOCKED_LIMIT:
                refusal = refuse("blocked", chef)
            if refusal is not None:
                advance.notes.append(f"t={self.timestep}: {task.command} stopped: {describe(refusal)}")
                self.tasks[chef] = None

    def _tick(self, advance: Advance) -> None:
        """One timestep: every chef's action, collisions resolved, the package's transition."""
        actions = self._joint_actions()
        before = [self.held(c) for c in range(self.n)]
        self._own_recipes()
        self.state, info = self.kitchen.mdp.get_state_transition(self.state, actions)
        advance.end = self.timestep
        for chef, reward in enumerate(info["sparse_reward_by_agent"]):
            if reward > 0:
                self.delivered += 1
                self.reward += int(reward)
                advance.delivered.append(f"onion soup {self.delivered} (chef{chef})")
                advance.notes.append(f"t={self.timestep}: chef{chef} delivered onion soup {self.delivered} (+{int(reward)})")
        for chef, task in enumerate(self.tasks):
            if task is not None and self._finished(task, before[chef], self.held(chef)):
                if not task.command.primitive and task.command.verb not in ("wait", "move_away"):
                    advance.notes.append(f"t={self.timestep}: {task.command} done")
                self.tasks[chef] = None

    def _own_recipes(self) -> None:
        """The package keeps recipe settings (cook time, values) in a class, shared by every
        gridworld in the process: put ours back if another kitchen changed them."""
        from overcooked.mdp.overcooked_mdp import Recipe

        config = self.kitchen.mdp.recipe_config
        if Recipe.configuration() is not config:
            Recipe.configure(config)

    @staticmethod
    def _finished(task: Task, before: str | None, now: str | None) -> bool:
        verb = task.command.verb
        if verb in _DONE_WHEN_HOLDING:
            return now == _DONE_WHEN_HOLDING[verb]
        if verb in _DONE_WHEN_EMPTY:
            return before is not None and now is None
        return True  # primitives, wait, move_away: one timestep

    # ------------------------------------------------------------------ actions
    def _joint_actions(self) -> list[Any]:
        positions = [p.position for p in self.state.players]
        actions: list[Any] = []
        goals: list[Pos | None] = []
        for chef, task in enumerate(self.tasks):
            action, goal = self._want(chef, task, positions)
            actions.append(action)
            goals.append(goal)
        self._resolve(actions, goals, positions)
        return actions

    def _want(self, chef: int, task: Task | None, positions: list[Pos]) -> tuple[Any, Pos | None]:
        """A chef's own next action, ignoring its partner's moves; the cell it is heading for."""
        if task is None or task.command.verb == "wait":
            return STAY, None
        verb = task.command.verb
        if task.command.primitive:
            return PRIMITIVE_ACTIONS[verb], None
        if verb == "move_away":
            return self._away(chef, positions), None
        best = self.kitchen.best_goal(self.state, chef, self.kitchen.targets(self.state, task.command))
        if best is None:
            return STAY, None
        station, goal, _ = best
        player = self.state.players[chef]
        if (player.position, player.orientation) == goal:
            if verb == "fill_dish" and not self.kitchen.pot(self.state, station).ready:
                return STAY, None  # standing at the pot, dish in hand, until the soup is done
            return INTERACT, None
        assert task is not None
        if task.around is not None and positions[task.around] != goal[0]:
            step = self.kitchen.detour(player.position, goal[0], {positions[task.around]})
            if step is not None:
                return step, goal[0]
        if task.avoid is not None and task.avoid in positions and task.avoid != goal[0]:
            step = self.kitchen.detour(player.position, goal[0], {task.avoid})
            if step is not None:
                return step, goal[0]
        task.avoid = None
        return self.kitchen.first_action(self.state, chef, goal), goal[0]

    def _away(self, chef: int, positions: list[Pos]) -> Any:
        """A step to the free neighbouring cell farthest from the other chefs (stay if none)."""
        here = positions[chef]
        others = [p for i, p in enumerate(positions) if i != chef]
        best: tuple[int, Any] | None = None
        for step in DIRECTIONS:
            cell = (here[0] + step[0], here[1] + step[1])
            if cell not in self.kitchen.floor or cell in others:
                continue
            gain = min(abs(cell[0] - o[0]) + abs(cell[1] - o[1]) for o in others) if others else 0
            if best is None or gain > best[0]:
                best = (gain, step)
        return STAY if best is None else best[1]

    def _resolve(self, actions: list[Any], goals: list[Pos | None], positions: list[Pos]) -> None:
        """Change actions until no two chefs would collide (the package would freeze both):
        a chef heading somewhere detours around the other; if it cannot, it waits a timestep."""
        for _ in range(2 * self.n):
            clash = self._clash(actions, positions)
            if clash is None:
                break
            i, j = clash
            for c, other in ((j, i), (i, j)):
                goal = goals[c]
                if goal is None:
                    continue
                nxt = self._next(actions[other], positions[other])
                step = self.kitchen.detour(positions[c], goal, {positions[other], nxt})
                if step is not None and (positions[c][0] + step[0], positions[c][1] + step[1]) not in (positions[other], nxt):
                    actions[c] = step
                    task, theirs = self.tasks[c], self.tasks[other]
                    if task is not None and nxt == positions[other] and (theirs is None or theirs.command.primitive):
                        task.avoid = positions[other]  # someone steering by hand stays put: keep going around
                    if task is not None and theirs is not None and theirs.command.primitive:
                        task.around = other  # and keeps off its side of a ring, wherever it steps next
                    break
            else:
                if goals[i] is not None and goals[j] is not None:  # head-on: one steps aside
                    side = self._side_step(j, i, actions, goals, positions)
                    if side is not None:
                        actions[j] = side
                        continue
                mover = j if self._next(actions[j], positions[j]) != positions[j] else i
                actions[mover] = STAY
                task = self.tasks[mover]
                if task is not None:
                    task.blocked += 1
                continue
            # a detour found: the clash is gone or the next round handles what remains
        for c, task in enumerate(self.tasks):
            if task is not None and actions[c] != STAY:
                task.blocked = 0

    def _side_step(self, chef: int, other: int, actions: list[Any], goals: list[Pos | None],
                   positions: list[Pos]) -> Any | None:
        """A step off the other chef's way: to a free neighbouring cell, the farthest from where
        the other is heading (None when boxed in)."""
        here, target = positions[chef], goals[other] or positions[other]
        taken = (positions[other], self._next(actions[other], positions[other]))
        best: tuple[int, Any] | None = None
        for step in DIRECTIONS:
            cell = (here[0] + step[0], here[1] + step[1])
            if cell in self.kitchen.floor and cell not in taken:
                gain = abs(cell[0] - target[0]) + abs(cell[1] - target[1])
                if best is None or gain > best[0]:
                    best = (gain, step)
        return None if best is None else best[1]

    def _next(self, action: Any, pos: Pos) -> Pos:
        if action in (STAY, INTERACT):
            return pos
        cell = (pos[0] + action[0], pos[1] + action[1])
        return cell if cell in self.kitchen.floor else pos

    def _clash(self, actions: list[Any], positions: list[Pos]) -> tuple[int, int] | None:
        nxt = [self._next(a, p) for a, p in zip(actions, positions, strict=True)]
        for i in range(self.n):
            for j in range(i + 1, self.n):
                if nxt[i] == nxt[j] or (nxt[i] == positions[j] and nxt[j] == positions[i]):
                    return i, j
        return None
