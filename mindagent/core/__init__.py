"""The core: the domain contract and its capabilities, the registry of domain plugins, the game
spec, the one episode step and the conformance suite. Everything above (dispatch, evaluation,
recordings, server, CLI) speaks to games only through this package."""
