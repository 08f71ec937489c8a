"""The network mark in rules.json (docs/policy.md, "The network mark"): which programs need the
network, read as the shell runs them, and which do not."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from wisp.policy.rules import RuleSet, default_rules, network_reason
from wisp.policy.split import split_line

MARKED = [
    "curl http://127.0.0.1:8000/",
    "wget -q https://example.org/x.tar.gz",
    "FOO=1 /usr/bin/curl -s x",
    "env A=1 timeout 5 curl x",
    "xargs curl",
    "pip install requests",
    "pip3 download six",
    "python3 -m pip install -r requirements.txt",
    "uv pip install x",
    "uv sync",
    "poetry install",
    "conda install numpy",
    "npm install",
    "npm ci",
    "pnpm add left-pad",
    "yarn",
    "yarn add react",
    "npx create-react-app x",
    "cargo install ripgrep",
    "cargo fetch",
    "go get example.com/x",
    "go install example.com/x@latest",
    "go mod download",
    "gem install rails",
    "sudo apt-get update",
    "apt install -y jq",
    "git fetch origin",
    "git -C sub pull",
    "git push origin main",
    "git clone https://example.org/r.git",
    "git ls-remote origin",
    "git submodule update --init",
    "ssh host ls",
    "scp a host:b",
    "rsync -a out/ backup.example.org:out/",
    "rsync -a out/ rsync://mirror/x",
    "nc 127.0.0.1 80",
    "telnet example.org 25",
    "ftp example.org",
]

UNMARKED = [
    "python3 -c 'import socket'",
    "ls -la",
    "echo curl",
    "git status",
    "git commit -m x",
    "git log --oneline",
    "pip list",
    "pip show requests",
    "npm test",
    "npm run build",
    "yarn test",
    "cargo build",
    "go build ./...",
    "go test ./...",
    "rsync -a out/ backup/",
    "sshd -t",
    "cat curl.txt",
]


@pytest.mark.parametrize("line", MARKED)
def test_a_program_that_needs_the_network_is_marked(line: str) -> None:
    assert any(network_reason(part) for part in split_line(line)), line


@pytest.mark.parametrize("line", UNMARKED)
def test_work_that_stays_on_the_machine_is_not_marked(line: str) -> None:
    assert not any(network_reason(part) for part in split_line(line)), line


def test_a_part_behind_a_shell_or_a_pipe_is_marked_on_its_own() -> None:
    reasons = [network_reason(part) for part in split_line("cd app && npm install")]
    assert reasons == [None, "installs or downloads JavaScript packages over the network"]
    assert any(network_reason(part) for part in split_line('bash -c "curl x"'))
    assert any(network_reason(part) for part in split_line("cat x | nc host 80"))


def test_the_marks_load_typed_and_a_bad_one_fails_the_load() -> None:
    raw = resources.files("wisp.policy").joinpath("rules.json").read_bytes()
    data = json.loads(raw)
    assert len(default_rules().network) == len(data["network"]["programs"]) > 0
    data["network"]["programs"].append({"pattern": "curl", "reason": "x", "level": "safe"})
    with pytest.raises(ValueError, match="level"):
        RuleSet.from_json(json.dumps(data))
