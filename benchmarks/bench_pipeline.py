"""Whole-pipeline speed: CPU of whole process trees, one or more versions of the code side by side.

    python benchmarks/bench_pipeline.py [--code DIR ...] [--small 200] [--repeat 3]
                                        [--marginal] [--speedup] [--rss]

Every figure is CPU seconds (user + system) of a command and every process it waited for,
from `getrusage(RUSAGE_CHILDREN)` before and after (`startup.run_measured`), median of `--repeat` runs; the machine
is shared, so compare figures measured in the same run, not across runs. `--code DIR` runs
`ingest` with `PYTHONPATH=DIR` (e.g. an exported older revision as well as this tree), the
versions interleaved run by run. Measured:

- `--small N`: N small PDFs (copies of fixtures/two_column.pdf, each with a different comment
  appended, so every file has its own hash), `ingest run` with the default worker pool: the
  first run into a new database, then the unchanged re-run;
- start-up: one small PDF end to end (the same as `benchmarks/startup.py`);
- `--marginal`: ms of CPU per page on DA-619p: (CPU of the whole file - CPU of its first page
  alone) / (pages - 1), for `ingest run --workers 0`, for the pdfium anchor (pypdfium2: every
  character with its box) and for pdfplumber (`extract_words()` + `find_tables()`);
- `--speedup`: wall seconds of `ingest run` on ../shared/corpus's 17 PDFs with 1 and 2 workers,
  back to back, `--repeat` rounds; the median of each round's ratio (only meaningful on an idle
  machine);
- `--rss`: peak resident MB of every process of `ingest run` on DA-619p (2 workers), sampled
  from /proc every 0.1 s (VmHWM).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import ingest, run_measured  # noqa: E402 - a sibling script, not a package

ROOT = Path(__file__).resolve().parent.parent
SMALL_PDF = ROOT / "fixtures" / "two_column.pdf"
CORPUS = ROOT.parent / "shared" / "corpus"
BIG_PDF = CORPUS / "DA-619p.pdf"

PDFIUM_CHARS = """
import sys, pypdfium2 as pdfium
document = pdfium.PdfDocument(sys.argv[1])
for index in range(len(document)):
    page = document[index]
    text = page.get_textpage()
    text.get_text_range()
    for char in range(text.count_chars()):
        text.get_charbox(char)
    text.close(); page.close()
"""

PDFPLUMBER_WORDS_TABLES = """
import sys, pdfplumber
with pdfplumber.open(sys.argv[1]) as pdf:
    for page in pdf.pages:
        page.extract_words(); page.find_tables(); page.close()
