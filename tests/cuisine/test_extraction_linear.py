"""Extraction runs in linear time on any reply: adversarial texts built from the pieces that made
the old patterns quadratic (runs of newlines, whitespace, backticks, markup, half-written commands).

The bound per text is generous (one second for up to 64 KB, which linear patterns parse in a few
milliseconds); before the fix 8,000 newlines took 9.7 s and 20,000 took minutes. The 50 ms budget
for 100 KB is measured in ``benchmarks/extraction_bench.py``, not asserted here.
"""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from cuisineworld.adapter.extraction import MAX_TEXT, extract_commands
from mindagent.dispatch.plans import split_plan
from minecraft.commands import extract_commands as mc_extract

PIECES = ["\n", " ", "\t", "\r\n", "`", "```", "```py\n", "***", "*", "#", "> ", "- ", "_", "answer:", "Answer -",
          "final answer", "plan:", "commands", "goto_agent", "goto_agent0", "goto_agent0_", "goto_agent0_storage0",
          "noop_agent1", "get_agent1_tuna_storage0_", "put_agent12_", "<b>", "</b>", "**", "---", "goal:",
          "killMob(", "killMob(Alex,", "goto(Alex, ", "(", ",", "'", "minecraft:"]

#: A piece repeated into a long run, or a few pieces alternating: the shapes that defeat backtracking.
adversarial = st.builds(
    lambda parts, repeat: ("".join(parts) * repeat)[:MAX_TEXT],
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=4),
    st.integers(min_value=1, max_value=20_000),
)


def timed(fn, *args):
    started = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - started


@settings(max_examples=60, deadline=None)
@given(adversarial)
def test_every_rule_set_parses_adversarial_text_fast(text):
    for rules in ("fixed", "reference"):
        commands, spent = timed(extract_commands, text, 4, rules)
        assert spent < 1.0, (rules, len(text), spent)
        assert all(c in text for c in commands)
    _, spent = timed(split_plan, text)
    assert spent < 1.0
    _, spent = timed(mc_extract, text, ["Alex", "Steve"])
    assert spent < 1.0


def test_a_reply_of_line_breaks_is_parsed_at_once():
    # the case: `run --rules fixed` took 150 s for one step on a reply of 20,001 newlines
    for text in ("\n" * 60_000, "\n" * 30_000 + "answer: goto_agent0_storage0", "#\n" * 30_000, " \n" * 30_000):
        commands, spent = timed(extract_commands, text, 2, "fixed")
        assert spent < 1.0
        assert commands == (["goto_agent0_storage0"] if "goto" in text else [])


def test_many_answer_marks_without_commands_are_one_pass():
    text = "answer:\n" * 8_000 + "goto_agent0_storage0"
    commands, spent = timed(extract_commands, text, 2, "fixed")
    assert commands == ["goto_agent0_storage0"] and spent < 1.0


def test_the_last_answer_mark_with_commands_still_wins():
    text = "Answer: goto_agent0_storage0\nmore thinking\nFinal answer: noop_agent0 goto_agent1_pot0\nanswer: none"
    assert extract_commands(text, 2, "fixed") == ["noop_agent0", "goto_agent1_pot0"]


def test_text_past_the_cap_is_not_parsed():
    text = "x" * MAX_TEXT + " goto_agent0_storage0"
    assert extract_commands(text, 2, "fixed") == [] and extract_commands(text, 2, "reference") == []
