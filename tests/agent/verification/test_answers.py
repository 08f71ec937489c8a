"""The ``answers`` reader: a reply after the turn's results that answers nothing, told apart
from short answers and answers that use the results (recorded real replies first)."""

from __future__ import annotations

import pytest

from wisp.agent.verification.answers import announces, quoted, unanswered, uses_results

DATE = "2026-12-03T21:15:41Z (UTC)"
CSV = "".join(f"{n}\t{n - 1},item{n - 1},{n * 7 % 100}\n" for n in range(2, 38))
CSV = "1\tid,name,score\n" + CSV + "[end of file: 37 lines]"
CONFIG = (
    "1\t[server]\n2\thost = example.org\n3\tport = 8080\n4\tworkers = 4\n[end of file: 4 lines]"
)

# Recorded: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) through `wisp --yes -m local:…`.
RECORDED_UNANSWERED = [
    ("What is today's date?", "The date and time are correct.", DATE, "it acknowledges"),
    (
        "What port does config.ini set?",
        "I'm sorry, but I can't assist with that request.",
        CONFIG,
        "it refuses",
    ),
    (
        "What is today's date?",
        "The date and time are correctly formatted and displayed.",
        DATE,
        "it describes the results",
    ),
    (
        "What is today's date?",
        "The date and time provided is accurate and in the correct format.",
        DATE,
        "it acknowledges",
    ),
    (
        "Run a command to list the files in this folder, then tell me their names.",
        "The command executed successfully, and the output shows the names of the files in the "
        "current folder.",
        "alpha.txt\nbeta.py\ngamma.cfg",
        "it describes the results",
    ),
    (
        "How many lines does the file data.csv have?",
        "To determine the number of lines in the file `data.csv`, you can use the `read_file` "
        "function with the path to the file. Here's how you can do it:" * 2,
        CSV,
        "it tells how",
    ),
]
LISTING = "exit status: 0\nstdout:\ntotal 12\n-rw-r--r-- 1 root root 2 Dec  4 alpha.txt\n"
# Recorded: Qwen2.5-Coder-0.5B, after `ls -l` twice and the tools withdrawn.
RECORDED_UNANSWERED.append(
    (
        "Run a command to list the files in this folder, then tell me their names.",
        "```\nls -l\n```",
        LISTING,
        "it only shows a command",
    )
)


LONG_LISTING = (
    "exit status: 0\nstdout:\ntotal 12\n-rw-r--r-- 1 root root 2 Dec  4 23:13 alpha.txt\n"
    "-rw-r--r-- 1 root root 2 Dec  4 23:13 beta.py\n-rw-r--r-- 1 root root 2 Dec  4 23:13 gamma.cfg"
)
# Recorded: Qwen2.5-Coder-1.5B, each right after its command's output.
RECORDED_UNANSWERED += [
    (
        "Run a command to list the files in this folder, then tell me their names.",
        "The command `ls -l` successfully listed the files in the current folder. The output "
        "shows the total number of files and their sizes, as well as the names of the files.",
        LONG_LISTING,  # "total" is in it, and says nothing of the files
        "it describes the results",
    ),
    (
        "How many files are in this folder? Run a command to count them.",
        "The command `ls -l | wc -l` successfully executed and returned the number of files in "
        "the current directory.",
        "exit status: 0\nstdout:\n6",
        "it describes the results",
    ),
]


@pytest.mark.parametrize(("question", "reply", "output", "shape"), RECORDED_UNANSWERED)
def test_recorded_replies_that_answer_nothing_are_told_apart(question, reply, output, shape):
    assert unanswered(reply, question, [output]) == f"{shape} and uses none of the results"


@pytest.mark.parametrize(
    ("reply", "shape"),
    [
        ("Thank you!", "it thanks"),
        ("Thanks.", "it thanks"),
        ("The port is correct.", "it acknowledges"),
        ("Everything is right!", "it acknowledges"),
        ("The port is valid, and well-formed.", "it acknowledges"),
        ("Let me know if you need anything else.", "it offers help"),
        ("I’m unable to help with that.", "it refuses"),
    ],
)
def test_thanks_acknowledgements_refusals_and_offers_answer_nothing(reply, shape):
    why = unanswered(reply, "What port does config.ini set?", [CONFIG])
    assert why == f"{shape} and uses none of the results"


