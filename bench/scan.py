"""`wisp scan` against detect-secrets: recall and precision on a labelled corpus, and MB/s on a
large tree (docs/performance.md, "Scan: `bench/scan.py`").

    python bench/scan.py                 # the corpus, then this repository + its venv (~7 min,
                                         # most of it detect-secrets)
    python bench/scan.py --quick         # the corpus, then this repository alone
    python bench/scan.py --tree A --tree B --rounds 5
    python bench/scan.py --json          # one JSON document on stdout

**The corpus** is ``tests/scan/corpus/`` with its ``labels.json`` (``{"FILE": [{"line": N,
"kind": "KIND"}, …]}``: every secret listed, the rest negatives), or ``--corpus DIR``. A
finding is true when its
file, line and kind match a label. detect-secrets' types are mapped to wisp's kinds (``TYPES``);
its entropy and keyword types count for any secret on their line (generous to it). Recall is
given for each kind; ``-`` where detect-secrets has no type for it.

**The large tree** (``--tree``, default: this repository and the virtual environment running
this script) is timed as a person runs each tool, in interleaved rounds whose order rotates:

* ``wisp scan TREE…`` and ``wisp redact TREE…`` (the console script; stdout to /dev/null);
* detect-secrets through its Python API with every plugin and its default filters
  (``SecretsCollection.scan_files``, on as many processes as the machine has CPUs, as its
  CLI does), handed the files wisp reads: in a git work tree those git lists (``.gitignore``
  respected), elsewhere every file; binary ones too, which each tool skips its own way. Its
  CLI, ``detect-secrets scan --all-files``, would also read ``.git/`` and ignored files.

MB/s is the files' bytes over the wall time (binary files count; they are most of a venv); the
ratio is wisp's MB/s over detect-secrets'. ``wisp.scan.find`` is timed in process too, over the
text files' characters. Targets (the issue's): recall >= detect-secrets' on every kind both
know, precision >= 0.95, wisp >= 3x detect-secrets' MB/s, redact within 1.2x of scan.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from wisp.scan import find

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "scan" / "corpus"
WISP = Path(sys.executable).with_name("wisp")
BINARY_PROBE = 8192

SECRETS = "secret"
TYPES: dict[str, set[str]] = {
    "AWS Access Key": {"aws-access-key", "aws-secret-key"},
    "Azure Storage Account access key": {"azure-storage-key"},
    "Basic Auth Credentials": {"password-in-url"},
    "GitHub Token": {"github-token"},
    "GitLab Token": {"gitlab-token"},
    "JSON Web Token": {"jwt"},
    "NPM tokens": {"npm-token"},
    "OpenAI Token": {"openai-key"},
    "Private Key": {"private-key"},
    "PyPI Token": {"pypi-token"},
    "SendGrid API Key": {"sendgrid-key"},
    "Slack Token": {"slack-token"},
    "Stripe Access Key": {"stripe-key"},
    "Twilio API Key": {"twilio-key"},
    "Public IP (ipv4)": {"ip-address"},
    "Secret Keyword": {SECRETS},
    "Base64 High Entropy String": {SECRETS},
    "Hex High Entropy String": {SECRETS},
}
"""detect-secrets' types and the wisp kinds each finds; ``secret``: any kind of secret."""
PERSONAL = {"email", "phone", "iban", "card-number", "ip-address"}
KNOWN = {kind for kinds in TYPES.values() for kind in kinds} - {SECRETS}
"""The kinds detect-secrets has a type of its own for."""

DETECT_SECRETS = """
import json, sys
from detect_secrets import SecretsCollection
from detect_secrets.settings import default_settings
files = [name for name in open(sys.argv[1], encoding="utf-8").read().split("\\0") if name]
with default_settings():
    found = SecretsCollection()
    found.scan_files(*files)
print(json.dumps({name: [[s.line_number, s.type] for s in secrets]
                  for name, secrets in found.data.items()}))
"""


