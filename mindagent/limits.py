"""Size limits on what others hand us, in one place so the README, the checks and the tests agree.

Every limit here exists because an input without it was seen to stall or exhaust something: a
10 MB model reply made a 302 MB recording, a 100,000-location kitchen hung the loader, a
``replay:/dev/zero`` model spec read until memory ran out.
"""

from __future__ import annotations

#: Characters of one model reply kept, recorded and parsed; the rest is dropped and noted.
MAX_REPLY_CHARS = 65_536
#: Bytes of a file named by a model spec (``replay:<file>``) or given as a recording.
MAX_MODEL_FILE_BYTES = 64 * 1024 * 1024
#: Bytes of a level or recipe file.
MAX_LEVEL_FILE_BYTES = 2 * 1024 * 1024
#: Locations in one kitchen.
MAX_LOCATIONS = 512
#: Recipes in one level, depth of a recipe chain, and ingredients a recipe expands to in all.
MAX_RECIPES = 256
MAX_RECIPE_DEPTH = 32
MAX_RECIPE_EXPANSION = 4096
#: Largest number anywhere in a level (durations, counts, lifetimes).
MAX_LEVEL_NUMBER = 1_000_000
#: Recording header bounds: agents, steps, tau.
MAX_AGENTS = 64
MAX_STEPS = 100_000
MAX_TAU = 1000.0
