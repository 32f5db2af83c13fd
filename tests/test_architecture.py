"""The house keeps its shape: every import points down the stack, no module imports itself
back through another, and the chunker imports without any PDF library or database.

The layers, bottom to top (docs/architecture.md draws them); a module may import its own
layer and the layers below, never a layer above, and function-level (lazy) imports count:

1. contracts: `ingest.contracts` (element and chunk models, errors, settings base, helpers)
2. parsers: `parsers`
3. chunker: `ingest.chunker`, `ingest.chunking`, `ingest.tokens`
4. storage: `storage`
5. pipeline: `ingest.pipeline`, `ingest.evaluation`, `ingest.views`, `ingest.integrations`, `ingest.api`
6. CLI: `ingest.cli`
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ingest", "parsers", "storage")

#: Module-name prefixes -> layer number; the longest matching prefix decides.
LAYERS = {
    "ingest": 1,  # the package itself holds only a docstring
    "ingest.contracts": 1,
    "parsers": 2,
    "ingest.chunker": 3,
    "ingest.chunking": 3,
    "ingest.tokens": 3,
    "storage": 4,
    "ingest.pipeline": 5,
    "ingest.evaluation": 5,
    "ingest.views": 5,
    "ingest.integrations": 5,
    "ingest.api": 5,
    "ingest.cli": 6,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    matches = [prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")]
    assert matches, f"{module} belongs to no layer: add it to LAYERS and to docs/architecture.md"
    return LAYERS[max(matches, key=len)]


def our_modules() -> dict[str, Path]:
    modules = {module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")}
    assert len(modules) > 50, "the walk found too few modules: is ROOT right?"
    return modules


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """Our modules that `path` imports anywhere in its body (lazy imports included). `from a.b
    import c` counts as importing `a.b.c` when that is a module, else `a.b`."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [
                f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in known else node.module
                for alias in node.names
            ]
        else:
            continue
        found.update(name for name in names if name.split(".")[0] in PACKAGES)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = our_modules()
    return {name: imported_modules(path, set(modules)) - {name} for name, path in modules.items()}


def test_every_import_points_down_the_stack():
    upward = [
        f"{module} (layer {layer_of(module)}) imports {target} (layer {layer_of(target)})"
        for module, targets in import_graph().items()
        for target in sorted(targets)
        if layer_of(target) > layer_of(module)
    ]
    assert upward == []


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_module_imports_itself_back_through_others():
    assert find_cycle(import_graph()) is None


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return set(done.stdout.split())


HEAVY = ("pypdfium2", "pdfplumber", "pdfminer", "sqlalchemy", "pytesseract", "PIL", "storage", "parsers")


def test_the_chunker_imports_without_pdf_libraries_or_the_database():
    loaded = loaded_after("import ingest.chunker, ingest.chunking.checks")
    assert "ingest.chunker" in loaded
    assert sorted(name for name in loaded if name.split(".")[0] in HEAVY) == []


def test_the_contracts_and_the_parse_settings_load_no_pdf_library():
    loaded = loaded_after("import ingest.contracts, ingest.contracts.errors, parsers.settings")
    assert "parsers.settings" in loaded
    assert sorted(name for name in loaded if name.split(".")[0] in ("pypdfium2", "pdfplumber", "sqlalchemy")) == []


def test_the_set_up_checks_load_neither_the_ocr_code_nor_the_language_model():
    """A run's main process checks Tesseract (one `--list-langs` subprocess) and the language codes
    (a constant) and unpickles workers' results without the parser, chunker or tokenizer:
    pytesseract would bring pandas (~1.5 s of CPU), the language model ~0.8 s."""
    loaded = loaded_after(
        "from ingest.pipeline.batch import check_setup; from ingest.pipeline.settings import PipelineSettings; "
        "check_setup(PipelineSettings(parse={'ocr': {'mode': 'never'}})); "
        "check_setup(PipelineSettings(enrich={'languages': ['en', 'hi']})); "
        "from ingest.pipeline.enrich import _identifier; assert _identifier.cache_info().currsize == 0"
    )
    assert "ingest.pipeline.batch" in loaded and "ingest.pipeline.processed" in loaded
    heavy = ("pytesseract", "pandas", "py3langid", "tiktoken", "parsers.pdf", "ingest.chunker", "parsers.ocr.tesseract")
    assert sorted(name for name in loaded if name in heavy or name.split(".")[0] in heavy) == []
