"""The JSON schema of our data files, as pydantic models (the boundary where files come in).

Three kinds of file: location types, recipes (with the base ingredients) and levels. They are
kept apart so a user can add a level or a recipe file without touching the rest.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from cuisineworld.levels.limits import (
    MAX_AGENT_PROFILES,
    MAX_BASE_INGREDIENTS,
    MAX_DISHES,
    MAX_LEVEL_NUMBER,
    MAX_LEVEL_STEPS,
    MAX_LOCATIONS,
    MAX_NAME_CHARS,
    MAX_RECIPES,
)

# every count and number is bounded (levels/limits.py): a file is refused, not worked through
Name = Annotated[str, StringConstraints(max_length=MAX_NAME_CHARS)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LocationTypeSpec(_Strict):
    name: Name = Field(pattern=r"^[a-z]+$")
    role: Literal["storage", "serving", "tool", "counter"]
    cook_time: int = Field(ge=0, le=MAX_LEVEL_NUMBER, description="steps the tool stays occupied after activate")
    capacity: int | None = Field(default=None, ge=1, le=MAX_LEVEL_NUMBER,
                                 description="items inside; null = unlimited")
    operator_busy: bool = Field(description="the agent who activates it is busy while it cooks")
    gettable: Literal["always", "never", "after_activation"]


class LocationTypesFile(_Strict):
    schema_: Literal["mindagent/location-types@1"] = Field(alias="schema")
    location_types: list[LocationTypeSpec] = Field(min_length=1, max_length=MAX_LOCATIONS)


class RecipeSpec(_Strict):
    product: Name = Field(min_length=1, pattern=r"^[A-Za-z][A-Za-z0-9]*$")
    tool: Name
    ingredients: list[Name] = Field(min_length=1, max_length=16)


class RecipesFile(_Strict):
    schema_: Literal["mindagent/recipes@1"] = Field(alias="schema")
    base_ingredients: list[Name] = Field(default_factory=list, max_length=MAX_BASE_INGREDIENTS)
    recipes: list[RecipeSpec] = Field(default_factory=list, max_length=MAX_RECIPES)

    @field_validator("base_ingredients")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not name or not name.isalnum() or not name[0].isalpha():
                raise ValueError(f"ingredient name {name!r} must be letters and digits")
        return names


class AgentProfileSpec(_Strict):
    """What one agent of a heterogeneous team can do (Collab-Overcooked's resource isolation and
    asymmetric knowledge): where it can go, and which recipes it is told."""

    reach: list[Name] = Field(
        min_length=1, max_length=MAX_LOCATIONS, description="locations it can use: instance names (pot0) and/or types (pot)"
    )
    knows: list[Name] | None = Field(
        default=None, max_length=MAX_RECIPES, description="products whose recipe trees it is told; null = every recipe"
    )


class CalibrationSpec(_Strict):
    """What `mindagent levels generate` measured on a level before writing it (its difficulty's
    evidence): the built-in planner's CoS and the upper bound under a short protocol."""

    agents: int = Field(ge=1, le=64)
    taus: list[float] = Field(min_length=1)
    episodes: int = Field(ge=1)
    seed: int
    planner_cos: float = Field(ge=0.0, le=1.0)
    bound_cos: float = Field(ge=0.0, le=1.0)
    band: tuple[float, float] = Field(description="the planner CoS range [low, high) that names the difficulty")
    candidates: int = Field(ge=1, description="levels measured before this one was accepted")


class LevelFile(_Strict):
    schema_: Literal["mindagent/level@1"] = Field(alias="schema")
    name: Name = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
    dishes: list[Name] = Field(min_length=1, max_length=MAX_DISHES)
    kitchen: list[Name] = Field(min_length=2, max_length=MAX_LOCATIONS)
    kitchen_fixed: list[Name] | None = Field(
        default=None, min_length=2, max_length=MAX_LOCATIONS,
        description="the kitchen under the fixed rule set, when it differs"
    )
    max_steps: int = Field(default=60, ge=1, le=MAX_LEVEL_STEPS)
    difficulty: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    in_paper: bool = False
    note: str | None = Field(default=None, max_length=4096)
    agents: list[AgentProfileSpec] | None = Field(
        default=None, min_length=1, max_length=MAX_AGENT_PROFILES,
        description="per-agent profiles, dealt round-robin to the team; null = every agent reaches everything",
    )
    calibration: CalibrationSpec | None = None
