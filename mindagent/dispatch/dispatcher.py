"""The dispatcher's thinking for one step: build the prompt, ask, extract, check (and repair).

`Dispatcher.decide` is pure thinking; stepping the game, feedback, memory and the recording are
`mindagent.core.episode`'s, which `run`, `eval` and the game server all share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mindagent.core.capabilities import (
    GoalMode,
    TaskGraphMode,
    agent_prompt_parts_of,
    demo_of,
    goal_menu_of,
    grammar_of,
    step_agent_grammar_of,
    step_grammar_of,
    task_graph_of,
)
from mindagent.core.demo import Demo
from mindagent.core.directions import directions_of
from mindagent.core.domain import DomainSession, PromptParts, SpecError, Verdict
from mindagent.dispatch.brains import Brain, Call, LLMBrain, MenuBrain, PolicyBrain
from mindagent.dispatch.memory import Memory
from mindagent.dispatch.partners import Partner, make_partner
from mindagent.dispatch.plans import (
    CommandPlan,
    DispatchMode,
    Executor,
    GoalPlan,
    GoalPrompt,
    Plan,
    directed_menu,
    goal_grammar,
    parse_goal,
    plan_grammar,
    plan_instruction,
    split_plan,
)
from mindagent.dispatch.prompt import PromptConfig, build_messages, format_turn
from mindagent.dispatch.rules import RuleBrain, goal_menu_for, manager_menu
from mindagent.dispatch.taskgraph import (
    ManagerPrompt,
    SubtaskExecutor,
    SubtaskExecutorKind,
    TaskGraphPlan,
    assign_by_rule,
    assignment_grammar,
    parse_assignment,
    subtask_turn,
)
from mindagent.dispatch.teams import TeamMode, agent_answer_grammar, agent_turn, parse_message
from mindagent.llm.base import Message, Usage

REPAIR_REQUEST = "Some of those commands would be refused:\n{lines}\nAnswer again with one corrected command per agent."
NO_COMMAND_REQUEST = "No command could be read from that answer. Answer again with one command per agent, one per line."


@dataclass
class Decision:
    """What the dispatcher chose for one step, what the look-ahead said, and what it cost."""

    commands: list[str]
    verdicts: list[Verdict]
    calls: list[Call] = field(default_factory=list)
    shown: str = ""
    head_chef: list[str] = field(default_factory=list)
    plan: dict[str, object] | None = None  # which plan gave these commands, and at which position
    #: The dispatcher's own lines for the people (a built-in planner's answer to an instruction).
    replies: list[str] = field(default_factory=list)
    #: Decentral mode: what each agent said to the others, and each agent's (shown, answered) turn.
    said: dict[str, str] = field(default_factory=dict)
    agent_turns: dict[int, tuple[str, str]] = field(default_factory=dict)
    #: Commands given by partner policies (`--control`), already part of `commands`.
    partners: list[str] = field(default_factory=list)

    @property
    def usage(self) -> Usage:
        return Usage(
            sum(c.usage.prompt_tokens for c in self.calls),
            sum(c.usage.cached_tokens for c in self.calls),
            sum(c.usage.output_tokens for c in self.calls),
            sum(c.usage.latency_s for c in self.calls),
        )

    @property
    def errors(self) -> list[str]:
        """Failed model calls, as ``Kind: message`` lines."""
        return [f"{c.error_kind or 'LLMError'}: {c.error}" for c in self.calls if c.error]


@dataclass(frozen=True)
class DispatchSettings:
    """How the dispatcher answers: one step at a time, a plan of up to `plan_steps` steps, or goals
    for the domain's executor, renewed every `goal_every` steps or when the goal menu changes.

    `team` is how the team is organised (`mindagent.dispatch.teams`): one central dispatcher (the paper),
    one call per agent (decentral) or a task-graph manager; `control` the agents the dispatcher
    commands (None: all) and `partners` the policy that plays the others; `executor` who turns a
    task-graph agent's subtask into its commands (the domain's rule, or the model). Only settings
    that differ from the paper's are written out, so older results files and recordings still match."""

    mode: DispatchMode = "step"
    plan_steps: int = 3
    goal_every: int = 5
    team: TeamMode = "central"
    control: tuple[int, ...] | None = None
    partners: str = "planner"
    executor: SubtaskExecutorKind = "rule"

    def to_dict(self) -> dict[str, object]:
        return {"mode": self.mode, **({"plan_steps": self.plan_steps} if self.mode == "plan" else {}),
                **({"goal_every": self.goal_every} if self.mode == "goals" else {}),
                **({"team": self.team} if self.team != "central" else {}),
                **({"subtask_executor": self.executor} if self.executor != "rule" else {}),
                **({"control": list(self.control), "partners": self.partners} if self.control is not None else {})}

    @property
    def has_menu(self) -> bool:
        """Whether the model is asked to choose from a menu here (goal mode, the task-graph manager
        with the rule executor), the only place a rule chooser can sit."""
        return self.mode == "goals" or (self.team == "taskgraph" and self.executor == "rule")


