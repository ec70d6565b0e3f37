"""Dispatch: how a team's commands are decided each step (the dispatcher and its modes, plans,
task graphs, partners, memory, the prompt and the brains that answer it)."""
