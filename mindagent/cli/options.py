"""Option declarations shared by run, eval, serve and prompt, so each flag means one thing everywhere.

Every flag reaches the domain: a domain refuses (one line naming it) what it cannot honour, so a
flag never silently does nothing in one domain.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer

from mindagent.cli.common import err, fail
from mindagent.core import registry as domains
from mindagent.core.domain import Domain, SpecError
from mindagent.core.spec import GameSpec
from mindagent.dispatch.dispatcher import DispatchSettings
from mindagent.dispatch.memory import DEFAULT_BUDGET_TOKENS
from mindagent.dispatch.partners import PARTNER_KINDS, parse_control
from mindagent.dispatch.plans import DISPATCH_MODES, DispatchMode
from mindagent.dispatch.prompt import DemoMode, PromptConfig
from mindagent.dispatch.taskgraph import SUBTASK_EXECUTORS, SubtaskExecutorKind
from mindagent.dispatch.teams import TEAM_MODES, TeamMode

DOMAIN = typer.Option(None, "--domain", help="the game (default: the first installed; `mindagent domains` lists them)")
LEVEL = typer.Option(None, "--level", help="level name or path to a level file (default: the domain's)")
MODEL = typer.Option("planner", "--model", "-m",
                     help="planner | random | rule:first|urgent|random | scored:<model> | policy:<DIR> | local[:name] | openai:<model> | "
                          "anthropic:<model> | replay:<file>")
BASE_URL = typer.Option(None, "--base-url", help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp server)")
GRAMMAR_FIELD = typer.Option("auto", "--grammar-field",
                             help="where an OpenAI-compatible server reads the command grammar: llama (llama.cpp's "
                                  "'grammar'), vllm ('guided_grammar'), none, or auto (told from its model list)")
MODEL_PATH = typer.Option(None, "--model-path", help="a GGUF file for the local backend")
TEMPERATURE = typer.Option(0.1, "--temperature", min=0.0, max=2.0)
MAX_TOKENS = typer.Option(None, "--max-tokens", min=1, max=32_000,
                          help="cap on output tokens per call (default: 40 + 30 per line the answer needs, one "
                               "line per agent commanded: 100 for two agents)")
TIMEOUT = typer.Option(60.0, "--timeout", min=1.0, help="seconds per model call (and per decision in a room)")
REPAIR = typer.Option(0, "--repair", min=0, max=5, help="ask again within a step, up to N times, when commands would be refused")
RULES = typer.Option("reference", "--rules", help="reference (reproduces the paper) or fixed")
RECIPES = typer.Option(None, "--recipes", help="extra recipe file merged over the shipped recipes")
NO_KNOWLEDGE = typer.Option(False, "--no-knowledge", help="drop the inference-knowledge hints")
NO_RECIPES = typer.Option(False, "--no-recipes", help="drop the recipes")
NO_INSTRUCTIONS = typer.Option(False, "--no-instructions", help="drop the rules and action descriptions")
DEMO = typer.Option(None, "--demo", help="full | few-step | none (default: full where the domain has a demo)")
DEMO_AGENTS = typer.Option(None, "--demo-agents", min=1, max=4, help="use the demo made with this many agents")
NO_FEEDBACK = typer.Option(False, "--no-feedback", help="do not tell the dispatcher why commands were refused")
MEMORY = typer.Option(2, "--memory", min=0, max=60, help="previous (state, commands) pairs shown (at least)")
MEMORY_BUDGET = typer.Option(DEFAULT_BUDGET_TOKENS, "--memory-budget", min=0, max=1_000_000,
                             help="growing memory: earlier turns are kept until about this many tokens, then the "
                                  "window restarts with the last --memory turns (a prefix cache keeps working); 0: "
                                  "the paper's sliding window of exactly --memory turns")
DISPATCH = typer.Option("step", "--dispatch",
                        help="step (one command per agent per call) | plan (up to --plan-steps steps per call) | "
                             "goals (the model picks the team's dish, the domain's planner cooks)")
PLAN_STEPS = typer.Option(3, "--plan-steps", min=1, max=10, help="--dispatch plan: most steps in one answer")
GOAL_EVERY = typer.Option(5, "--goal-every", min=1, max=60,
                          help="--dispatch goals: ask for a new goal after this many steps (or when orders change)")
TEAM = typer.Option("central", "--mode",
                    help="central (one call for the team) | decentral (one call per agent, with messages) | "
                         "taskgraph (a manager assigns subtasks of the orders' recipe trees, an executor acts)")
CONTROL = typer.Option(None, "--control",
                       help="the dispatcher commands only these agents: a number k (agents 0..k-1) or a list like 0,2")
PARTNERS = typer.Option("planner", "--partners",
                        help="with --control: who plays the other agents: planner | random | noop | replay:FILE | "
                             "a domain's KIND:ARGUMENT policy (policy:DIR, bc:DIR)")
SUBTASK_EXECUTOR = typer.Option("rule", "--subtask-executor",
                                help="--mode taskgraph: who turns each agent's subtask into its command every step: "
                                     "rule (the domain's scheduler) | model (one model call per assigned agent)")
THREADS = typer.Option(None, "--threads", min=1, max=256,
                       help="local model: CPU threads (default 1: fastest on a shared machine, see benchmarks/)")
_DEMO_MODES: dict[str, DemoMode] = {"full": "full", "few-step": "few-step", "none": "none"}


def domain_or_exit(name: str | None) -> Domain:
    try:
        return domains.get(name)
    except SpecError as exc:
        fail(str(exc))


def game_spec(domain: str | None, level: str | None, agents: int, tau: float, seed: int, rules: str, steps: int | None,
              recipes: Path | None = None, options: Mapping[str, Any] | None = None) -> GameSpec:
    """The validated spec, or one error line (naming the domain) and exit 2. `options` are the
    game's own (its `DomainOption`s as given on the command line)."""
    spec = GameSpec(domain_or_exit(domain).name, level, agents, tau, seed, rules, steps,
                    str(recipes) if recipes else None, dict(options or {}))
    try:
        return domains.validate(spec)
    except SpecError as exc:
        fail(str(exc))


