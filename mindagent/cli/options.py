"""Option declarations shared by run, eval and prompt, so each flag means one thing everywhere."""

from __future__ import annotations

import typer

from mindagent.prompt.builder import PromptConfig

MODEL = typer.Option("planner", "--model", "-m", help="planner | random | local[:name] | openai:<model> | anthropic:<model> | replay:<file>")
BASE_URL = typer.Option(None, "--base-url", help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp server)")
MODEL_PATH = typer.Option(None, "--model-path", help="a GGUF file for the local backend")
TEMPERATURE = typer.Option(0.1, "--temperature", min=0.0, max=2.0)
MAX_TOKENS = typer.Option(100, "--max-tokens", min=1, max=32_000, help="cap on output tokens per call")
TIMEOUT = typer.Option(60.0, "--timeout", min=1.0, help="seconds per model call")
REPAIR = typer.Option(0, "--repair", min=0, max=5, help="ask again within a step, up to N times, when commands would be refused")
RULES = typer.Option("reference", "--rules", help="reference (reproduces the paper) or fixed")
RECIPES = typer.Option(None, "--recipes", help="extra recipe file merged over the shipped recipes")
NO_KNOWLEDGE = typer.Option(False, "--no-knowledge", help="drop the inference-knowledge hints")
NO_RECIPES = typer.Option(False, "--no-recipes", help="drop the recipes")
NO_INSTRUCTIONS = typer.Option(False, "--no-instructions", help="drop the rules and action descriptions")
DEMO = typer.Option("full", "--demo", help="full | few-step | none")
DEMO_AGENTS = typer.Option(None, "--demo-agents", min=1, max=4, help="use the demo made with this many agents")
NO_FEEDBACK = typer.Option(False, "--no-feedback", help="do not tell the dispatcher why commands were refused")
MEMORY = typer.Option(2, "--memory", min=0, max=60, help="previous (state, commands) pairs shown")


def prompt_config(no_knowledge: bool, no_recipes: bool, no_instructions: bool, demo: str, demo_agents: int | None,
                  no_feedback: bool, memory: int) -> PromptConfig:
    if demo not in ("full", "few-step", "none"):
        raise typer.BadParameter("--demo must be full, few-step or none")
    return PromptConfig(recipes=not no_recipes, instructions=not no_instructions, knowledge=not no_knowledge,
                        demo=demo, demo_agents=demo_agents, feedback=not no_feedback, memory=memory)  # type: ignore[arg-type]
