"""The CuisineWorld parts of the prompt: rules and actions, recipes, inference knowledge.

All wording is ours. Everything here depends only on the level and the team size, so it is
byte-identical at every step of an episode (the cacheable prefix).
"""

from __future__ import annotations

from cuisineworld import Level
from cuisineworld.levels import load_recipes


def _tool_line(level: Level, type_name: str, names: list[str]) -> str:
    loc = next(spot for spot in level.locations if spot.type == type_name)
    where = ", ".join(names)
    if loc.role == "storage":
        return f"- {where}: storage. Take any base ingredient by name; whatever is put here is thrown away."
    if loc.role == "serving":
        return f"- {where}: serving table. Put a finished dish here to deliver it."
    if loc.role == "counter":
        return (f"- {where}: counter, holds {loc.capacity if loc.capacity > 0 else 'any number of'} item"
                f"{'s' if loc.capacity != 1 else ''}. Any item can be put here and taken by another agent "
                "(get_agentK_LOCATION): the hand-off between agents who reach different stations.")
    capacity = "any number of items" if loc.capacity < 0 else f"at most {loc.capacity} item{'s' if loc.capacity != 1 else ''}"
    if loc.cook_time == 0:
        timing = "works instantly when activated"
    else:
        timing = f"cooks for {loc.cook_time} step{'s' if loc.cook_time != 1 else ''} after activation"
    extra = "; the agent who activates it stays busy until it is done" if loc.operator_busy else ""
    take = "; raw items can be taken back before chopping" if loc.gettable == "always" else ""
    return f"- {where}: {type_name}, holds {capacity}, {timing}{extra}{take}."


def team_text(level: Level, n_agents: int, only: int | None = None) -> str:
    """Who reaches which stations (every agent) and who knows which recipes (every agent, or only
    agent `only`, in its own decentral prompt); '' on a level where every agent reaches everything."""
    profiles = level.team_profiles(n_agents)
    if profiles is None:
        return ""
    lines = ["This team is not alike: each agent can use only the locations listed for it; a command at any "
             "other location is refused (cannot reach). Items cross between agents on a counter both reach."]
    for a, profile in enumerate(profiles):
        reach = ", ".join(n for n in level.location_names if n in profile.reach)
        lines.append(f"- agent{a} can reach: {reach}.")
    for a, profile in enumerate(profiles):
        if profile.knows is None or (only is not None and a != only):
            continue
        products = [r.product for r in level.known_recipes(profile.knows)]
        told = f"the recipes of: {', '.join(products)}" if products else "no recipe (it must be told what to do)"
        lines.append(f"- agent{a} knows {told}.")
    return "\n".join(lines) + "\n"


def instructions_text(level: Level, n_agents: int, only: int | None = None) -> str:
    by_type: dict[str, list[str]] = {}
    for loc in level.locations:
        by_type.setdefault(loc.type, []).append(loc.name)
    kitchen = "\n".join(_tool_line(level, t, names) for t, names in by_type.items())
    last = n_agents - 1
    return f"""You are the dispatcher of a robot kitchen team in CuisineWorld, a text cooking game.
You command {n_agents} agent{'s' if n_agents != 1 else ''} (agent0 to agent{last}). At every step you give each agent exactly one command; the commands run one after another in the order you write them, so a put written before an activate on the same tool happens first.

Commands (write them exactly in this form):
- goto_agentK_LOCATION: agentK walks to LOCATION at once.
- get_agentK_ITEM_storageN: agentK takes the base ingredient ITEM from storage; its hands must be empty.
- get_agentK_LOCATION: agentK takes the finished product out of a tool.
- put_agentK_LOCATION: agentK puts what it holds into LOCATION.
- activate_agentK_LOCATION: agentK starts a tool; its content turns into the product of the matching recipe.
- noop_agentK: agentK waits.

Rules:
- An agent must be at a location before it can get, put or activate there.
- An agent holds one item at a time and needs empty hands to get or to activate.
- occupy(tool) means the tool is still cooking: it can be neither filled, emptied nor activated until occupy is gone. occupy(agentK) means agentK is operating a tool and can only wait.
- A tool accepts only what one of its recipes needs next; anything else is refused as waste.
- Deliver a dish by putting it on the serving table; the most urgent order for that dish is then completed.
- Every order has a lifetime that drops by one each step; at lifetime 0 it fails. New orders keep arriving.

This kitchen:
{kitchen}
Base ingredients in storage: {", ".join(level.base_ingredients)}.
{team_text(level, n_agents, only)}
Answer with exactly {n_agents} line{'s' if n_agents != 1 else ''}, one command per agent, and nothing else."""


def recipes_text(level: Level, demo_dish: str | None = None, knows: frozenset[str] | None = None) -> str:
    """The recipe list; `knows` (an agent's own knowledge, decentral mode) keeps only its trees."""
    recipes = list(level.known_recipes(knows))
    if not recipes and not demo_dish:
        return "Recipes: you know none; ask your teammates what to make and how."
    if demo_dish is not None and level.recipe_for(demo_dish) is None:
        book = {r.product: r for r in load_recipes().recipes}
        queue = [demo_dish]
        seen = {r.product for r in recipes}
        while queue:
            name = queue.pop(0)
            spec = book.get(name)
            if spec is None or name in seen:
                continue
            seen.add(name)
            from cuisineworld import Recipe

            recipes.append(Recipe(spec.product, spec.tool, tuple(spec.ingredients)))
            queue.extend(spec.ingredients)
    lines = [f"- {r.product} <- {r.tool}: {', '.join(r.ingredients)}" for r in recipes]
    return "Recipes (product <- tool: ingredients; ingredients can go in in any order):\n" + "\n".join(lines)


def knowledge_text() -> str:
    return """Hints:
- Chop raw vegetables and fish on a chopboard before they go into a mixer (a salad needs sliced vegetables).
- While a tool shows occupy(...) nothing can be put into it or taken out of it; wait for it, or give the agent other work meanwhile.
- Orders keep coming: work on the most urgent one first, finish dishes quickly and keep every agent busy.
- An order fails when its lifetime reaches 0; do not start a dish that cannot be finished in time.
- Read the feedback: it says why a command was refused; fix the cause instead of repeating the command."""
