"""Overcooked-AI behind the domain contract: two chefs, onion soups, the `overcooked` package's MDP.

The rules are the package's (`overcooked` on PyPI, imported only here); this package adds what
the dispatcher needs on top: commands at two levels (LLM-Coordination's medium-level actions,
carried out by the package's motion planner, and the six primitive actions), a refusal for every
command that is not feasible now, a text map for prompts, and a coordination-aware planner.
Named ``overcooked_game`` so that it never shadows the dependency it wraps.
"""
