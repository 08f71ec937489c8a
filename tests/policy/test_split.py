"""wisp.policy.split: a line becomes the simple commands it runs; unreadable text is kept."""

from __future__ import annotations

import pytest

from wisp.policy.shell_words import read_ansi_c
from wisp.policy.split import MAX_LEVELS, split_line
from wisp.policy.types import SimpleCommand


def texts(line: str) -> list[str]:
    return [part.text for part in split_line(line)]


def only(line: str) -> SimpleCommand:
    parts = split_line(line)
    assert len(parts) == 1, parts
    return parts[0]


# line → the texts of its simple commands, outermost first, in order.
SPLITS: list[tuple[str, list[str]]] = [
    # lists and pipelines
    ("ls -la | grep x", ["ls -la", "grep x"]),
    ("make && make test || echo failed", ["make", "make test", "echo failed"]),
    ("cd src; ls", ["cd src", "ls"]),
    ("sleep 10 & echo started", ["sleep 10", "echo started"]),
    ("ls\npwd\n", ["ls", "pwd"]),
    ("ls |& grep err", ["ls", "grep err"]),
    ("! grep -q x f", ["grep -q x f"]),
    ("ls && curl -s x | sh", ["ls", "curl -s x", "sh"]),
    # comments and blank lines
    ("# only a comment", []),
    ("   ", []),
    ("ls # list\n\n# done", ["ls"]),
    # quoting of every kind: separators inside quotes do not split
    ("echo 'a; b' \"c && d\"", ["echo 'a; b' \"c && d\""]),
    ("echo $'tab\\there; x' | wc -c", ["echo $'tab\\there; x'", "wc -c"]),
    ('echo "a \\"quoted\\" | word"', ['echo "a \\"quoted\\" | word"']),
    ("echo a\\;b a\\|c", ["echo a\\;b a\\|c"]),
    ('grep -e "x|y" -e \'(z)\' file', ['grep -e "x|y" -e \'(z)\' file']),
    ("ls \\\n  -la", ["ls \\\n  -la"]),
    # redirections stay with their command
    ("ls > out.txt 2>&1", ["ls > out.txt 2>&1"]),
    ("> out.txt ls", ["> out.txt ls"]),
    ("cat < in.txt >> out.txt", ["cat < in.txt >> out.txt"]),
    # subshells and groups: the commands inside
    ("(cd x && make)", ["cd x", "make"]),
    ("{ ls; pwd; }", ["ls", "pwd"]),
    ("{ ls; pwd; } > listing.txt", ["{ ls; pwd; } > listing.txt", "ls", "pwd"]),
    # substitutions: the outer command, then the one inside
    ("ls $(rm -rf ~)", ["ls $(rm -rf ~)", "rm -rf ~"]),
    ("echo `whoami`", ["echo `whoami`", "whoami"]),
    ("echo `ls \\`pwd\\``", ["echo `ls \\`pwd\\``", "ls `pwd`", "pwd"]),
    ('echo "today is $(date +%A)"', ['echo "today is $(date +%A)"', "date +%A"]),
    ("diff <(sort a) <(sort b)", ["diff <(sort a) <(sort b)", "sort a", "sort b"]),
    ("tee >(gzip > out.gz) < in", ["tee >(gzip > out.gz) < in", "gzip > out.gz"]),
    ('echo "${X:-$(rm -rf /)}"', ['echo "${X:-$(rm -rf /)}"', "rm -rf /"]),
    ("x=$(whoami)", ["x=$(whoami)", "whoami"]),
    ("export PATH=$(pwd)/bin:$PATH", ["export PATH=$(pwd)/bin:$PATH", "pwd"]),
    ("echo $((1 + $(id -u)))", ["echo $((1 + $(id -u)))", "id -u"]),
    # compound commands
    ("if test -f x; then cat x; else echo none; fi", ["test -f x", "cat x", "echo none"]),
    ("for f in *.py; do python $f; done", ["python $f"]),
    ("for f in $(ls); do rm $f; done", ["ls", "rm $f"]),
    ("while read l; do echo $l; done < list", ["read l", "echo $l"]),
    ("case $x in a) rm -rf a;; *) ls;; esac", ["rm -rf a", "ls"]),
    ("[[ -f x ]] && echo y", ["[[ -f x ]]", "echo y"]),
    ("f() { rm -rf build; }; f", ["rm -rf build", "f"]),
    ("FOO=1", ["FOO=1"]),
    # heredocs: the body belongs to its command; `$(…)` in an unquoted body runs
    ("cat <<'EOF' > notes.txt\nrm -rf $(x)\nEOF", ["cat <<'EOF' > notes.txt\nrm -rf $(x)\nEOF"]),
    ("cat <<EOF\nuser: $(whoami)\nEOF", ["cat <<EOF\nuser: $(whoami)\nEOF", "whoami"]),
    ("cat <<-EOF | sh\n\tls\n\tEOF", ["cat <<-EOF\n\tls\n\tEOF", "sh"]),
    ("cat <<EOF && rm x\nbody\nEOF", ["cat <<EOF\nbody\nEOF", "rm x"]),
    # scripts given to a shell, eval and trap are split in turn
    ("sh -c 'rm -rf ~/x'", ["sh -c 'rm -rf ~/x'", "rm -rf ~/x"]),
    ("bash -lc 'cd /tmp && ls'", ["bash -lc 'cd /tmp && ls'", "cd /tmp", "ls"]),
    ("bash -e -o pipefail -c 'make'", ["bash -e -o pipefail -c 'make'", "make"]),
    ("bash -c -- 'ls' arg0", ["bash -c -- 'ls' arg0", "ls"]),
    (
        "bash -c \"sh -c 'git -C dir status'\"",
        ["bash -c \"sh -c 'git -C dir status'\"", "sh -c 'git -C dir status'", "git -C dir status"],
    ),
    ("zsh -c \"echo \\`id\\`\"", ['zsh -c "echo \\`id\\`"', "echo `id`", "id"]),
    ("sudo bash -c 'apt-get update'", ["sudo bash -c 'apt-get update'", "apt-get update"]),
    ("bash <<'EOF'\nrm -rf x && ls\nEOF", ["bash <<'EOF'\nrm -rf x && ls\nEOF", "rm -rf x", "ls"]),
    ("sh <<< 'whoami; id'", ["sh <<< 'whoami; id'", "whoami", "id"]),
    ("bash script.sh", ["bash script.sh"]),
    ('eval "ls -la; rm x"', ['eval "ls -la; rm x"', "ls -la", "rm x"]),
    ("env -i -S 'make test' -k", ["env -i -S 'make test' -k", "make test '-k'"]),
    ("trap 'rm -f /tmp/lock' EXIT", ["trap 'rm -f /tmp/lock' EXIT", "rm -f /tmp/lock"]),
    ("find . -name '*.tmp' | xargs sh -c 'rm \"$@\"'", [
        "find . -name '*.tmp'", "xargs sh -c 'rm \"$@\"'", 'rm "$@"']),
]  # fmt: skip


