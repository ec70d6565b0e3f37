"""The public name of the conformance suite (`mindagent.core.conformance`): the checks every game
must pass, as PettingZoo's `parallel_api_test` is for environments."""

from mindagent.core.conformance import ConformanceError, ConformanceReport, domain_api_test, domain_api_test_sync

__all__ = ["ConformanceError", "ConformanceReport", "domain_api_test", "domain_api_test_sync"]
