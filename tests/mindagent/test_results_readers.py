"""Every results reader is bounded: `compare`, `plot` and `metrics` answer a crafted file with one
line on stderr (exit 2), never a traceback, a wrong verdict or a read of the whole file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.evaluation.readers import MAX_DEPTH, MAX_RESULTS_BYTES, ResultsError, load_json, nesting_depth

runner = CliRunner()
GOOD = {"config": {"domain": "cuisineworld", "rules": "reference", "seed": 0},
        "cells": [{"level": "level_0", "agents": 2, "cos": 0.5, "complete": True, "taus": [{"tau": 1.0, "rate": 0.5}]}]}
SUMMARY_CELL = {"level": "level_0", "agents": 2, "values": {"0": 0.5}}

CRAFTED: dict[str, str] = {
    "array": "[1,2,3]",
    "string": '"hello"',
    "null": "null",
    "number": "7",
    "cells as a string": json.dumps({"config": {}, "cells": "abc"}),
    "config as a list": json.dumps({"config": [1], "cells": []}),
    "a cell as a list": json.dumps({"config": {}, "cells": [[1]]}),
    "agents as text": json.dumps({"config": {}, "cells": [{**GOOD["cells"][0], "agents": "2"}]}),
    "cos as text": json.dumps({"config": {}, "cells": [{**GOOD["cells"][0], "cos": "0.5"}]}),
    "taus as a dict": json.dumps({"config": {}, "cells": [{**GOOD["cells"][0], "taus": {"a": 1}}]}),
    "NaN": json.dumps(GOOD).replace('"cos": 0.5', '"cos": NaN'),
    "Infinity": json.dumps(GOOD).replace('"cos": 0.5', '"cos": Infinity'),
    "-Infinity": json.dumps(GOOD).replace('"rate": 0.5', '"rate": -Infinity'),
    "seed as text": json.dumps({**GOOD, "config": {"seed": "zero"}}),
    "values as a list": json.dumps({"schema": "mindagent/seed-sweep@1", "cells": [{**SUMMARY_CELL, "values": [0.5]}]}),
    "values keyed by words": json.dumps({"schema": "mindagent/seed-sweep@1",
                                         "cells": [{**SUMMARY_CELL, "values": {"x": 0.5}}]}),
    "summary values NaN": json.dumps({"schema": "mindagent/seed-sweep@1", "cells": [SUMMARY_CELL]}).replace("0.5", "NaN"),
    "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    "objects nested deep": '{"a":' * 5_000 + "1" + "}" * 5_000,
    "not JSON": "{cells: [",
    "markup in a name": json.dumps({"config": {}, "cells": [{**GOOD["cells"][0], "level": "[/red]", "cos": "[b]"}]}),
}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / (name.replace(" ", "_").replace(",", "") + ".json")
    path.write_text(text, encoding="utf-8")
    return path


def one_line_refusal(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    return lines[0]


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_compare_refuses_each_crafted_file_in_one_line(tmp_path: Path, name: str) -> None:
    good = write(tmp_path, "good", json.dumps(GOOD))
    line = one_line_refusal(["compare", str(write(tmp_path, name, CRAFTED[name])), str(good)])
    assert "cannot read the results" in line


@pytest.mark.parametrize("name", sorted(set(CRAFTED) - {"seed as text"}))  # plot does not read the seed
def test_plot_refuses_each_crafted_file_in_one_line(tmp_path: Path, name: str) -> None:
    one_line_refusal(["plot", str(write(tmp_path, name, CRAFTED[name])), "--out", str(tmp_path / "x.png")])
    assert not (tmp_path / "x.png").exists()


def test_a_huge_file_is_refused_by_its_size_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as fh:
        fh.truncate(512 * 1024 * 1024)  # sparse: no disk used, and nothing read
    for args in (["compare", str(big), str(big)], ["plot", str(big)]):
        assert f"over the limit of {MAX_RESULTS_BYTES}" in one_line_refusal(args)


def test_nan_no_longer_makes_a_difference_significant(tmp_path: Path) -> None:
    good = write(tmp_path, "good", json.dumps(GOOD))
    assert "NaN is not a number" in one_line_refusal(["compare", str(write(tmp_path, "nan", CRAFTED["NaN"])), str(good)])


def test_a_good_file_still_compares_and_plots(tmp_path: Path) -> None:
    good = write(tmp_path, "good", json.dumps(GOOD))
    result = runner.invoke(app, ["compare", str(good), str(good)])
    assert result.exit_code == 0 and "0 of 1 cells differ" in result.output
    result = runner.invoke(app, ["plot", str(good), "--out", str(tmp_path / "p.png")])
    assert result.exit_code == 0 and (tmp_path / "p.png").stat().st_size > 0


def test_many_levels_are_drawn_in_pages(tmp_path: Path) -> None:
    cells = [{**GOOD["cells"][0], "level": f"level_{n}"} for n in range(30)]
    result = runner.invoke(app, ["plot", str(write(tmp_path, "many", json.dumps({"config": {}, "cells": cells}))),
                                 "--out", str(tmp_path / "p.png")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "p.png").exists() and (tmp_path / "p.p2.png").exists()


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab,:'),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\a'), inner,
                                                                                max_size=3), max_leaves=30))
@settings(max_examples=200)
def test_the_depth_count_agrees_with_the_parsed_document(value: object) -> None:
    def depth(v: object) -> int:
        if isinstance(v, list):
            return 1 + max((depth(x) for x in v), default=0)
        if isinstance(v, dict):
            return 1 + max((depth(x) for x in v.values()), default=0)
        return 0

    assert nesting_depth(json.dumps(value).encode()) == depth(value)


@given(st.binary(max_size=200))
def test_any_bytes_are_parsed_or_refused_with_a_results_error(tmp_path_factory: pytest.TempPathFactory,
                                                              data: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "f.json"
    path.write_bytes(data)
    try:
        load_json(path)
    except ResultsError as exc:
        assert "\n" not in str(exc)


def test_depth_limit_is_exact(tmp_path: Path) -> None:
    ok = write(tmp_path, "ok", "[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert load_json(ok) is not None
    with pytest.raises(ResultsError, match="nested 33 deep"):
        load_json(write(tmp_path, "deep", "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)))


@pytest.mark.parametrize("chunk", [1, 2, 3, 7])
def test_the_depth_count_carries_across_chunks(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    import mindagent.evaluation.readers as readers

    doc = json.dumps({"a[": [[{"b": "}}]\\\"{["}], [1, [2, [3]]]], "c": "\\\\", "d": [{"e": []}]}).encode()
    whole = nesting_depth(doc)
    monkeypatch.setattr(readers, "_DEPTH_CHUNK", chunk)
    assert nesting_depth(doc) == whole == 5
