"""MindAgent: one language model dispatching a team of game agents.

The domain contract (`mindagent.core.domain`) and its registry (`mindagent.core.registry`), the dispatcher
loop, prompt, model clients, evaluation, CLI and server live here; each game plugs in through an
adapter, listed in `mindagent.core.registry` (the text kitchen in a subpackage, the bots in `minecraft`).
"""
