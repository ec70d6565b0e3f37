"""Level, recipe and location-type data shipped with MindAgent, and the one loader for them.

Example::

    from cuisineworld.levels import load_level_data, level_names
    data = load_level_data("level_3")        # or a path to a user's level file
    data.level.dishes                         # ['salmonSushi', 'tunaSushi']
"""

from cuisineworld.levels.loader import (
    LevelData,
    LevelFileError,
    level_names,
    load_level_data,
    load_location_types,
    load_recipes,
)

__all__ = [
    "LevelData",
    "LevelFileError",
    "level_names",
    "load_level_data",
    "load_location_types",
    "load_recipes",
]
