"""What the triage keeps of a model's answer (docs/watch.md, "Triage"): each problem once, a
place only where the output names it, a long output cut to its head and tail."""

from __future__ import annotations

import json

import pytest

from wisp.watch.triage import HEAD_CHARACTERS, TAIL_CHARACTERS, excerpt, problems_in

OUTPUT = """\
Traceback (most recent call last):
  File "src/app.py", line 12, in main
NameError: name 'x' is not defined
tests/test_app.py:4: AssertionError
"""


def reply(*problems: tuple[str, str]) -> str:
    return json.dumps({"problems": [{"where": w, "what": what} for w, what in problems]})


@pytest.mark.parametrize(
    ("where", "kept"),
    [
        ("tests/test_app.py:4", "tests/test_app.py:4"),
        ("src/app.py:12", "src/app.py:12"),  # as a traceback names it
        ("src/app.py", "src/app.py"),
        ("tests/test_app.py:5", ""),  # a line the output never gives that file
        ("src/other.py:12", ""),
        ("line 12 of app", ""),
    ],
)
def test_a_place_counts_only_where_the_output_names_it(where: str, kept: str) -> None:
    (problem,) = problems_in(reply((where, "something failed")), OUTPUT)
    assert (problem.where, problem.what) == (kept, "something failed")


def test_a_problem_named_twice_is_one() -> None:
    problems = problems_in(
        reply(("src/app.py:12", "x is not defined"), ("src/app.py:12", " x  is not\ndefined")),
        OUTPUT,
    )
    assert len(problems) == 1


def test_a_problem_without_words_is_none() -> None:
    assert problems_in(reply(("src/app.py:12", "  ")), OUTPUT) == []


def test_a_reply_in_words_around_the_json_still_counts_and_one_without_is_an_error() -> None:
    worded = f"Here is the answer: {reply(('', 'it failed'))} Hope this helps."
    assert [problem.what for problem in problems_in(worded, OUTPUT)] == ["it failed"]
    with pytest.raises(ValueError, match="not a JSON object"):
        problems_in("The tests failed.", OUTPUT)


def test_a_long_output_is_read_by_its_head_and_tail() -> None:
    output = "first error\n" + "x" * 10_000 + "\nsummary: 3 failed\n"
    shown = excerpt(output)
    assert shown.startswith("first error\n") and shown.endswith("summary: 3 failed\n")
    assert len(shown) < HEAD_CHARACTERS + TAIL_CHARACTERS + 100
    assert "characters left out" in shown


def test_a_short_output_is_read_whole() -> None:
    assert excerpt(OUTPUT) == OUTPUT
