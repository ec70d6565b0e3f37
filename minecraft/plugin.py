"""Minecraft as the registry finds it: its name, its server options and where its `Domain` lives.

Light on purpose: the command line reads this to list ``--mc-*`` options without starting to
import the bots' bridge or the server process code.
"""

from mindagent.core.plugin import DomainOption, DomainPlugin

_LIVE = ("run", "eval", "serve")

PLUGIN = DomainPlugin(
    name="minecraft",
    title="Minecraft",
    domain="minecraft.domain:DOMAIN",
    summary="bots cooking meat in a furnace and filling a chest, on an embedded flying-squid server or yours",
    options=(
        DomainOption("mc_host", "--mc-host", str, "use this offline-mode server instead of the embedded one"),
        DomainOption("mc_port", "--mc-port", int, "the server's port (embedded server: where people join; "
                     "serve's default 25565)", min=0, max=65535, single_use=True),
        DomainOption("mc_version", "--mc-version", str, "protocol version (default 1.19.2)"),
        DomainOption("cook_ticks", "--cook-ticks", int, "embedded server: furnace cook ticks (vanilla 200)", min=1),
        DomainOption("mc_bind", "--mc-bind", str, "embedded server: the address the world listens on (default "
                     "127.0.0.1; anything else lets anyone who reaches it join, offline mode)"),
        DomainOption("mc_view_port", "--mc-view-port", int, "the port of the live 3D view of the kitchen that "
                     "`serve` opens beside the page (default: a free port, named on the page)", min=1, max=65535,
                     single_use=True),
        DomainOption("mc_accounts", "--mc-accounts", str, "an online-mode server at --mc-host: NAME=EMAIL,... one "
                     "Microsoft account per bot, NAME its in-game name (the bot goes by it); documented, not tested"),
        DomainOption("mc_site", "--mc-site", str, "construction at --mc-host: X,Y,Z of the materials chest its "
                     "owner filled (the site is the 16 x 16 square two blocks south of it)"),
        DomainOption("mc_clock", "--mc-clock", str, "embedded server: lockstep (default; each step advances the "
                     "kitchen 40 game ticks, reproducible) | realtime (20 ticks a second, for people playing along)"),
    ),
)