"""


def cpu_of(command: list[str], code: Path | None = None) -> tuple[float, float]:
    """(CPU seconds of the whole process tree, forkserver and workers included; wall seconds).
    `code`: the tree on PYTHONPATH (`ingest` makes the command use it)."""
    wall, cpu = run_measured(command, dict(os.environ, PYTHONPATH=str(code)) if code else None)
    return cpu, wall


def small_copies(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = SMALL_PDF.read_bytes()
    for i in range(count):
        (folder / f"small{i:05d}.pdf").write_bytes(data + f"%copy {i}\n".encode())
    return folder


def first_page_of(pdf: Path, out: Path) -> Path:
    import pypdfium2 as pdfium

    source, target = pdfium.PdfDocument(pdf), pdfium.PdfDocument.new()
    target.import_pages(source, [0])
    target.save(out)
    return out


def median(values: list[float]) -> float:
    return statistics.median(values)


def bench_small(codes: list[Path], count: int, repeat: int, tmp: Path) -> None:
    folder = small_copies(tmp / "small", count)
    rows: dict[Path, dict[str, list[float]]] = {code: {"first": [], "again": [], "one": []} for code in codes}
    for i in range(repeat):
        for code in codes:
            db = tmp / f"small-{i}-{codes.index(code)}.db"
            rows[code]["first"].append(cpu_of(ingest("run", str(folder), "--db", str(db), "--quiet"), code)[0])
            rows[code]["again"].append(cpu_of(ingest("run", str(folder), "--db", str(db), "--quiet"), code)[0])
            one = tmp / f"one-{i}-{codes.index(code)}.db"
            rows[code]["one"].append(cpu_of(ingest("run", str(SMALL_PDF), "--db", str(one), "--quiet"), code)[0])
    print(f"\n| code | {count} small PDFs, first run CPU s | unchanged re-run CPU s | one small PDF CPU s |")
    print("|---|--:|--:|--:|")
    for code, row in rows.items():
        print(f"| {code} | {median(row['first']):.1f} | {median(row['again']):.1f} | {median(row['one']):.2f} |")


def bench_marginal(codes: list[Path], repeat: int, tmp: Path) -> None:
    one_page = first_page_of(BIG_PDF, tmp / "first_page.pdf")
    pages = 619
    tools: dict[str, tuple[list[str], Path | None]] = {}
    for code in codes:
        tools[f"ingest run --workers 0 ({code})"] = (["run", "--workers", "0", "--quiet"], code)
    tools["pdfium anchor (chars with boxes)"] = (["-c", PDFIUM_CHARS], None)
    tools["pdfplumber words + tables"] = (["-c", PDFPLUMBER_WORDS_TABLES], None)
    results: dict[str, list[float]] = {name: [] for name in tools}
    for i in range(repeat):
        for name, (arguments, code) in tools.items():
            spent = []
            for pdf in (BIG_PDF, one_page):
                if code:
                    db = tmp / f"m-{i}-{codes.index(code)}-{pdf.stem}.db"  # a new database each run
                    command = ingest(arguments[0], str(pdf), "--db", str(db))
                    command += arguments[1:]
                else:
                    command = [sys.executable, *arguments, str(pdf)]
                spent.append(cpu_of(command, code)[0])
            results[name].append(1000 * (spent[0] - spent[1]) / (pages - 1))
    print("\n| DA-619p.pdf | marginal CPU ms/page |")
    print("|---|--:|")
    for name, values in results.items():
        print(f"| {name} | {median(values):.1f} |")


def bench_speedup(codes: list[Path], repeat: int, tmp: Path) -> None:
    """The corpus's 17 PDFs (713 pages; not `broken/`, whose failures make `ingest run` exit 1).

    Each round runs every version with 1 worker and then 2, back to back, versions interleaved;
    the speed-up is the median over rounds of each round's own ratio. On this shared machine one
    command's CPU has varied by 40% between minutes (18.5 vs 26.3 s for the same code), so a
    ratio of two runs minutes apart says little; two runs side by side say more."""
    pdfs = [str(pdf) for pdf in sorted(CORPUS.glob("*.pdf"))]
    runs: dict[Path, list[tuple[tuple[float, float], tuple[float, float]]]] = {code: [] for code in codes}
    for round_ in range(repeat):
        for code in codes:
            one, two = (
                cpu_of(
                    ingest("run", *pdfs, "--db", str(tmp / f"w{n}-{codes.index(code)}-{round_}.db"), "--workers", n),
                    code,
                )
                for n in ("1", "2")
            )
            runs[code].append((one, two))
    print(
        "\n| code | corpus, 1 worker: wall s / CPU s | 2 workers: wall s / CPU s "
        f"| speed-up (wall), median of {repeat} | each round |"
    )
    print("|---|--:|--:|--:|---|")
    for code, pairs in runs.items():
        ratios = [one[1] / two[1] for one, two in pairs]
        one = [median([pair[0][i] for pair in pairs]) for i in (1, 0)]
        two = [median([pair[1][i] for pair in pairs]) for i in (1, 0)]
        print(
            f"| {code} | {one[0]:.1f} / {one[1]:.1f} | {two[0]:.1f} / {two[1]:.1f} | {median(ratios):.2f}x "
            f"| {', '.join(f'{ratio:.2f}' for ratio in ratios)} |"
        )


def _tree(pid: int) -> list[tuple[int, int]]:
    """(pid, depth) of `pid` and every process below it."""
    found, todo = [], [(pid, 0)]
    while todo:
        current, depth = todo.pop()
        found.append((current, depth))
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        todo.extend((int(child), depth + 1) for child in children)
    return found


def peak_rss(process: subprocess.Popen) -> dict[int, tuple[str, int]]:
    """pid -> (command line, peak resident KiB) of every process under `process` until it ends."""
    peaks: dict[int, tuple[str, int]] = {}
    while process.poll() is None:
        for pid, depth in _tree(process.pid):
            try:
                status = Path(f"/proc/{pid}/status").read_text()
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
                cmdline = role(cmdline, depth)
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmHWM:") and int(line.split()[1]) > peaks.get(pid, ("", 0))[1]:
                    peaks[pid] = (cmdline, int(line.split()[1]))
        time.sleep(0.1)
    return peaks


def role(cmdline: str, depth: int) -> str:
    """main (the `ingest` process), forkserver, resource tracker, or worker (forked by the forkserver)."""
    if depth == 0:
        return "main"
    if "resource_tracker" in cmdline:
        return "resource tracker"
    return "forkserver" if depth == 1 else "worker"


def bench_rss(codes: list[Path], tmp: Path) -> None:
    print("\n| code | peak RSS MB per process, `ingest run` DA-619p, 2 workers |")
    print("|---|---|")
    for code in codes:
        env = dict(os.environ, PYTHONPATH=str(code))
        command = ingest("run", str(BIG_PDF), "--db", str(tmp / f"rss-{codes.index(code)}.db"), "--workers", "2")
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        peaks = sorted(peak_rss(process).values(), key=lambda item: -item[1])
        print(f"| {code} | {', '.join(f'{kb // 1024} ({name})' for name, kb in peaks)} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, action="append", help="a source tree to run (default: this one)")
    parser.add_argument("--small", type=int, default=200, help="how many small PDFs (0: skip)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--marginal", action="store_true")
    parser.add_argument("--speedup", action="store_true")
    parser.add_argument("--rss", action="store_true")
    args = parser.parse_args(argv)
    codes = [code.resolve() for code in args.code or [ROOT]]
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as name:
        tmp = Path(name)
        if args.small:
            bench_small(codes, args.small, args.repeat, tmp)
        if args.marginal:
            bench_marginal(codes, args.repeat, tmp)
        if args.speedup:
            bench_speedup(codes, args.repeat, tmp)
        if args.rss:
            bench_rss(codes, tmp)
    print(f"\nload average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