def chooser(brain: Brain) -> str:
    """Who made a plan's choice, as plans record it: ``model``, or the rule chooser's name."""
    return brain.name if isinstance(brain, RuleBrain) else "model"


class Dispatcher:
    """One brain plus the prompt it reads; `controlled` restricts it to some agents (human play)."""

    def __init__(self, brain: Brain | None, prompt: PromptConfig | None = None, demo: Demo | None = None,
                 repair: int = 0, dispatch: DispatchSettings | None = None) -> None:
        self.brain = brain
        self.prompt = prompt or PromptConfig()
        self.demo = demo
        self.repair = repair
        self.dispatch = dispatch or DispatchSettings()
        self.goal_prompt = GoalPrompt()
        self.manager_prompt = ManagerPrompt()
        self._executors: dict[int, Executor] = {}
        self._task_executors: dict[int, SubtaskExecutor] = {}
        self.partner: Partner | None = None

    @classmethod
    def for_session(cls, session: DomainSession, brain: Brain | None, prompt: PromptConfig,
                    repair: int = 0, dispatch: DispatchSettings | None = None,
                    partner: Partner | None = None, seed: int = 0) -> Dispatcher:
        """A dispatcher with the session's demonstration when the brain reads a prompt.

        `SpecError` when the domain lacks what the settings need (goal menu, task graph), when a
        team mode other than central is combined with plan or goal dispatch, or when `--control`
        names an agent the session does not have."""
        dispatch = dispatch or DispatchSettings()
        if dispatch.mode == "goals" and goal_menu_of(session) is None:
            raise SpecError(f"{session.domain} has no goal mode (--dispatch goals)")
        if dispatch.team != "central" and dispatch.mode != "step":
            raise SpecError(f"--mode {dispatch.team} runs its own loop; it does not combine with --dispatch {dispatch.mode}")
        if dispatch.team == "taskgraph" and not isinstance(session, TaskGraphMode):
            raise SpecError(f"{session.domain} has no task graph (--mode taskgraph)")
        if isinstance(brain, MenuBrain) and not dispatch.has_menu:
            raise SpecError(f"{brain.name} chooses from a menu (--dispatch goals, or --mode taskgraph with "
                            "--subtask-executor rule); this mode has the model write commands, with no menu")
        if dispatch.executor == "model":
            if dispatch.team != "taskgraph":
                raise SpecError("--subtask-executor model carries out task-graph subtasks; it needs --mode taskgraph")
            if brain is not None and not isinstance(brain, LLMBrain):
                raise SpecError(f"--subtask-executor model needs a language model; {brain.name} decides every "
                                "command itself (use --subtask-executor rule)")
        if dispatch.control is not None:
            if max(dispatch.control) >= session.n_agents:
                raise SpecError(f"--control names agent{max(dispatch.control)}; this game has {session.n_agents} agents")
            if partner is None:
                from mindagent.core import registry as domains  # the registry, imported late: it imports the domains

                partner = make_partner(dispatch.partners, domains.get(session.domain), seed)
        wants_demo = (prompt.demo != "none" and (brain is None or brain.needs_prompt)
                      and dispatch.mode != "goals" and dispatch.team != "taskgraph")
        demo = demo_of(session, prompt.demo_agents) if wants_demo else None
        made = cls(brain, prompt, demo, repair, dispatch)
        made.partner = partner
        return made

    @property
    def plans(self) -> bool:
        """Whether this dispatcher answers with plans (a model in plan or goal mode; task-graph
        mode with any brain: without a model the manager deals out subtasks by rule)."""
        if self.dispatch.team == "taskgraph":  # the model executor is asked every step, like `decide`
            return self.brain is not None and self.dispatch.executor == "rule"
        return self.dispatch.mode != "step" and isinstance(self.brain, LLMBrain | MenuBrain)

    async def make_plan(self, session: DomainSession, memory: Memory, feedback: Sequence[str],
                        head_chef: Sequence[str] = (), controlled: Sequence[int] | None = None,
                        people: Sequence[str] = ()) -> tuple[Plan, list[Call], str]:
        """Ask for a plan: a goal (goal mode), the next few steps' commands (plan mode) or an
        assignment of subtasks (task-graph mode)."""
        if self.dispatch.team == "taskgraph" and self.brain is not None:
            return await self._taskgraph_plan(session, self.brain, controlled)
        if self.dispatch.mode == "goals" and isinstance(self.brain, LLMBrain | MenuBrain):
            return await self._goal_plan(session, self.brain, head_chef)
        if not isinstance(self.brain, LLMBrain):
            raise ValueError("only a language model answers with plans")
        messages, shown = self.messages(session, memory, feedback, head_chef, people)
        last = messages[-1]
        messages[-1] = Message(last.role, last.content + "\n" + plan_instruction(self.dispatch.plan_steps))
        step_grammar = grammar_of(session)
        grammar = plan_grammar(step_grammar, self.dispatch.plan_steps) if step_grammar else None
        team = session.n_agents if controlled is None else len(controlled)
        call = await self.brain.ask(messages, grammar, lines=team * self.dispatch.plan_steps)
        steps = [self.mine(session, session.extract_commands(block), controlled) for block in split_plan(call.text)]
        return CommandPlan(session.step_index, steps), [call], shown

    async def _goal_plan(self, session: DomainSession, brain: LLMBrain | MenuBrain,
                         head_chef: Sequence[str]) -> tuple[Plan, list[Call], str]:
        menu = goal_menu_of(session)
        executor = self._executors.get(id(session))
        if executor is None and isinstance(session, GoalMode):
            executor = session.goal_executor()
            self._executors = {id(session): executor}  # one session per dispatcher at a time
        if menu is None or executor is None:
            raise SpecError(f"{session.domain} has no goal mode")
        every = self.dispatch.goal_every
        directions = directions_of(session, head_chef)
        if directions.stopped:  # nothing to choose while the director says stop (the step is held, too)
            return GoalPlan(session.step_index, [], executor, menu, every, "stopped"), [], ""
        menu = directed_menu(menu, directions)
        if len(menu.options) <= 1:  # nothing to choose: no call
            chosen = "forced" if menu.options else "none"
            return GoalPlan(session.step_index, list(menu.options), executor, menu, every, chosen), [], ""
        messages = self.goal_prompt.messages(menu, head_chef, directions.summary(session.agent_names))
        if isinstance(brain, MenuBrain):
            call = await brain.choose(messages, goal_menu_for(session, menu))
        else:
            call = await brain.ask(messages, goal_grammar(menu.options))
        goal = parse_goal(call.text, menu.options)
        if goal is None:  # a failed or unreadable answer: the cooks follow their own order, said in the plan
            return GoalPlan(session.step_index, [], executor, menu, every, "fallback"), [call], messages[-1].content
        return GoalPlan(session.step_index, [goal], executor, menu, every, chooser(brain)), [call], messages[-1].content

    async def _taskgraph_plan(self, session: DomainSession, brain: Brain,
                              controlled: Sequence[int] | None) -> tuple[Plan, list[Call], str]:
        """The manager's assignment: by the model when it has a choice, else by rule (no call)."""
        graph = task_graph_of(session)
        executor = self._task_executors.get(id(session))
        if executor is None and isinstance(session, TaskGraphMode):
            executor = session.subtask_executor()
            self._task_executors = {id(session): executor}
        if graph is None or executor is None:
            raise SpecError(f"{session.domain} has no task graph")
        agents = list(range(session.n_agents)) if controlled is None else sorted(controlled)
        every = self.dispatch.goal_every
        ready = graph.ready()
        if isinstance(brain, PolicyBrain) or len(ready) <= 1 or not agents:
            rule = TaskGraphPlan(session.step_index, graph, assign_by_rule(graph, agents), executor, agents, "rule", every)
            return rule, [], ""
        names = [session.agent_names[a] for a in agents]
        ids = [t.id for t in ready]
        messages = self.manager_prompt.messages(graph, names)
        if isinstance(brain, MenuBrain):
            call = await brain.choose(messages, manager_menu(session.step_index, ready, names))
        else:
            call = await brain.ask(messages, assignment_grammar(names, ids), lines=len(names))
        picked = parse_assignment(call.text, names, ids)
        if not picked:  # unreadable or failed: the rule deals the subtasks out, said in the plan
            plan = TaskGraphPlan(session.step_index, graph, assign_by_rule(graph, agents), executor, agents,
                                 "fallback", every)
            return plan, [call], messages[-1].content
        by_id = graph.by_id
        assignment = assign_by_rule(graph, agents)  # agents the answer left out keep the rule's subtask
        assignment.update({agents[k]: by_id[sid] for k, sid in picked.items()})
        return TaskGraphPlan(session.step_index, graph, assignment, executor, agents, chooser(brain), every), [call], \
            messages[-1].content

    async def execute_subtasks(self, session: DomainSession, plan: TaskGraphPlan, feedback: Sequence[str],
                               notes: Mapping[int, Sequence[str]], head_chef: Sequence[str] = (),
                               people: Sequence[str] = ()) -> tuple[list[str], list[Call], list[int]]:
        """The model executor: one call per agent of `plan` that has a subtask, each writing that
        agent's one command (see `mindagent.dispatch.taskgraph.subtask_turn` for what it is shown; the
        prompt's components are the dispatcher's, without demo or memory: the subtask and the
        feedback say what is going on). An agent without a subtask idles without a call; an
        answer holding no command of its agent idles it too and is returned in the third list,
        so the episode can tell it at the next step. Returns (commands, calls, unread agents)."""
        if not isinstance(self.brain, LLMBrain):
            raise ValueError("only a language model executes subtasks (--subtask-executor model)")
        names = session.agent_names
        shown = self.turn(session, feedback, head_chef, people)
        commands: list[str] = []
        calls: list[Call] = []
        unread: list[int] = []
        for agent in plan.agents:
            subtask = plan.assignment.get(agent)
            if subtask is None:
                commands.append(session.idle_command(agent))
                continue
            team = {names[k]: s for k, s in sorted(plan.assignment.items()) if k != agent}
            turn = subtask_turn(shown, names[agent], subtask, team, notes.get(agent, ()))
            messages = build_messages(session.prompt_parts(), self.prompt, None, [], turn)
            call = await self.brain.ask(messages, step_agent_grammar_of(session, agent))
            calls.append(call)
            mine = self.mine(session, session.extract_commands(call.text), [agent])[:1]
            if not mine:
                unread.append(agent)
                mine = [session.idle_command(agent)]
            commands += mine
        return commands, calls, unread

    async def decide_decentral(self, session: DomainSession, memories: Mapping[int, Memory], feedback: Sequence[str],
                               heard: Mapping[str, str], head_chef: Sequence[str] = (),
                               controlled: Sequence[int] | None = None, people: Sequence[str] = ()) -> Decision:
        """One call per agent (decentral mode): agent K sees the kitchen prompt, its own turns
        (`memories[K]`) and what the others said last step (`heard`, its own words left out),
        and writes one command for itself plus, optionally, one ``say:`` line. A built-in policy
        plans each agent alone (its ``act_for`` with just that agent), without messages."""
        if self.brain is None:
            raise ValueError("this dispatcher has no brain; it can only build prompts")
        agents = list(range(session.n_agents)) if controlled is None else sorted(controlled)
        names = session.agent_names
        commands: list[str] = []
        calls: list[Call] = []
        said: dict[str, str] = {}
        turns: dict[int, tuple[str, str]] = {}
        shown = self.turn(session, feedback, head_chef, people)
        for agent in agents:
            if isinstance(self.brain, PolicyBrain):
                commands += self.mine(session, self.brain.act(session, [agent]), [agent])[:1]
                continue
            if not isinstance(self.brain, LLMBrain):
                raise ValueError(f"{self.brain.name} has no commands to write (it chooses from menus)")
            others = [n for k, n in enumerate(names) if k != agent]
            turn = agent_turn(shown, names[agent], others, {a: m for a, m in heard.items() if a != names[agent]})
            memory = memories.get(agent) or Memory(0)
            messages = build_messages(agent_prompt_parts_of(session, agent), self.prompt, self.demo, memory.turns(), turn)
            one = step_agent_grammar_of(session, agent)
            call = await self.brain.ask(messages, agent_answer_grammar(one) if one else None, lines=2)  # + say:
            calls.append(call)
            mine = self.mine(session, session.extract_commands(call.text), [agent])[:1]
            commands += mine
            message = parse_message(call.text)
            if message:
                said[names[agent]] = message
            turns[agent] = (turn, call.text)
        return Decision(commands, session.check(commands), calls, shown, list(head_chef),
                        {"kind": "decentral", "agents": len(agents)}, said=said, agent_turns=turns)

    def turn(self, session: DomainSession, feedback: Sequence[str], head_chef: Sequence[str] = (),
             people: Sequence[str] = (), parts: PromptParts | None = None) -> str:
        """This step's user turn, with the director's words introduced as the game says it."""
        director = (parts or session.prompt_parts()).director if head_chef else ""
        held = directions_of(session, head_chef).summary(session.agent_names) if head_chef else []
        return format_turn(session.step_index, session.state_text(), feedback if self.prompt.feedback else None,
                           head_chef, people, director, held)

    def messages(self, session: DomainSession, memory: Memory, feedback: Sequence[str],
                 head_chef: Sequence[str] = (), people: Sequence[str] = ()) -> tuple[list[Message], str]:
        parts = session.prompt_parts()
        shown = self.turn(session, feedback, head_chef, people, parts)
        return build_messages(parts, self.prompt, self.demo, memory.turns(), shown), shown

    async def decide(self, session: DomainSession, memory: Memory, feedback: Sequence[str],
                     head_chef: Sequence[str] = (), controlled: Sequence[int] | None = None,
                     people: Sequence[str] = ()) -> Decision:
        if self.brain is None:
            raise ValueError("this dispatcher has no brain; it can only build prompts")
        if isinstance(self.brain, PolicyBrain):
            commands = self.mine(session, self.brain.act(session, controlled), controlled)
            return Decision(commands, session.check(commands), head_chef=list(head_chef), replies=self.brain.replies())
        if not isinstance(self.brain, LLMBrain):
            raise ValueError(f"{self.brain.name} has no commands to write (it chooses from menus)")
        messages, shown = self.messages(session, memory, feedback, head_chef, people)
        grammar = step_grammar_of(session)  # the legal moves now, where the game offers them
        team = session.n_agents if controlled is None else len(controlled)
        calls = [await self.brain.ask(messages, grammar, lines=team)]
        commands, verdicts = self._read(session, calls[-1].text, controlled)
        for _ in range(self.repair):
            refused = [v.text or v.command for v in verdicts if not v.ok]
            if commands and not refused:
                break
            request = REPAIR_REQUEST.format(lines="\n".join(f"- {r}" for r in refused)) if commands else NO_COMMAND_REQUEST
            messages = messages + [Message("assistant", calls[-1].text), Message("user", request)]
            calls.append(await self.brain.ask(messages, grammar, lines=team))
            commands, verdicts = self._read(session, calls[-1].text, controlled)
        return Decision(commands, verdicts, calls, shown, list(head_chef))

    @classmethod
    def _read(cls, session: DomainSession, text: str, controlled: Sequence[int] | None) -> tuple[list[str], list[Verdict]]:
        commands = cls.mine(session, session.extract_commands(text), controlled)
        return commands, session.check(commands)

    @staticmethod
    def mine(session: DomainSession, commands: Sequence[str], controlled: Sequence[int] | None) -> list[str]:
        if controlled is None:
            return list(commands)
        return [c for c in commands if session.agent_of(c) in controlled]
