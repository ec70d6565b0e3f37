"""Size limits on what others hand us, in one place so the docs (docs/reference/limits.md), the checks and the tests agree.

Every limit here exists because an input without it was seen to stall or exhaust something: a
10 MB model reply made a 302 MB recording, a 100,000-location kitchen hung the loader, a
``replay:/dev/zero`` model spec read until memory ran out.
"""

from __future__ import annotations

#: The most steps an episode may last; a game's own level limits stay at or under it.
MAX_EPISODE_STEPS = 100_000

#: Characters of one model reply kept, recorded and parsed; the rest is dropped and noted.
MAX_REPLY_CHARS = 65_536
#: Bytes of a file named by a model spec (``replay:<file>``) or given as a recording.
MAX_MODEL_FILE_BYTES = 64 * 1024 * 1024
#: Recording header bounds: agents, steps, tau (also the most steps a level may last).
MAX_AGENTS = 64
MAX_STEPS = MAX_EPISODE_STEPS
MAX_TAU = 1000.0
#: Bytes one recording may grow to while written (``MINDAGENT_MAX_RECORDING_MB`` changes it); at
#: the cap the file gets a ``cut`` line and no more. Also the most `mindagent replay` reads.
MAX_RECORDING_BYTES = 64 * 1024 * 1024
#: Characters of a recording header's text fields (level, domain, recipes path, rules).
MAX_HEADER_TEXT = 4096
