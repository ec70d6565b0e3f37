"""What people who are not the crew did to the kitchen, as lines of a step's notes.

The server's guard (``minecraft/node/plugins/guard.js``) refuses what a visitor must not do and the
containers plugin notes what a visitor took or put; both become incidents in the kitchen state.
Each becomes one plain line in the next step's notes, and so in the recording: a score a visitor
changed says why, and a refused attempt says it did not happen.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from minecraft.protocol import Incident


def incident_lines(incidents: Sequence[Incident], crew: Collection[str]) -> list[str]:
    """One line per run of the same attempt (a visitor hitting a cow six times is one line). The
    crew's own deeds are left out: on someone else's server our bots are no operators either.

    Example: ``Visitor tried to hit cow (6 times): refused.``
    """
    runs: list[tuple[Incident, int]] = []
    for incident in incidents:
        if incident.player in crew:
            continue
        last = runs[-1][0] if runs else None
        if last is not None and (last.player, last.what, last.outcome, last.scores) == (
                incident.player, incident.what, incident.outcome, incident.scores):
            runs[-1] = (last, runs[-1][1] + 1)
        else:
            runs.append((incident, 1))
    lines = []
    for incident, n in runs:
        times = f" ({n} times)" if n > 1 else ""
        if incident.outcome == "refused":
            lines.append(f"{incident.player} tried to {incident.what}{times}: refused.")
        else:
            why = "it can change the score" if incident.scores else "the score counts what the bots put in"
            lines.append(f"{incident.player} did this to the kitchen: {incident.what}{times} (recorded; {why}).")
    return lines