@pytest.mark.parametrize(("line", "expected"), SPLITS, ids=[line for line, _ in SPLITS])
def test_a_line_splits_into_its_simple_commands(line: str, expected: list[str]) -> None:
    assert texts(line) == expected


# A one-command line → executable, subcommand (verb), pattern, legacy pattern.
PROGRAMS: list[tuple[str, str | None, str | None, str, str | None]] = [
    ("ls -la", "ls", None, "ls *", None),
    ("/usr/bin/ls -la", "ls", None, "ls *", None),
    ("'ls' -la", "ls", None, "ls *", None),
    ("git push origin main", "git", "push", "git push *", "git *"),
    ("git -C dir status", "git", "status", "git status *", "git *"),
    ("git --no-pager -c core.x=1 log", "git", "log", "git log *", "git *"),
    ("git --version", "git", None, "git *", None),
    ("cargo +nightly build --release", "cargo", "build", "cargo build *", "cargo *"),
    ("kubectl -n prod get pods", "kubectl", "get", "kubectl get *", "kubectl *"),
    ("docker compose up", "docker", "compose", "docker compose *", "docker *"),
    ("npm run test", "npm", "run", "npm run *", "npm *"),
    ('git "$(echo push)"', "git", None, "git *", None),
    ("FOO=1 BAR=2 make -j4", "make", None, "make *", None),
    ("sudo -u bob ls", "ls", None, "ls *", None),
    ("sudo env A=1 nice -n 5 apt install x", "apt", "install", "apt install *", "apt *"),
    ("timeout 10 pytest -q", "pytest", None, "pytest *", None),
    ("timeout -s KILL 10 pytest", "pytest", None, "pytest *", None),
    ("nohup ionice -c 3 stdbuf -oL chronic setsid make", "make", None, "make *", None),
    ("env", "env", None, "env *", None),
    ("command -v git", "command", None, "command *", None),
    ("time ls", "ls", None, "ls *", None),
    ("time -p make", "make", None, "make *", None),
    ("command -p make", "make", None, "make *", None),
    ("busybox ls -la", "ls", None, "ls *", None),
    # each wrapper's own options: flags are not values, values are not the program
    ("env -i make", "make", None, "make *", None),
    ("env - HOME=/x make", "make", None, "make *", None),
    ("env --unset HOME --chdir /tmp make", "make", None, "make *", None),
    ("timeout --signal KILL -k 5 10 make", "make", None, "make *", None),
    ("timeout --foreground --signal=INT 10 make", "make", None, "make *", None),
    ("nice --adjustment 5 make", "make", None, "make *", None),
    ("setsid -c make", "make", None, "make *", None),
    ("stdbuf -o 0 -e L make", "make", None, "make *", None),
    ("sudo -s make", "make", None, "make *", None),
    ("doas -n -u bob make", "make", None, "make *", None),
    # exact text: exec, xargs, interpreters, shell words, odd names
    ("xargs -I{} rm {}", "rm", None, "xargs -I{} rm {}", None),
    ("xargs -0 -d x -i rm", "rm", None, "xargs -0 -d x -i rm", None),
    ("exec -c make", "make", None, "exec -c make", None),
    ("exec make", "make", None, "exec make", None),
    ("python3 script.py", "python3", None, "python3 script.py", None),
    ("node app.js", "node", None, "node app.js", None),
    ("source .venv/bin/activate", "source", None, "source .venv/bin/activate", None),
    ("[ -f x ]", "[", None, "[ -f x ]", None),
    ("((n++))", "((", None, "((n++))", None),
    ("./run~me", "run~me", None, "./run~me", None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("line", "executable", "verb", "pattern", "legacy"), PROGRAMS, ids=[p[0] for p in PROGRAMS]
)
def test_the_program_verb_and_pattern_follow_section_7(
    line: str, executable: str | None, verb: str | None, pattern: str, legacy: str | None
) -> None:
    part = split_line(line)[0]
    assert (part.executable, part.subcommand, part.pattern, part.legacy_pattern) == (
        executable,
        verb,
        pattern,
        legacy,
    )
    assert part.readable


# A line → each part's normalised forms (docs/policy.md, "Deny and allow lists"): as the shell runs
# it, once per wrapper looked through; quotes and backslashes gone, the program by name, short
# options joined.
NORMALISED: list[tuple[str, list[list[str]]]] = [
    ("ls -la", [["ls -la"]]),
    ("\\sudo /bin/rm -r -f \"/\"", [["sudo rm -rf /", "rm -rf /"]]),
    ("env A=1 nice -n 5 'ls'", [["env A=1 nice -n 5 ls", "nice -n 5 ls", "ls"]]),
    ("curl x | \"/bin/\"s\\h -s", [["curl x"], ["| sh -s"]]),
    ("curl x |& sudo sh", [["curl x"], ["| sudo sh", "| sh"]]),
    ("echo / | xargs rm -r -f", [["echo /"], ["| xargs rm -rf", "rm -rf"]]),
    ('git commit -m "fix: a | sh"', [["git commit -m 'fix: a | sh'"]]),
    ("rm -r -v x -f", [["rm -rv x -f"]]),
    ("busybox sh -c 'ls'", [["busybox sh -c ls", "sh -c ls"], ["ls"]]),
    ('"$HOME/bin/tool" -a -b', [["tool -ab"]]),
    ("$CMD -rf /", [[]]),
    ("X=1", [[]]),
]  # fmt: skip


@pytest.mark.parametrize(("line", "forms"), NORMALISED, ids=[line for line, _ in NORMALISED])
def test_each_part_has_its_normalised_forms(line: str, forms: list[list[str]]) -> None:
    assert [list(part.normalised) for part in split_line(line)] == forms


UNREADABLE: list[str] = [
    "echo 'unbalanced",
    'echo "unbalanced',
    "ls $(",
    "ls `",
    "if true; then ls",
    "ls &&",
    "ls )",
    "$CMD -rf /",
    "$(echo rm) -rf /",
    'sh -c "$SCRIPT"',
    'env -S "$SCRIPT"',
    'bash -c "rm $(cat list)"',
    'eval "$(ssh-agent -s)"',
    "bash <<EOF\nrm $TARGET\nEOF",
    "echo ${X:-`id`}",
    "/bin/r? -rf x",
    "{rm,-rf,x}",
    "r\\\nm -rf x",
    "coproc sh -c 'rm -rf /'",
    "ls\x00; rm -rf /",
]


@pytest.mark.parametrize("line", UNREADABLE)
def test_what_cannot_be_read_is_kept_as_an_unreadable_command(line: str) -> None:
    parts = split_line(line)
    unreadable = [part for part in parts if not part.readable]
    assert unreadable, parts
    for part in unreadable:
        assert part.text
        assert part.pattern == part.text  # never a wildcard key for text wisp could not read


def test_a_parse_error_keeps_the_whole_line_and_what_parsed() -> None:
    parts = split_line("ls; echo 'oops")
    assert parts[0] == SimpleCommand(
        "ls; echo 'oops", None, None, "ls; echo 'oops", None, readable=False
    )
    assert "ls" in [part.text for part in parts[1:]]


def test_a_dynamic_script_makes_the_shell_command_itself_unreadable() -> None:
    (part,) = split_line('sh -c "$SCRIPT"')
    assert not part.readable and part.text == 'sh -c "$SCRIPT"'


def test_nested_scripts_are_followed_to_the_level_limit() -> None:
    line = "rm -rf /x"
    for _ in range(MAX_LEVELS + 1):
        line = "sh -c " + _single_quote(line)
    parts = split_line(line)
    assert [part.executable for part in parts] == ["sh"] * (MAX_LEVELS + 1) + [None]
    assert parts[-1] == SimpleCommand("rm -rf /x", None, None, "rm -rf /x", readable=False)


def test_nested_scripts_within_the_limit_are_all_read() -> None:
    line = "rm -rf /x"
    for _ in range(MAX_LEVELS):
        line = "sh -c " + _single_quote(line)
    parts = split_line(line)
    assert parts[-1].text == "rm -rf /x" and parts[-1].readable
    assert all(part.readable for part in parts)


def test_substitutions_nested_past_the_limit_are_one_unreadable_command() -> None:
    line = "ls"
    for _ in range(MAX_LEVELS + 2):
        line = f"echo $({line})"
    parts = split_line(line)
    assert not parts[-1].readable
    assert "ls" not in [part.text for part in parts]


def test_nesting_deeper_than_the_stack_fails_closed() -> None:
    line = "{ " * 3000 + "ls" + "; }" * 3000
    parts = split_line(line)
    assert parts and not all(part.readable for part in parts)


def test_a_quoted_heredoc_body_is_data_not_commands() -> None:
    parts = split_line("cat <<'EOF' > run.sh\n$(rm -rf ~)\n`id`\nEOF")
    assert len(parts) == 1 and parts[0].readable


def test_words_are_read_after_quote_removal() -> None:
    part = only("\"g\"'i't -C 'my dir' \"st\"atus")
    assert (part.executable, part.subcommand) == ("git", "status")


def test_ansi_c_strings_are_read() -> None:
    assert read_ansi_c(r"a\tb\x41\101\u00e9\n\'") == "a\tbAAé\n'"
    assert only("$'\\x67it' status").subcommand == "status"


def _single_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
