"""CuisineWorld as the registry finds it: its name, its own commands, and where its `Domain` lives.

The kitchen has no options of its own beyond the core's (level, rules, recipes); its commands are
the terminal game (`play`), the level tools (`levels`), the demo maker (`demo make`) and the RL
trainer (`train`).
"""

from mindagent.core.plugin import DomainPlugin

PLUGIN = DomainPlugin(
    name="cuisineworld",
    title="CuisineWorld",
    domain="mindagent.cuisine.domain:DOMAIN",
    summary="the text kitchen of the MindAgent paper: dish orders flood in at a task interval",
    commands=("mindagent.cuisine.play_command", "mindagent.cuisine.levels_command", "mindagent.cuisine.commands",
              "mindagent.cuisine.train_command"),
)
