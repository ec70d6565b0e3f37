"""The dispatcher loop: build the prompt, ask, extract, check (and repair), step, record.

`Dispatcher.decide` is one step's thinking; `run_episode` is the whole loop. The game server
uses `decide` on its own clock; evaluation and `mindagent run` use `run_episode`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from demos import Demo
from mindagent.brains import Brain, Call, LLMBrain
from mindagent.domain import DomainSession, DomainStep, Verdict
from mindagent.llm.base import Message, Usage
from mindagent.memory import Memory
from mindagent.prompt.builder import PromptConfig, build_messages, format_turn
from mindagent.recording import Recorder

REPAIR_REQUEST = "Some of those commands would be refused:\n{lines}\nAnswer again with one corrected command per agent."
NO_COMMAND_REQUEST = "No command could be read from that answer. Answer again with one command per agent, one per line."


@dataclass
class Decision:
    commands: list[str]
    verdicts: list[Verdict]
    calls: list[Call] = field(default_factory=list)
    shown: str = ""

    @property
    def usage(self) -> Usage:
        return Usage(
            sum(c.usage.prompt_tokens for c in self.calls),
            sum(c.usage.cached_tokens for c in self.calls),
            sum(c.usage.output_tokens for c in self.calls),
            sum(c.usage.latency_s for c in self.calls),
        )


@dataclass
class EpisodeResult:
    completed: int
    failed: int
    active: int
    steps: int
    prompt_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0


class Dispatcher:
    """One brain plus the prompt it reads; `controlled` restricts it to some agents (human play)."""

    def __init__(self, brain: Brain | None, prompt: PromptConfig | None = None, demo: Demo | None = None, repair: int = 0) -> None:
        self.brain = brain
        self.prompt = prompt or PromptConfig()
        self.demo = demo
        self.repair = repair

    def messages(self, session: DomainSession, memory: Memory, feedback: Sequence[str],
                 head_chef: Sequence[str] = (), people: Sequence[str] = ()) -> tuple[list[Message], str]:
        shown = format_turn(session.step_index, session.state_text(),
                            feedback if self.prompt.feedback else None, head_chef, people)
        return build_messages(session.prompt_parts(), self.prompt, self.demo, memory.turns(), shown), shown

    async def decide(self, session: DomainSession, memory: Memory, feedback: Sequence[str],
                     head_chef: Sequence[str] = (), controlled: Sequence[int] | None = None,
                     people: Sequence[str] = ()) -> Decision:
        if self.brain is None:
            raise ValueError("this dispatcher has no brain; it can only build prompts")
        if not isinstance(self.brain, LLMBrain):
            commands = self.brain.act(session)
            if controlled is not None:
                commands = [c for c in commands if _agent_of(c) in controlled]
            return Decision(commands, session.check(commands))
        messages, shown = self.messages(session, memory, feedback, head_chef, people)
        space = getattr(session, "command_space", lambda: None)()
        calls = [await self.brain.ask(messages, space)]
        commands, verdicts = self._read(session, calls[-1].text, controlled)
        for _ in range(self.repair):
            refused = [v.text or v.command for v in verdicts if not v.ok]
            if commands and not refused:
                break
            request = REPAIR_REQUEST.format(lines="\n".join(f"- {r}" for r in refused)) if commands else NO_COMMAND_REQUEST
            messages = messages + [Message("assistant", calls[-1].text), Message("user", request)]
            calls.append(await self.brain.ask(messages, space))
            commands, verdicts = self._read(session, calls[-1].text, controlled)
        return Decision(commands, verdicts, calls, shown)

    @staticmethod
    def _read(session: DomainSession, text: str, controlled: Sequence[int] | None) -> tuple[list[str], list[Verdict]]:
        commands = session.extract_commands(text)
        if controlled is not None:
            commands = [c for c in commands if _agent_of(c) in controlled]
        return commands, session.check(commands)


def _agent_of(command: str) -> int | None:
    for part in command.replace("(", "_").replace(",", "_").split("_"):
        part = part.strip()
        if part.startswith("agent") and part[5:].isdigit():
            return int(part[5:])
    return None


async def run_episode(
    session: DomainSession,
    dispatcher: Dispatcher,
    recorder: Recorder | None = None,
    on_step: Callable[[int, DomainStep], None] | None = None,
    steps: int | None = None,
) -> EpisodeResult:
    """Play one episode from the session's current reset state to its last step."""
    memory = Memory(dispatcher.prompt.memory)
    feedback: list[str] = []
    total = EpisodeResult(0, 0, 0, 0)
    limit = session.max_steps if steps is None else min(steps, session.max_steps)
    while not session.done and session.step_index < limit:
        t = session.step_index
        state = session.state_text()
        head_chef = getattr(session, "pending_instructions", lambda: [])()
        decision = await dispatcher.decide(session, memory, feedback, head_chef)
        result = await session.step(decision.commands)
        feedback = list(result.notes)
        memory.push(decision.shown, "\n".join(decision.commands))
        usage = decision.usage
        total.prompt_tokens += usage.prompt_tokens
        total.cached_tokens += usage.cached_tokens
        total.output_tokens += usage.output_tokens
        total.latency_s += usage.latency_s
        if recorder is not None:
            recorder.step(t, state, head_chef, decision, result, session)
        if on_step is not None:
            on_step(t, result)
    counts = session.counts
    total.completed, total.failed, total.active, total.steps = counts.completed, counts.failed, counts.active, session.step_index
    if recorder is not None:
        recorder.end(total)
    return total
