"""What the entry point names: the game's name, its own option, and where its `Domain` is."""

from mindagent.core.plugin import DomainOption, DomainPlugin

PLUGIN = DomainPlugin(
    name="parcels",
    title="Parcels",
    domain="parcels.domain:DOMAIN",
    summary="couriers carry parcels from a depot to houses before they expire (an example plugin)",
    options=(DomainOption("houses", "--houses", int, "houses on the street", min=2, max=9),),
)
