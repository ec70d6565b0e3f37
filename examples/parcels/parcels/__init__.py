"""Parcels: couriers deliver parcels from a depot to houses before they expire.

A small game for MindAgent that lives outside it and registers through the ``mindagent.domains``
entry point (see ``pyproject.toml``); the add-a-domain tutorial walks through it.
"""
