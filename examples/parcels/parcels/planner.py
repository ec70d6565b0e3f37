"""A greedy courier: carry what you hold home, else fetch the most urgent parcel nobody holds."""

from __future__ import annotations

from parcels.session import ParcelsSession


class CourierPlanner:
    name = "planner"

    def reset(self, session: ParcelsSession) -> None:
        return None

    def act(self, session: ParcelsSession) -> list[str]:
        street = session.street
        commands = []
        taking = len(street.waiting())
        for k, place in enumerate(street.places):
            held = street.carrying(k)
            if held is not None:
                home = f"house{held.house}"
                commands.append(f"drop_agent{k}_{home}" if place == home else f"move_agent{k}_{home}")
            elif place == "depot" and taking > 0:
                taking -= 1
                commands.append(f"take_agent{k}_depot")
            elif place != "depot":
                commands.append(f"move_agent{k}_depot")
            else:
                commands.append(f"wait_agent{k}")
        return commands
