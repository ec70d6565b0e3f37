"""CuisineWorld: the text kitchen of the MindAgent paper, as pure rules.

Importing this package does no I/O beyond reading the shipped data files when a level is
loaded; it knows nothing of dispatchers, models, networks or wording.

Example::

    from cuisineworld import World, load_level
    world = World(load_level("level_3"), n_agents=2, tau=1.0, seed=0)
    world.reset()
    world.step(["goto_agent0_storage0", "noop_agent1"])
"""

from cuisineworld.commands import VERBS, Command, parse_command
from cuisineworld.level import AgentProfile, Level, LocationSpec, Recipe, compile_level, load_level
from cuisineworld.levels import LevelFileError
from cuisineworld.orders import MAX_ACTIVE_ORDERS, Order
from cuisineworld.reasons import Code, Reason
from cuisineworld.rules import FIXED, REFERENCE, RULESETS, Rules, rules_named
from cuisineworld.timing import PAPER_TAUS
from cuisineworld.world import AgentStats, EpisodeCounts, EpisodeOver, KitchenView, LegalLabels, Outcome, StepResult, World

__all__ = [
    "AgentProfile",
    "FIXED",
    "MAX_ACTIVE_ORDERS",
    "PAPER_TAUS",
    "REFERENCE",
    "RULESETS",
    "VERBS",
    "AgentStats",
    "Code",
    "Command",
    "EpisodeCounts",
    "EpisodeOver",
    "KitchenView",
    "LegalLabels",
    "Level",
    "LevelFileError",
    "LocationSpec",
    "Order",
    "Outcome",
    "Reason",
    "Recipe",
    "Rules",
    "StepResult",
    "World",
    "compile_level",
    "load_level",
    "parse_command",
    "rules_named",
]
