"""The part of a task family's session that only speaks its command language.

Construction, escape rooms and farm-to-table each have their own verbs and parser, but what the
session does with them is the same five methods: pull commands out of a model's free text, read
one a person typed, say which bot a command names, name a bot's idle command and list the bots.
They were written out three times (the same 25 lines with other names); a new family now names
its language once (`CommandLanguage`) and gets them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from mindagent.core.domain import CommandError, DomainSession


class Parsed(Protocol):
    """What every family's parser returns: the normalised text and the bot it names."""

    @property
    def text(self) -> str: ...

    @property
    def agent(self) -> str: ...


@dataclass(frozen=True, slots=True)
class CommandLanguage:
    """One family's parser (exactly one command, else `syntax_error`), its extractor (every
    well-formed command in free text, the first per bot) and the verb a bot idles with."""

    parse: Callable[[str, Sequence[str]], Parsed]
    extract: Callable[[str, Sequence[str]], Sequence[Parsed]]
    syntax_error: type[ValueError]
    idle_verb: str


class FamilyCommands(DomainSession):
    """A family session's command-language methods, from its class's `language` and `agents`."""

    language: ClassVar[CommandLanguage]
    agents: list[str]

    def extract_commands(self, text: str) -> list[str]:
        return [c.text for c in self.language.extract(text, self.agents)]

    def parse_command(self, text: str) -> str:
        try:
            return self.language.parse(text, self.agents).text
        except self.language.syntax_error as exc:
            raise CommandError(str(exc)) from None

    def agent_of(self, command: str) -> int | None:
        """The bot a command names; names match ignoring case, as the parsers do."""
        try:
            return self.agents.index(self.language.parse(command, self.agents).agent)
        except self.language.syntax_error:
            return super().agent_of(command)

    def idle_command(self, agent: int) -> str:
        return f"{self.language.idle_verb}({self.agents[agent]})"

    @property
    def agent_names(self) -> list[str]:
        return list(self.agents)
