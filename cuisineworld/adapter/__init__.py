"""The CuisineWorld adapter: the engine behind the domain contract, and everything that only
makes sense for a kitchen (command extraction and grammar, prompt text, the page's view, the
planner and its upper bound, RL environments, the demo maker).

Example::

    from cuisineworld.adapter import CuisineSession, extract_commands
    extract_commands("goto_agent0_storage0\\nget_agent1_tuna_storage0", n_agents=2)
"""

from __future__ import annotations

from cuisineworld.adapter.extraction import extract_commands
from cuisineworld.adapter.session import CuisineSession

__all__ = ["CuisineSession", "extract_commands"]
