"""The public name of the domain registry (`mindagent.core.registry`): which games are installed,
and sessions built from a `GameSpec`. Kept at the top so user code can write
``from mindagent import domains``."""

from mindagent.core.registry import (
    DEFAULT_DOMAIN,
    NAMES,
    get,
    level_steps,
    make_session,
    validate,
)

__all__ = ["DEFAULT_DOMAIN", "NAMES", "get", "level_steps", "make_session", "validate"]
