"""The public name of the domain registry (`mindagent.core.registry`): which games are installed,
and sessions built from a `GameSpec`. Kept at the top so user code can write
``from mindagent import domains``."""

from mindagent.core.registry import (
    default_domain,
    get,
    level_steps,
    make_session,
    names,
    plugin,
    plugins,
    register,
    unregister,
    validate,
)

__all__ = ["default_domain", "get", "level_steps", "make_session", "names", "plugin", "plugins", "register",
           "unregister", "validate"]
