"""The JSON schema of our data files, as pydantic models (the boundary where files come in).

Three kinds of file: location types, recipes (with the base ingredients) and levels. They are
kept apart so a user can add a level or a recipe file without touching the rest.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Name = str


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LocationTypeSpec(_Strict):
    name: Name = Field(pattern=r"^[a-z]+$")
    role: Literal["storage", "serving", "tool"]
    cook_time: int = Field(ge=0, description="steps the tool stays occupied after activate")
    capacity: int | None = Field(default=None, ge=1, description="items inside; null = unlimited")
    operator_busy: bool = Field(description="the agent who activates it is busy while it cooks")
    gettable: Literal["always", "never", "after_activation"]


class LocationTypesFile(_Strict):
    schema_: Literal["mindagent/location-types@1"] = Field(alias="schema")
    location_types: list[LocationTypeSpec] = Field(min_length=1)


class RecipeSpec(_Strict):
    product: Name = Field(min_length=1, pattern=r"^[A-Za-z][A-Za-z0-9]*$")
    tool: Name
    ingredients: list[Name] = Field(min_length=1, max_length=16)


class RecipesFile(_Strict):
    schema_: Literal["mindagent/recipes@1"] = Field(alias="schema")
    base_ingredients: list[Name] = Field(default_factory=list)
    recipes: list[RecipeSpec] = Field(default_factory=list)

    @field_validator("base_ingredients")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not name or not name.isalnum() or not name[0].isalpha():
                raise ValueError(f"ingredient name {name!r} must be letters and digits")
        return names


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
    dishes: list[Name] = Field(min_length=1)
    kitchen: list[Name] = Field(min_length=2)
    kitchen_fixed: list[Name] | None = Field(
        default=None, description="the kitchen under the fixed rule set, when it differs"
    )
    max_steps: int = Field(default=60, ge=1, le=100_000)
    difficulty: str | None = None
    in_paper: bool = False
    note: str | None = None
    calibration: CalibrationSpec | None = None