@pytest.mark.parametrize(
    "reply",
    [
        "Paris",  # a short factual answer has no shape of a non-answer
        "391",
        "The port is 8080.",
        "Thank you! The port is 8080.",  # thanks, then a value from the results
        "Thanks: the server is example.org.",  # a word of the results the question lacked
        "Today is 3 December 2026.",
        "I'm sorry, but the port is 8080, not 9090.",
        "That is correct: port = 8080 in config.ini.",
        "The port is correct and set to 8080.",  # a verdict, then the value
        "Done.",  # after an edit, the answer
        "OK",
        "The file looks good.",
        "`8080`",  # a value in backticks is no command
    ],
)
def test_answers_are_never_taken_for_no_answer(reply):
    assert unanswered(reply, "What port does config.ini set?", [CONFIG, DATE]) is None


def test_correct_answers_a_yes_or_no_question():
    assert unanswered("The port is correct.", "Is the port in config.ini right?", [CONFIG]) is None
    assert unanswered("The port is correct.", "What is the port?", [CONFIG]) is not None


def test_without_a_successful_result_nothing_is_asked_again():
    assert unanswered("I'm sorry, but I can't assist with that request.", "Read x", []) is None


def test_a_long_reply_is_left_alone_whatever_it_says():
    reply = "Thank you! " + "This is a long reply about many things. " * 12
    assert unanswered(reply, "What port?", [CONFIG]) is None


def test_an_empty_reply_is_for_the_empty_reply_check():
    assert unanswered("  \n", "What port?", [CONFIG]) is None


def test_the_questions_own_words_are_not_a_use_of_the_results():
    # "date" is in the question and the output label alike: saying it back uses nothing.
    assert not uses_results("The date is correct.", "What is the date?", ["date: 2026-12-03"])
    assert uses_results("It says 2026-12-03.", "What is the date?", ["date: 2026-12-03"])


def test_common_words_are_not_a_use_of_the_results():
    assert not uses_results("Sorry, I cannot help with that.", "Read it", ["with that help"])


def test_the_quote_is_one_line_and_bounded():
    assert quoted("Thank\n you!") == "Thank you!"
    assert len(quoted("word " * 100)) == 200


@pytest.mark.parametrize(
    "reply",
    [
        "The command executed successfully.",
        "The tests ran successfully and the output shows no failures.",
        "You can run it again with --verbose to see more.",
    ],
)
def test_describing_a_run_answers_a_request_that_asked_for_nothing(reply):
    assert unanswered(reply, "Run the tests.", ["12 passed in 0.4s"]) is None
    assert unanswered(reply, "Which tests fail?", ["12 passed in 0.4s"]) is not None


@pytest.mark.parametrize(
    "reply",
    [
        "The command returned the number of files: 6.",
        "The output shows the total: 12.",
        "The command successfully listed the files: alpha.txt, beta.py and gamma.cfg.",
    ],
)
def test_describing_results_with_what_they_hold_is_an_answer(reply):
    assert unanswered(reply, "How many files are in this folder?", [LONG_LISTING + "\n6"]) is None


def test_describing_results_while_giving_them_is_an_answer():
    listing = "alpha.txt\nbeta.py\ngamma.cfg"
    reply = "The command executed successfully: the files are alpha.txt, beta.py and gamma.cfg."
    assert unanswered(reply, "List the files here.", [listing]) is None


def test_a_command_alone_answers_a_request_to_run_one():
    assert unanswered("`make test`", "Run the tests.", ["exit status: 0"]) is None


@pytest.mark.parametrize(
    "reply",
    [
        "To answer your question, I need to read the file utils.py.",  # recorded, the 1.5B
        "Let me check the file.",
        "I'll run `wc -w poem.txt` to count the words.",
        "First, I will use read_file to open config.ini.",
    ],
)
def test_a_reply_that_only_says_what_it_will_do_announces(reply):
    assert announces(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "There are 4 functions.",
        "Let me know if you need anything else.",
        "Which file should I read?",  # it asks the person
        "I will " + "explain at length " * 20 + "and read it.",  # long: it says more
    ],
)
def test_answers_questions_and_long_replies_do_not_announce(reply):
    assert not announces(reply)
