"""What can go wrong with the behaviour-cloning proxy, as one tree the caller can act on.

- `BCError`: the root; every message is one line a person can act on.
  - `UnknownLayout`: a layout the human trials do not cover.
  - `TrialsUnavailable`: the trials are not cached and could not be fetched (no network, pip failed).
  - `CorruptTrials`: a cached file whose checksum is wrong, or a row that does not parse.
  - `MissingDependency`: pandas, torch or the `overcooked` package is not installed.
  - `PolicyLoadError`: a policy folder that is missing, incomplete or made for another layout.

The CLI turns any `BCError` into one red line; library callers can catch the narrower ones (a test
skips on `TrialsUnavailable` when there is no network, but fails on `CorruptTrials`).
"""

from __future__ import annotations


class BCError(Exception):
    """Root of the behaviour-cloning errors."""


class UnknownLayout(BCError, ValueError):
    """The layout has no human trials (only the five classic layouts do)."""


class TrialsUnavailable(BCError):
    """The trials are not in the cache and fetching them failed."""


class CorruptTrials(BCError):
    """A cached file or a row of the trials is not what the official package ships."""


class MissingDependency(BCError):
    """An optional package this feature needs is not installed."""


class PolicyLoadError(BCError):
    """A policy folder cannot be used."""
