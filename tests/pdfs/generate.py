"""Write every case PDF in this folder (or the named ones) with its ground truth beside it.

    python tests/pdfs/generate.py            # every make_<case>.py here
    python tests/pdfs/generate.py CASE ...   # only these cases

Each `make_<case>.py` defines `build() -> tuple[bytes, dict]` (README.md in this folder).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def case_modules(names: list[str] | None = None) -> dict[str, Path]:
    """Case name -> its `make_<case>.py`, all of them or the named ones (an unknown name is an error)."""
    found = {path.stem.removeprefix("make_"): path for path in sorted(HERE.glob("make_*.py"))}
    if not names:
        return found
    unknown = sorted(set(names) - set(found))
    if unknown:
        raise SystemExit(f"generate.py: no make_<case>.py for {', '.join(unknown)} in {HERE}")
    return {name: found[name] for name in names}


def build_case(name: str, path: Path, out_dir: Path = HERE) -> Path:
    """Run `path`'s `build()` and write `<name>.pdf` and `<name>.truth.json` into `out_dir`."""
    spec = importlib.util.spec_from_file_location(f"make_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pdf_bytes, truth = module.build()
    target = out_dir / f"{name}.pdf"
    target.write_bytes(pdf_bytes)
    (out_dir / f"{name}.truth.json").write_text(json.dumps(truth, indent=2, ensure_ascii=False) + "\n")
    return target


def main(argv: list[str] | None = None) -> int:
    for name, path in case_modules(argv if argv is not None else sys.argv[1:]).items():
        print(build_case(name, path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
