"""Keep or drop a change: every measure on development and validation sets, a reference commit
beside this tree, one Markdown table.

    python3 benchmarks/validate.py --against main [--jobs 2] [--out report.md] [--quick] [--vectors]
    python3 /work/main/benchmarks/validate.py --against main --tree /path/to/other/worktree

How: REF is checked out into a temporary `git worktree` (as `same_output.py` does). Each side's
code runs in fresh interpreters whose `PYTHONPATH` is that side's tree; the measuring scripts are
this tree's (the same ruler for both sides). Per side, each PDF set is ingested ONCE
(`ingest run --workers JOBS`) and the database serves the chunk-shape, table-header and retrieval
measures (`validate_measures.py`); the parser measures run their own scripts
(`icdar2013.py`, `structure_score.py`, `text_fidelity.py`). A clean side (REF always, this tree
when `git status` is clean) is cached under CACHE_DIR by commit and measuring-code hash, so a
second comparison against the same REF only measures this tree (`--no-cache` turns it off).

Sets (DEV: look at them to find what is wrong; VAL: only measure, never read to invent a rule):
- DEV: `fixtures/` (golden.jsonl), the dev half of `../shared/corpus`, `financebench-dev`,
  `icdar2013-eu` (ICDAR script only), `docling-gt` (structure and header truths).
- VAL: `financebench-val`, the validation half of `../shared/corpus`.
- The corpus split is fixed: its PDF file names sorted, even positions (0, 2, 4, ...) are dev,
  odd positions validation. Dev: 150109DSP-Milw-505-90D, DA-619p, code_and_formula,
  embedded-images-tables, la-precinct-bulletin-2014-p1, normal_4pages, pr-136-example,
  scotus-transcript-p1, word365_structure; validation: the other 8. `golden_corpus.jsonl` is
  split by its `doc` into the same halves.
- `--quick`: fixtures, both corpus halves and the first 2 filings (sorted names) of each
  FinanceBench folder (their questions only), no ICDAR; for a helper's loop, not for a decision.

Rows (measure x set; `^` higher is better, `v` lower is better); a worse VAL figure is marked
`WORSE (val)`, a worse DEV figure `worse`. Figures a side's code cannot produce (a strategy or
retriever it does not have yet) print `n/a`. See docs/evaluation.md for each row's meaning.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks"
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
FINANCEBENCH = {"dev": SHARED / "bench" / "financebench-dev", "val": SHARED / "bench" / "financebench-val"}
CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ingest-validate"
#: Filings of each FinanceBench folder kept by --quick (sorted by file name).
QUICK_FILINGS = 2
#: The measuring code: a change here invalidates the cached figures of a side.
MEASURING_FILES = (
    "benchmarks/validate.py",
    "benchmarks/validate_measures.py",
    "benchmarks/validate_peers.py",
    "ingest/evaluation/plain.py",  # the peers, the same on both sides
    "ingest/chunking/blind.py",
    "benchmarks/financebench.py",
    "benchmarks/icdar2013.py",
    "benchmarks/icdar2013_scoring.py",
    "benchmarks/structure_score.py",
    "benchmarks/text_fidelity.py",
    "benchmarks/text_fidelity_match.py",
    "benchmarks/text_fidelity_words.py",
    "benchmarks/text_layer_glyphs.py",
)
STRATEGIES = ("structure", "naive", "langchain", "fixed", "recursive")
RETRIEVERS = ("bm25", "plain")
VECTOR_RETRIEVERS = ("vector", "hybrid")


@dataclass
class PdfSet:
    """One set of PDFs ingested into one database per side."""

    name: str
    split: str  # "dev" or "val"
    pdfs: list[Path]
    golden: Path | None = None
    truths: str | None = None  # "fixtures" / "docling-gt": header truths of validate_measures
    ingest_options: list[str] = field(default_factory=list)


def corpus_halves() -> tuple[list[Path], list[Path]]:
    """The fixed corpus split: sorted file names, even positions dev, odd positions validation."""
    pdfs = sorted(CORPUS.glob("*.pdf"), key=lambda path: path.name)
    return pdfs[0::2], pdfs[1::2]


def golden_for(pdfs: list[Path], source: Path, into: Path) -> Path | None:
    """The lines of `source` whose `doc` is one of `pdfs`, written to `into`; None when none is."""
    names = {pdf.name for pdf in pdfs} | {pdf.stem for pdf in pdfs}
    lines = [line for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    kept = [line for line in lines if json.loads(line).get("doc") in names]
    if not kept:
        return None
    into.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return into


def financebench_golden(folder: Path, pdfs: list[Path], into: Path) -> Path | None:
    """FinanceBench questions of `folder` in `ingest eval`'s golden format (benchmarks/financebench.py),
    kept to the filings of `pdfs`."""
    converted = into.with_suffix(".all.jsonl")
    command = [sys.executable, str(BENCH / "financebench.py"), str(folder), "-o", str(converted)]
    subprocess.run(command, check=True, capture_output=True, text=True)
    return golden_for(pdfs, converted, into)


def pdf_sets(quick: bool, work: Path) -> list[PdfSet]:
    dev, val = corpus_halves()
    golden_corpus = BENCH / "golden_corpus.jsonl"
    sets = [
        PdfSet(
            "fixtures",
            "dev",
            sorted((REPO / "fixtures").glob("*.pdf")),
            REPO / "fixtures" / "golden.jsonl",
            "fixtures",
            ["--ocr-lang", "eng+hin+mar"],
        ),
        PdfSet("corpus-dev", "dev", dev, golden_for(dev, golden_corpus, work / "corpus-dev.golden.jsonl")),
        PdfSet("corpus-val", "val", val, golden_for(val, golden_corpus, work / "corpus-val.golden.jsonl")),
        PdfSet("docling-gt", "dev", sorted((SHARED / "bench" / "docling-gt").glob("*.pdf")), truths="docling-gt"),
    ]
    for split, folder in FINANCEBENCH.items():
        pdfs = sorted(folder.glob("*.pdf"), key=lambda path: path.name)
        if quick:
            pdfs = pdfs[:QUICK_FILINGS]
        golden = financebench_golden(folder, pdfs, work / f"financebench-{split}.golden.jsonl")
        sets.append(PdfSet(f"financebench-{split}", split, pdfs, golden))
    return sets


# --- one side ----------------------------------------------------------------------------------


@dataclass
class Side:
    label: str  # "reference" / "this tree"
    code: Path
    out: Path  # where its databases and JSON figures go
    cached: bool = False  # `out` already holds a complete earlier measurement
    failed: list[str] = field(default_factory=list)  # commands that exited with an error
    dbs: Path | None = None  # where its databases go: per commit when cached (ingest depends on the code only)
    lock: object = None  # the open lock file of a cache folder this run writes


def run(side: Side, command: list[str], log: Path) -> bool:
    """`command` with the side's code first on the path; its output kept in `log`; True if it succeeded."""
    env = dict(os.environ, PYTHONPATH=str(side.code))
    started = time.perf_counter()
    with log.open("w") as handle:
        done = subprocess.run(command, cwd=side.code, env=env, stdout=handle, stderr=subprocess.STDOUT)
    print(f"  [{side.label}] {log.stem}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    if done.returncode:
        print(f"  [{side.label}] {log.stem} exited {done.returncode}; see {log}", file=sys.stderr)
        side.failed.append(log.stem)
    return not done.returncode


def database(side: Side, pdf_set: PdfSet) -> Path:
    """The side's database of `pdf_set`, named by the set and its files (quick and full differ)."""
    files = hashlib.sha256("\n".join(map(str, pdf_set.pdfs)).encode()).hexdigest()[:8]
    return side.dbs / f"{pdf_set.name}-{files}.db"


def ingest_commands(side: Side, sets: list[PdfSet], jobs: int) -> list[tuple[list[str], Path]]:
    """`ingest run` of each set whose database is not already there from an earlier run of this commit."""
    commands = []
    for pdf_set in sets:
        db = database(side, pdf_set)
        if db.with_suffix(".ok").exists():
            continue
        db.unlink(missing_ok=True)
        cli = [sys.executable, "-c", "from ingest.cli import app; app()", "run"]
        cli += [*map(str, pdf_set.pdfs), "--db", str(db), "--workers", str(jobs), "--quiet", *pdf_set.ingest_options]
        commands.append((cli, side.out / f"ingest-{pdf_set.name}.log"))
    return commands


def measure_commands(side: Side, sets: list[PdfSet], args: argparse.Namespace) -> list[tuple[list[str], Path]]:
    """Every measuring command of one side after its ingests (independent: run `--jobs` at once)."""
    py, out = sys.executable, side.out
    commands = []
    retrievers = list(RETRIEVERS) + (list(VECTOR_RETRIEVERS) if args.vectors else [])
    for pdf_set in sets:
        command = [py, str(BENCH / "validate_measures.py"), "--db", str(database(side, pdf_set))]
        command += ["--out", str(out / f"db-{pdf_set.name}.json"), "--strategies", ",".join(STRATEGIES)]
        command += ["--retrievers", ",".join(retrievers), "--vector-cache", str(CACHE_DIR / "vectors.sqlite")]
        if pdf_set.golden:
            command += ["--golden", str(pdf_set.golden)]
        if pdf_set.truths:
            command += ["--truths", pdf_set.truths]
        commands.append((command, out / f"db-{pdf_set.name}.log"))
        fidelity = [
            py,
            str(BENCH / "text_fidelity.py"),
            *map(str, pdf_set.pdfs),
            "--max-pages",
            str(args.fidelity_pages),
        ]
        fidelity += ["--json"]
        commands.append(([*fidelity, str(out / f"fidelity-{pdf_set.name}.json")], out / f"fidelity-{pdf_set.name}.log"))
    structure = [py, str(BENCH / "structure_score.py"), "--systems", "project", "--json", str(out / "structure.json")]
    commands.append((structure, out / "structure.log"))
    if not args.quick:
        icdar = [py, str(BENCH / "icdar2013.py"), "--systems", "project", "--json", str(out / "icdar.json")]
        commands.append((icdar, out / "icdar.log"))
    return commands


# --- figures -----------------------------------------------------------------------------------


def read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def ratio(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def side_figures(out: Path, sets: list[PdfSet], quick: bool) -> dict[tuple[str, str], object]:
    """(measure, set) -> figure (a number, or a string saying why there is none)."""
    figures: dict[tuple[str, str], object] = {}
    icdar = read_json(out / "icdar.json")
    if not quick:
        project = (icdar or {}).get("project") or {}
        figures[("table detection F1 ^", "icdar2013-eu")] = (project.get("detection") or {}).get("f1", "no result")
        figures[("table adjacency F1 ^", "icdar2013-eu")] = (project.get("structure") or {}).get("f1", "no result")
    structure = ((read_json(out / "structure.json") or {}).get("project") or {}).get("documents") or []
    for group in ("fixtures", "docling-gt"):
        docs = [doc for doc in structure if doc.get("group") == group]
        matched = sum(doc["matched_headings"] for doc in docs)
        figures[("heading recall ^", group)] = ratio(matched, sum(doc["gt_headings"] for doc in docs))
        figures[("heading precision ^", group)] = ratio(matched, sum(doc["pred_headings"] for doc in docs))
        found, truth = sum(doc["found_tables"] for doc in docs), sum(doc["gt_tables"] for doc in docs)
        figures[("tables found / truth ^", group)] = ratio(found, truth)
    for pdf_set in sets:
        name = pdf_set.name
        fidelity = (read_json(out / f"fidelity-{name}.json") or {}).get("files") or []
        words = sum(row["words"] for row in fidelity)
        figures[("text: unaccounted words per 10k v", name)] = (
            round(10_000 * sum(row["unaccounted"] for row in fidelity) / words, 2) if words else "no result"
        )
        figures[("text: glued function words v", name)] = sum(row["glued_fn"] for row in fidelity) if fidelity else None
        measured = read_json(out / f"db-{name}.json") or {}
        chunks = measured.get("chunks") or {}
        figures[("chunks: heading-only children v", name)] = chunks.get("heading_only", "no result")
        figures[("chunks: share of children < 30 tokens v", name)] = chunks.get("short_share", "no result")
        if "headers" in measured:
            headers = measured["headers"]
            figures[("table header rows recognised ^", name)] = ratio(headers["recognised"], headers["tables"])
        for retriever, by_strategy in (measured.get("retrieval") or {}).items():
            for strategy in STRATEGIES:
                value = by_strategy.get(strategy, "not run")
                for score in ("hit@4", "budget@1200"):
                    key = (f"{score} {retriever} {strategy} ^", name)
                    figures[key] = value.get(score) if isinstance(value, dict) else str(value)
    return figures


def is_higher_better(measure: str) -> bool:
    return measure.endswith("^")


def cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return "n/a"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def split_of(set_name: str, sets: list[PdfSet]) -> str:
    for pdf_set in sets:
        if pdf_set.name == set_name:
            return pdf_set.split
    return "dev"  # icdar2013-eu, fixtures and docling-gt structure truths: development sets


def figures_to_table(before: dict, after: dict, sets: list[PdfSet]) -> str:
    """Markdown: one row per measure x set, reference / this tree / delta and a flag."""
    lines = ["| measure | set | split | reference | this tree | delta | flag |", "|---|---|---|---|---|---|---|"]
    for key in list(dict.fromkeys([*before, *after])):
        measure, set_name = key
        old, new = before.get(key), after.get(key)
        split = split_of(set_name, sets)
        delta, flag = "", ""
        if isinstance(old, (int, float)) and isinstance(new, (int, float)):
            change = new - old
            delta = f"{change:+.4g}" if change else "0"
            worse = change < 0 if is_higher_better(measure) else change > 0
            if worse:
                flag = "**WORSE (val)**" if split == "val" else "worse"
            elif change:
                flag = "better"
        lines.append(f"| {measure} | {set_name} | {split} | {cell(old)} | {cell(new)} | {delta} | {flag} |")
    return "\n".join(lines)


def reasons(figures: dict) -> list[str]:
    """The distinct explanations behind `n/a` cells."""
    return sorted({value for value in figures.values() if isinstance(value, str)})


# --- orchestration -----------------------------------------------------------------------------


def tree_state(code: Path) -> tuple[str, bool]:
    """(HEAD commit, whether the tree has no uncommitted change)."""
    head = subprocess.run(["git", "-C", str(code), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    status = subprocess.run(
        ["git", "-C", str(code), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    )
    return head, not status.stdout.strip()


def cache_key(commit: str, args: argparse.Namespace) -> str:
    digest = hashlib.sha256()
    for name in MEASURING_FILES:
        path = REPO / name
        digest.update(path.read_bytes() if path.exists() else b"")
    digest.update(f"quick={args.quick} vectors={args.vectors} fidelity={args.fidelity_pages}".encode())
    return f"{commit[:12]}-{digest.hexdigest()[:10]}"


def prepare(side: Side, commit: str | None, args: argparse.Namespace) -> Side:
    """Point the side's output at its cache folder when it can be cached; mark it done if complete."""
    side.dbs = side.out
    if commit and not args.no_cache:
        side.dbs = CACHE_DIR / f"db-{commit[:12]}"
        side.dbs.mkdir(parents=True, exist_ok=True)
        folder = CACHE_DIR / cache_key(commit, args)
        folder.mkdir(parents=True, exist_ok=True)
        side.cached = (folder / "complete").exists()
        side.lock = (folder / "lock").open("w")
        try:  # another run measuring the same commit now: measure privately instead of sharing files
            fcntl.flock(side.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            side.out = folder
        except OSError:
            side.cached = False
            side.out.mkdir(parents=True, exist_ok=True)
    else:
        side.out.mkdir(parents=True, exist_ok=True)
    return side


def measure(sides: list[Side], sets: list[PdfSet], args: argparse.Namespace) -> None:
    """Ingest per side (one set after the other, `--workers JOBS`), then every measuring command of
    both sides, `--jobs` at a time."""
    pending = list({side.out: side for side in sides if not side.cached}.values())  # one side if both share a cache
    for side in pending:  # no figure of an earlier run may stand in for a command that fails now
        for stale in [*side.out.glob("*.json"), side.out / "complete"]:
            stale.unlink(missing_ok=True)
    for side in pending:
        for command, log in ingest_commands(side, sets, args.jobs):
            if run(side, command, log) and side.dbs != side.out:
                Path(command[command.index("--db") + 1]).with_suffix(".ok").touch()
    tasks = [(side, command, log) for side in pending for command, log in measure_commands(side, sets, args)]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(lambda task: run(*task), tasks))
    for side in pending:
        if side.out.is_relative_to(CACHE_DIR) and not side.failed:
            (side.out / "complete").write_text(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="git revision to compare this tree with (e.g. main)")
    parser.add_argument(
        "--tree",
        type=Path,
        default=REPO,
        help="the tree to measure (default: this script's own); its measuring scripts are always this script's",
    )
    parser.add_argument("--jobs", type=int, default=2, help="commands at once, and ingest --workers (default 2)")
    parser.add_argument("--out", type=Path, default=None, help="also write the Markdown report here")
    parser.add_argument("--quick", action="store_true", help="fixtures, corpus and 2 filings per FinanceBench set")
    parser.add_argument("--vectors", action="store_true", help="also the vector and hybrid retrievers (slow)")
    parser.add_argument(
        "--fidelity-pages",
        type=int,
        default=0,
        help="text fidelity on the first N pages of each PDF only (0 = all; the filings' text rows cost most)",
    )
    parser.add_argument("--no-cache", action="store_true", help=f"measure both sides afresh (cache: {CACHE_DIR})")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so `finally` removes the reference worktree
    started = time.perf_counter()
    reference = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{args.against}^{{commit}}"], capture_output=True, text=True
    )
    if reference.returncode:
        raise SystemExit(f"validate: unknown revision {args.against!r}")
    ref_commit = reference.stdout.strip()
    tree = args.tree.resolve()
    head, clean = tree_state(tree)
    with tempfile.TemporaryDirectory(prefix="validate-") as tmp:
        work = Path(tmp)
        sets = pdf_sets(args.quick, work)
        before = prepare(Side("reference", work / "ref-code", work / "ref"), ref_commit, args)
        scratch = CACHE_DIR / f"tree-{hashlib.sha256(str(tree).encode()).hexdigest()[:10]}"  # logs kept
        after = prepare(Side("this tree", tree, scratch), head if clean else None, args)
        if not before.cached:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(before.code), ref_commit], check=True
            )
        try:
            measure([before, after], sets, args)
        finally:
            if not before.cached:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(before.code)], check=False)
        old, new = side_figures(before.out, sets, args.quick), side_figures(after.out, sets, args.quick)
    minutes = (time.perf_counter() - started) / 60
    state = f"{head[:10]}" + ("" if clean else " + uncommitted changes") + ("" if tree == REPO else f", {tree}")
    lines = [
        f"# validate: {args.against} ({ref_commit[:10]}) vs this tree ({state})",
        "",
        f"{'quick' if args.quick else 'full'} run, {minutes:.1f} min wall, --jobs {args.jobs}"
        + (f", text fidelity on the first {args.fidelity_pages} pages of each PDF" if args.fidelity_pages else "")
        + (", reference from cache" if before.cached else "")
        + (", this tree from cache" if after.cached else ""),
        "",
        figures_to_table(old, new, sets),
    ]
    notes = reasons(old) + reasons(new)
    failed = [f"{side.label}: {name}" for side in (before, after) for name in side.failed]
    if failed:
        notes.append(
            "commands that failed (their figures are missing; logs kept in the cache folder): " + ", ".join(failed)
        )
    if notes:
        lines += ["", "n/a:", *[f"- {note}" for note in dict.fromkeys(notes)]]
    report = "\n".join(lines) + "\n"
    sys.stdout.write(report)
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
