"""Every threshold the parser decides with is a named, documented setting, not a bare number in
a comparison: a bare `>= 0.8` is a setting nobody can find, override or justify. This keeps the
count of numeric literals inside comparisons in parsers/ from growing; lower `CEILING` whenever
a change moves literals into a stage's settings model (parsers/*/settings.py).

Counted: every int or float constant anywhere inside a comparison (`a > 0.8 * b` counts 0.8),
except 0 and 1 (emptiness and identity, not tolerances) and list indexes (`parts[2]`)."""

from __future__ import annotations

import ast

from conftest import ROOT

CEILING = 79
NOT_TOLERANCES = (0, 1)


def comparison_literals(source: str) -> list[tuple[int, float]]:
    """(line, value) of each numeric literal counted in `source` (see the module docstring)."""
    found, seen = [], set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        for operand in (node.left, *node.comparators):
            for inner in ast.walk(operand):
                if isinstance(inner, ast.Subscript):
                    seen.update(id(index) for index in ast.walk(inner.slice))
            for inner in ast.walk(operand):
                if id(inner) in seen or not isinstance(inner, ast.Constant):
                    continue
                seen.add(id(inner))
                if type(inner.value) in (int, float) and inner.value not in NOT_TOLERANCES:
                    found.append((inner.lineno, inner.value))
    return found


def test_the_counter_sees_literals_inside_arithmetic_and_skips_indexes_and_identities():
    source = "a > 0.8 * b\nif len(x) == 0 or x[2] < 1: pass\nc <= 12\n"
    assert comparison_literals(source) == [(1, 0.8), (3, 12)]


def test_parser_comparisons_hold_no_more_bare_literals_than_the_ceiling():
    counts = {
        path.relative_to(ROOT).as_posix(): len(comparison_literals(path.read_text()))
        for path in sorted((ROOT / "parsers").rglob("*.py"))
    }
    total = sum(counts.values())
    worst = ", ".join(f"{name} {count}" for name, count in sorted(counts.items(), key=lambda kv: -kv[1])[:5])
    assert total <= CEILING, f"{total} bare numeric literals in parser comparisons (ceiling {CEILING}); most in {worst}"