# --- The corpus --------------------------------------------------------------------------------


def wisp_corpus_findings(corpus: Path, env: dict[str, str]) -> set[tuple[str, int, str]]:
    done = subprocess.run(
        [str(WISP), "scan", "--json", "."], cwd=corpus, env=env, capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        sys.exit(f"wisp scan failed: {done.stderr}")
    found = set()
    for line in done.stdout.splitlines():
        finding = json.loads(line)
        name = os.path.relpath(finding["file"], ".")
        found.add((name, finding["line"], finding["kind"]))
    return found


def detect_secrets_corpus_findings(corpus: Path, files: list[str]) -> set[tuple[str, int, str]]:
    found = set()
    for name, secrets in run_detect_secrets(files, cwd=corpus)[0].items():
        for line, kind in secrets:
            found.add((os.path.relpath(name, "."), line, kind))
    return found


def score(
    labels: dict[str, list[dict[str, object]]],
    wisp_found: set[tuple[str, int, str]],
    detect_found: set[tuple[str, int, str]],
) -> dict[str, object]:
    """Recall per kind, and precision, of each tool."""
    truth = {
        (name, int(label["line"]), str(label["kind"]))
        for name, found in labels.items()
        for label in found
    }  # type: ignore[call-overload]
    by_line: dict[tuple[str, int], set[str]] = defaultdict(set)
    for name, line, kind in truth:
        by_line[(name, line)].add(kind)

    def detect_kinds(kind_type: str) -> set[str]:
        kinds = TYPES.get(kind_type, set())
        return kinds | ({kind for _, _, kind in truth} - PERSONAL if SECRETS in kinds else set())

    detect_hits = {
        (name, line, kind)
        for name, line, kind_type in detect_found
        for kind in detect_kinds(kind_type)
        if kind in by_line.get((name, line), set())
    }
    recall = {}
    for kind in sorted({kind for _, _, kind in truth}):
        labelled = [item for item in truth if item[2] == kind]
        wisp_recall = sum(item in wisp_found for item in labelled) / len(labelled)
        known = kind in KNOWN or kind not in PERSONAL
        detect_recall = (
            sum(item in detect_hits for item in labelled) / len(labelled) if known else None
        )
        recall[kind] = {
            "labels": len(labelled),
            "wisp": wisp_recall,
            "detect-secrets": detect_recall,
        }
    detect_true = sum(
        any(kind in by_line.get((name, line), set()) for kind in detect_kinds(kind_type))
        for name, line, kind_type in detect_found
    )
    return {
        "recall": recall,
        "precision": {
            "wisp": len(wisp_found & truth) / len(wisp_found) if wisp_found else 0.0,
            "detect-secrets": detect_true / len(detect_found) if detect_found else 0.0,
        },
        "findings": {"wisp": len(wisp_found), "detect-secrets": len(detect_found)},
        "false": {
            "wisp": sorted(wisp_found - truth),
            "detect-secrets": sorted(
                item for item in detect_found
                if not any(kind in by_line.get(item[:2], set()) for kind in detect_kinds(item[2]))
            ),
        },
    }  # fmt: skip


# --- The large tree ----------------------------------------------------------------------------


def tree_files(tree: Path) -> list[Path]:
    """The files wisp reads under ``tree``: those git lists in a work tree, else every one."""
    listed = subprocess.run(
        ["git", "-C", str(tree), "ls-files", "-z", "--others", "--cached", "--exclude-standard"],
        capture_output=True, check=False,
    )  # fmt: skip
    if listed.returncode == 0 and tree.is_dir():
        names = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
        candidates = [tree / name for name in dict.fromkeys(names) if name]
    else:
        candidates = list(_every_file(tree))
    return [path for path in candidates if path.is_file() and not path.is_symlink()]


def _every_file(tree: Path) -> list[Path]:
    found = []
    for root, folders, names in os.walk(tree):
        folders[:] = [name for name in folders if name != ".git"]
        found.extend(Path(root, name) for name in names)
    return found


def texts_of(files: list[Path]) -> list[str]:
    texts = []
    for path in files:
        data = path.read_bytes()
        if b"\0" not in data[:BINARY_PROBE]:
            texts.append(data.decode("utf-8", "surrogateescape"))
    return texts


def run_detect_secrets(files: list[str], cwd: Path) -> tuple[dict[str, list[list]], float]:
    with tempfile.NamedTemporaryFile("w", suffix=".lst", delete=False) as listing:
        listing.write("\0".join(files))
    try:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", DETECT_SECRETS, listing.name],
            cwd=cwd, capture_output=True, text=True, check=False,
        )  # fmt: skip
        seconds = time.perf_counter() - started
    finally:
        os.unlink(listing.name)
    if done.returncode != 0:
        sys.exit(f"detect-secrets failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout), seconds


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if done.returncode not in (0, 1):
        sys.exit(f"{argv[:2]} failed: {done.stderr.decode(errors='replace')[-2000:]}")
    return time.perf_counter() - started


def large_tree(trees: list[Path], rounds: int, env: dict[str, str]) -> dict[str, object]:
    files = [path for tree in trees for path in tree_files(tree)]
    size = sum(path.stat().st_size for path in files)
    texts = texts_of(files)
    characters = sum(map(len, texts))
    started = time.perf_counter()
    findings = sum(len(find(text)) for text in texts)
    in_process = time.perf_counter() - started
    wisp_argv = [str(WISP), "scan", *map(str, trees)]
    redact_argv = [str(WISP), "redact", *map(str, trees)]
    times: dict[str, list[float]] = {"scan": [], "redact": [], "detect-secrets": []}
    detect_found = 0
    for index in range(rounds):
        order = ["scan", "redact", "detect-secrets"] if index == 0 else ["scan", "redact"]
        for name in order[index % 2 :] + order[: index % 2]:
            if name == "detect-secrets":
                found, seconds = run_detect_secrets([str(path) for path in files], cwd=ROOT)
                detect_found = sum(len(secrets) for secrets in found.values())
                times[name].append(seconds)
            else:
                times[name].append(timed(wisp_argv if name == "scan" else redact_argv, env))
        print(f"  round {index + 1}/{rounds} done", file=sys.stderr, flush=True)
    seconds = {name: statistics.median(values) for name, values in times.items()}
    rate = {name: size / 1e6 / value for name, value in seconds.items()}
    return {
        "trees": [str(tree) for tree in trees],
        "files": len(files),
        "text_files": len(texts),
        "megabytes": size / 1e6,
        "text_megabytes": characters / 1e6,
        "seconds": seconds,
        "mb_per_s": rate,
        "ratio": rate["scan"] / rate["detect-secrets"],
        "redact_over_scan": seconds["redact"] / seconds["scan"],
        "findings": {"wisp": findings, "detect-secrets": detect_found},
        "in_process": {"seconds": in_process, "mb_per_s": characters / 1e6 / in_process},
    }


def corpus_part(corpus: Path, env: dict[str, str]) -> dict[str, object]:
    labels = json.loads((corpus / "labels.json").read_text())
    files = [
        str(path.relative_to(corpus)) for path in tree_files(corpus) if path.name != "labels.json"
    ]
    size = sum((corpus / name).stat().st_size for name in files)
    started = time.perf_counter()
    wisp_found = {item for item in wisp_corpus_findings(corpus, env) if item[0] != "labels.json"}
    wisp_seconds = time.perf_counter() - started
    started = time.perf_counter()
    detect_found = detect_secrets_corpus_findings(corpus, files)
    detect_seconds = time.perf_counter() - started
    scored = score(labels, wisp_found, detect_found)
    scored["corpus"] = str(corpus)
    scored["megabytes"] = size / 1e6
    scored["seconds"] = {"wisp": wisp_seconds, "detect-secrets": detect_seconds}
    return scored


# --- Report ------------------------------------------------------------------------------------


def report(corpus: dict, tree: dict) -> None:
    print(f"\nThe corpus: {corpus['corpus']} ({corpus['megabytes'] * 1000:.0f} kB)")
    print("recall (* a kind detect-secrets has a type of its own for)")
    print(f"{'kind':<22} {'labels':>6} {'wisp':>6} {'d-s':>6}")
    for kind, row in corpus["recall"].items():
        theirs = "-" if row["detect-secrets"] is None else f"{row['detect-secrets']:.2f}"
        mark = "*" if kind in KNOWN else " "
        print(f"{kind + mark:<22} {row['labels']:>6} {row['wisp']:>6.2f} {theirs:>6}")
    precision, counts, seconds = corpus["precision"], corpus["findings"], corpus["seconds"]
    for tool in ("wisp", "detect-secrets"):
        rate = corpus["megabytes"] / seconds[tool]
        print(
            f"{tool}: precision {precision[tool]:.2f} ({counts[tool]} findings), "
            f"{seconds[tool]:.2f} s, {rate:.2f} MB/s (startup is most of it)"
        )
    for tool, wrong in corpus["false"].items():
        for item in wrong[:8]:
            print(f"  false for {tool}: {item}")
    print(
        f"\nThe large tree: {', '.join(tree['trees'])}: {tree['files']} files, "
        f"{tree['megabytes']:.0f} MB ({tree['text_files']} text files, "
        f"{tree['text_megabytes']:.0f} M characters)"
    )
    print(f"{'tool':<28} {'seconds':>8} {'MB/s':>8} {'findings':>9}")
    rows = [("wisp scan", "scan"), ("wisp redact", "redact"), ("detect-secrets", "detect-secrets")]
    for label, key in rows:
        found = tree["findings"]["detect-secrets" if key == "detect-secrets" else "wisp"]
        print(f"{label:<28} {tree['seconds'][key]:>8.1f} {tree['mb_per_s'][key]:>8.2f} {found:>9}")
    inside = tree["in_process"]
    in_process = f"{inside['seconds']:>8.1f} {inside['mb_per_s']:>8.2f}"
    print(f"{'wisp.scan.find (in process)':<28} {in_process}  (text only)")
    print(f"\nwisp scan / detect-secrets MB/s: {tree['ratio']:.1f}x (target >= 3)")
    print(f"wisp redact / wisp scan time:   {tree['redact_over_scan']:.2f} (target <= 1.2)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the corpus and this repository")
    parser.add_argument("--tree", action="append", type=Path, help="a large tree (repeatable)")
    parser.add_argument("--corpus", type=Path, help="a labelled corpus (default: the tests')")
    parser.add_argument("--rounds", type=int, help="rounds of wisp (default 3, quick 1)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = parser.parse_args()
    if not WISP.exists() or shutil.which("git") is None:
        sys.exit("needs the wisp console script beside this python, and git")
    venv = [Path(sys.prefix)] if sys.prefix != sys.base_prefix and not args.quick else []
    trees = args.tree or [ROOT, *venv]
    rounds = args.rounds or (1 if args.quick else 3)
    with tempfile.TemporaryDirectory(prefix="wisp-bench-scan-") as temp:
        env = {**os.environ, "WISP_HOME": str(Path(temp) / "home")}
        env.pop("WISP_LOG", None)
        corpus = args.corpus or CORPUS
        if not (corpus / "labels.json").exists():
            sys.exit(f"{corpus}: no labels.json (a labelled corpus: see this script's doc)")
        results = {
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "corpus": corpus_part(corpus.resolve(), env),
            "tree": large_tree([tree.resolve() for tree in trees], rounds, env),
        }
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        report(results["corpus"], results["tree"])  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
