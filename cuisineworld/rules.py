"""The two rule sets, as one small object whose fields are each consulted in exactly one place.

`reference` reproduces the reference release, quirks included, so the paper's numbers can be
reproduced; `fixed` is what a fair game would do. Each field names the quirk it governs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Rules:
    name: str
    # one unreadable command, or two for one agent, rejects every command of the step
    reject_whole_joint_action: bool
    # putting a second copy of an item already inside a tool: it vanishes, or the put is refused
    duplicate_put: Literal["vanish", "refuse"]
    # a dish with no open order may be put on a serving table (it waits for a later order)
    serve_without_order: bool
    # an order shown with lifetime 0 fails before dishes served in that step are counted
    expire_before_serve: bool
    # several orders expiring in one step raise the failure count by one only
    count_failures_per_step: bool
    # use the level's corrected kitchen (level_12 gets its fryer)
    use_fixed_kitchen: bool


REFERENCE = Rules(
    name="reference",
    reject_whole_joint_action=True,
    duplicate_put="vanish",
    serve_without_order=True,
    expire_before_serve=True,
    count_failures_per_step=True,
    use_fixed_kitchen=False,
)

FIXED = Rules(
    name="fixed",
    reject_whole_joint_action=False,
    duplicate_put="refuse",
    serve_without_order=False,
    expire_before_serve=False,
    count_failures_per_step=False,
    use_fixed_kitchen=True,
)

RULESETS: dict[str, Rules] = {"reference": REFERENCE, "fixed": FIXED}


def rules_named(name: str | Rules) -> Rules:
    if isinstance(name, Rules):
        return name
    try:
        return RULESETS[name]
    except KeyError:
        raise ValueError(f"unknown rule set {name!r}; choose one of: {', '.join(RULESETS)}") from None