def print_world_notes(spec: GameSpec) -> None:
    """Lines a domain wants said before a run starts (Minecraft: which clock, a world open to the
    network); a domain without any says nothing."""
    for line in domains.get(spec.domain).run_notes(spec):
        err.print(f"[yellow]{line}[/yellow]" if line.startswith("warning:") else line, markup=True, highlight=False)


def prompt_config(domain: str | None, no_knowledge: bool, no_recipes: bool, no_instructions: bool, demo: str | None,
                  demo_agents: int | None, no_feedback: bool, memory: int,
                  memory_budget: int = DEFAULT_BUDGET_TOKENS) -> PromptConfig:
    """The prompt's components; a demo flag on a domain without demos is refused, not ignored."""
    chosen = domain_or_exit(domain)
    if demo is not None and demo not in ("full", "few-step", "none"):
        fail("--demo must be full, few-step or none")
    if not chosen.has_demo and ((demo not in (None, "none")) or demo_agents is not None):
        fail(f"{chosen.name} has no one-shot demonstration; --demo and --demo-agents do not apply")
    mode: DemoMode = _DEMO_MODES[demo or "full"] if chosen.has_demo else "none"
    return PromptConfig(recipes=not no_recipes, instructions=not no_instructions, knowledge=not no_knowledge,
                        demo=mode, demo_agents=demo_agents, feedback=not no_feedback, memory=memory,
                        memory_budget=memory_budget)


def dispatch_settings(mode: str, plan_steps: int = 3, goal_every: int = 5, team: str = "central",
                      control: str | None = None, partners: str = "planner",
                      subtask_executor: str = "rule") -> DispatchSettings:
    """The dispatch mode, team mode, partners and subtask executor, or one error line and exit 2."""
    if mode not in DISPATCH_MODES:
        fail(f"--dispatch must be one of {', '.join(DISPATCH_MODES)}")
    if team not in TEAM_MODES:
        fail(f"--mode must be one of {', '.join(TEAM_MODES)}")
    chosen: DispatchMode = "plan" if mode == "plan" else "goals" if mode == "goals" else "step"
    organised: TeamMode = "decentral" if team == "decentral" else "taskgraph" if team == "taskgraph" else "central"
    if organised != "central" and chosen != "step":
        fail(f"--mode {organised} runs its own loop; it does not combine with --dispatch {chosen}")
    if subtask_executor not in SUBTASK_EXECUTORS:
        fail(f"--subtask-executor must be one of {', '.join(SUBTASK_EXECUTORS)}")
    executor: SubtaskExecutorKind = "model" if subtask_executor == "model" else "rule"
    if executor == "model" and organised != "taskgraph":
        fail("--subtask-executor model carries out task-graph subtasks; it needs --mode taskgraph")
    agents = None
    if control is not None:
        try:
            agents = parse_control(control)
        except SpecError as exc:
            fail(str(exc))
        if partners not in ("planner", "random", "noop") and ":" not in partners:
            fail(f"--partners must be one of {', '.join(PARTNER_KINDS)}")
    elif partners != "planner":
        fail("--partners needs --control (which agents the dispatcher commands)")
    return DispatchSettings(chosen, plan_steps, goal_every, organised, agents, partners, executor)
