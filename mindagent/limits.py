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
#: Recording header bounds: agents, steps, tau (also the most steps a level may last).
MAX_AGENTS = 64
MAX_STEPS = 100_000
MAX_TAU = 1000.0
#: Bytes one recording may grow to while written (``MINDAGENT_MAX_RECORDING_MB`` changes it); at
#: the cap the file gets a ``cut`` line and no more. Also the most `mindagent replay` reads.
MAX_RECORDING_BYTES = 64 * 1024 * 1024
#: Characters of a recording header's text fields (level, domain, recipes path, rules).
MAX_HEADER_TEXT = 4096
