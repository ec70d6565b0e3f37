"""Limits on level and recipe files, checked before any work (see `mindagent.recordings.limits` for the rest).

Each exists because a file without it was seen to hang or exhaust the loader: a 100,000-location
kitchen, a recipe graph that doubles at every level.
"""

from __future__ import annotations

#: Bytes of a level or recipe file, checked before the file is read.
MAX_LEVEL_FILE_BYTES = 2 * 1024 * 1024
#: Locations in one kitchen, dishes in one level, base ingredients in one recipe book.
MAX_LOCATIONS = 512
MAX_DISHES = 64
MAX_BASE_INGREDIENTS = 256
#: Recipes in one book (the shipped one merged with a user's), recipe levels from a dish down to
#: its base ingredients, and nodes of a dish's fully expanded recipe tree (repeats counted: a
#: recipe graph that doubles at every level is refused here, before the engine walks it).
MAX_RECIPES = 256
MAX_RECIPE_DEPTH = 32
MAX_RECIPE_EXPANSION = 4096
#: Largest number anywhere in a level (cook times, capacities, and a dish's task interval and
#: lifetime at tau 1, which the engine derives from the recipe tree).
MAX_LEVEL_NUMBER = 1_000_000
#: Characters of a name in a level or recipe file.
MAX_NAME_CHARS = 64
#: Steps one level may last (its ``max_steps``); recordings use the same bound.
MAX_LEVEL_STEPS = 100_000
#: Agent profiles in one level (per-agent reach and knowledge).
MAX_AGENT_PROFILES = 64
