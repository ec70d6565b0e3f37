"""CuisineWorld as the registry finds it: its name, its own commands, and where its `Domain` lives.

The kitchen has no options of its own beyond the core's (level, rules, recipes); its commands are
the terminal game (`play`), the level tools (`levels`), the demo maker (`demo make`); its trainer
(`mindagent train`) is masked PPO on the RL env.
"""

from mindagent.core.plugin import DomainPlugin

PLUGIN = DomainPlugin(
    name="cuisineworld",
    title="CuisineWorld",
    domain="cuisineworld.adapter.domain:DOMAIN",
    summary="the text kitchen of the MindAgent paper: dish orders flood in at a task interval",
    commands=("cuisineworld.adapter.play_command", "cuisineworld.adapter.levels_command", "cuisineworld.adapter.commands"),
    train="cuisineworld.adapter.train_command:train",
)
