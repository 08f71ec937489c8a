"""The claims of actions a reply makes (wisp/agent/verification/claims.py)."""

from __future__ import annotations

import pytest

from wisp.agent.verification.claims import find_claims


def claims(text: str) -> list[tuple[str, str | None, str | None]]:
    return [(c.family, c.program, c.path) for c in find_claims(text)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("I ran the tests and they pass.", [("tests", None, None)]),
        ("I've run the unit tests.", [("tests", None, None)]),
        ("I have just executed the test suite.", [("tests", None, None)]),
        ("All tests passed!", [("tests", None, None)]),
        ("Ran `pytest -q`: 3 passed.", [("tests", "pytest", None)]),
        ("I ran `ls -la` and found 3 files.", [("command", "ls", None)]),
        ("I ran python3 hello.py.", [("command", "python3", None)]),
        ("I executed the script.", [("command", None, None)]),
        ("I re-ran the tests.", [("tests", None, None)]),
        ("I reran `make test`.", [("tests", "make", None)]),
        ("I overwrote out.txt.", [("edit", None, "out.txt")]),
        ("The command ran successfully.", [("command", None, None)]),
        ("The build worked.", [("build", None, None)]),
        ("I tested the function with a few inputs.", [("tested", None, None)]),
        ("I have installed numpy for you.", [("install", None, None)]),
        ("I built the project.", [("build", None, None)]),
        ("I committed the changes.", [("commit", None, None)]),
        ("We've pushed to main.", [("push", None, None)]),
        ("I've updated config.ini to use port 8080.", [("edit", None, "config.ini")]),
        ("Updated src/app.py: fixed the bug.", [("edit", None, "src/app.py")]),
        ("I created a new file called hello.py.", [("edit", None, "hello.py")]),
        ("I wrote the results to /tmp/out.txt.", [("edit", None, "/tmp/out.txt")]),
        ("I changed the port in settings.py.", [("edit", None, "settings.py")]),
        ("I removed the unused import from main.py.", [("edit", None, "main.py")]),
        ("I updated the file.", [("edit", None, None)]),
        ("config.ini has been updated.", [("edit", None, "config.ini")]),
        ("The file has been created.", [("edit", None, None)]),
        ("I deleted old.log.", [("delete", None, "old.log")]),
        ("I read the file and it has 3 lines.", [("read", None, None)]),
        ("I opened /etc/hosts.", [("read", None, "/etc/hosts")]),
        ("I looked at `README.md`.", [("read", None, "README.md")]),
        ("We have edited the README.", [("edit", None, "README")]),
        (
            "I ran the tests, committed the changes and pushed them.",
            [("tests", None, None), ("commit", None, None), ("push", None, None)],
        ),
        ("I did not run the tests, but I updated notes.md.", [("edit", None, "notes.md")]),
        ("I did not run the tests, but config.ini was updated.", [("edit", None, "config.ini")]),
        # A change told as the state it left; recorded, Qwen2.5-Coder-1.5B after only reading.
        ('The line "obsolete" is removed from the file.', [("edit", None, None)]),
        ("The line was removed from the file.", [("edit", None, None)]),
        ("The port is now changed in settings.json.", [("edit", None, "settings.json")]),
    ],
)
def test_a_claim_is_found(text: str, found: list[tuple[str, str | None, str | None]]) -> None:
    assert claims(text) == found


@pytest.mark.parametrize(
    "text",
    [
        # negations
        "I did not run the tests.",
        "I didn't run anything.",
        "I haven't run the tests yet.",
        "I have not updated config.ini.",
        "I never ran the tests.",
        "Nothing was run.",
        "No tests were run.",
        "config.ini hasn't been updated.",
        "I ran no commands.",
        "without running the tests",
        # the future and the hypothetical
        "I will run the tests now.",
        "I'll update config.ini next.",
        "Let me run the tests.",
        "You can run `pytest` to check.",
        "To run the tests, type `pytest`.",
        "If I ran the tests, they would pass.",
        "Once the tests have passed, commit.",
        "I would have run the tests.",
        "I can create the file for you.",
        # imperatives, questions
        "Run the tests with `pytest`.",
        "Read the file first.",
        "Have I run the tests?",
        "Should I update config.ini?",
        # not actions on disk
        "I've created a Python function that adds two numbers:",
        "I built a small calculator for you.",
        "The app was built with React.",
        "I've written a function to read data.csv.",
        "I ran into a problem.",
        "I'm committed to helping you.",
        # an earlier turn's actions
        "I ran the tests earlier and they passed.",
        "In the previous turn I updated config.ini.",
        "As I said, I previously edited app.py.",
        "I checked the documentation.",
        "It worked for me once I restarted.",
        "I read your message.",
        "I've updated the code below.",
        "This file was created by the installer.",
        # how things work, told in the present
        "The file is read 100 lines at a time.",
        "Data is written to the file as it arrives.",
        "The value is updated every hour.",
        "Is the file removed?",
        # code is shown, not said
        "```\n# I ran the tests\npytest\n```",
        "",
    ],
)
def test_no_claim(text: str) -> None:
    assert claims(text) == []


def test_a_claim_is_quoted_as_it_stands() -> None:
    quoted = [
        c.quote for c in find_claims("Done! I've updated   config.ini, and all tests passed.")
    ]
    assert quoted == ["updated config.ini", "all tests passed"]


def test_a_quote_holds_no_escape_sequence_of_the_reply() -> None:
    # The quote reaches the screen on every face and the audit log: a hostile reply's escape
    # sequences must not ride along.
    quotes = [c.quote for c in find_claims("I ran the \x1b[31mtests\x1b[0m. I updated x.ini\x07")]
    assert quotes == ["ran the [31mtests [0m", "updated x.ini"]


def test_a_long_quote_is_cut() -> None:
    (claim,) = find_claims("I updated config.ini " + "to use a much longer value " * 10)
    assert len(claim.quote) == 80 and claim.quote.endswith("…")


def test_each_claim_once() -> None:
    assert len(find_claims("I ran the tests. Then I ran the tests again.")) == 1
