"""The public name of the domain contract (`mindagent.core.domain`): what a game fills so the
dispatcher, evaluation and server run on it. Kept at the top so a game's code can write
``from mindagent.domain import DomainSession``."""

from mindagent.core.domain import (
    JSON,
    CommandError,
    Counts,
    Domain,
    DomainSession,
    DomainStep,
    PromptParts,
    Reason,
    ReferenceFigures,
    ReplayUnsupported,
    RunProtocol,
    SpecError,
    Verdict,
)

__all__ = ["JSON", "CommandError", "Counts", "Domain", "DomainSession", "DomainStep", "PromptParts", "Reason",
           "ReferenceFigures", "ReplayUnsupported", "RunProtocol", "SpecError", "Verdict"]
