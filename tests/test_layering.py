"""The package's layers: no module imports a higher layer, at module level or inside
functions, and the layer table here is the one in the package docstring.

Layers, bottom up: ``device < ops < tape < arrays < graphs < engine < front``.  The
table maps each top-level module of ``gluonlite`` to its layer; ``*`` is every module
not named (the front ends).  ``gluonlite/__init__.py``, the package face, imports
everything and belongs to no layer.  Self-contained: it reads the source with ``ast``
and imports nothing of the package but its docstring's text.
"""
from __future__ import annotations

import ast
import functools
import os
import re

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PACKAGE = os.path.join(ROOT, "gluonlite")

# the layer table, bottom up: layer -> top-level modules of gluonlite ("*": the rest)
LAYERS = [
    ("device", ("base", "backend", "context", "_malloc", "_blas", "_rng", "name",
                "attribute", "util", "registry", "libinfo")),
    ("ops", ("ops",)),
    ("tape", ("autograd",)),
    ("arrays", ("ndarray",)),
    ("graphs", ("symbol",)),
    ("engine", ("engine",)),
    ("front", ("*",)),
]
RANK = {name: i for i, (name, _) in enumerate(LAYERS)}
_TOP = {mod: name for name, mods in LAYERS for mod in mods if mod != "*"}
_REST = next(name for name, mods in LAYERS if "*" in mods)


def layer_of(module: str) -> str | None:
    """Layer of a dotted module name inside gluonlite; None for the package face."""
    parts = module.split(".")
    if parts[0] != "gluonlite" or len(parts) == 1:
        return None
    return _TOP.get(parts[1], _REST)


def _module_name(path: str) -> str:
    rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
    return rel[: -len(".__init__")] if rel.endswith(".__init__") else rel


def _package_files() -> list:
    files = []
    for folder, _, names in os.walk(PACKAGE):
        files.extend(os.path.join(folder, n) for n in names if n.endswith(".py"))
    return sorted(files)


def _targets(current: str, is_package: bool, node) -> list:
    """Modules an import statement may load (``from . import x`` may name a submodule)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = current.split(".")
    if node.level:
        base = base[: len(base) - node.level + (1 if is_package else 0)]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    return [module] + [f"{module}.{a.name}" for a in node.names]


def _dynamic_target(node) -> str | None:
    """``importlib.import_module("gluonlite.x")`` / ``__import__("gluonlite.x")`` with a
    literal name: an import all the same."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    fn = node.func
    name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
    arg = node.args[0]
    if name in ("import_module", "__import__") and isinstance(arg, ast.Constant) \
            and isinstance(arg.value, str):
        return arg.value
    return None


@functools.lru_cache(maxsize=None)
def scan():
    """``(upward imports, layer edges)`` of the whole package."""
    files = _package_files()
    known = {_module_name(p) for p in files}
    upward, edges = [], {}
    for path in files:
        current = _module_name(path)
        src = layer_of(current)
        is_package = path.endswith("__init__.py")
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):  # every import: module level and inside functions
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets = _targets(current, is_package, node)
            else:
                dyn = _dynamic_target(node)
                if dyn is None:
                    continue
                targets = [dyn]
            for target in targets:
                if target not in known:
                    continue
                dst = layer_of(target)
                if src is None or dst is None or src == dst:
                    continue
                edges.setdefault(src, set()).add(dst)
                if RANK[dst] > RANK[src]:
                    upward.append(f"{os.path.relpath(path, ROOT)}:{node.lineno}: "
                                  f"{src} -> {dst} ({target})")
    return tuple(sorted(set(upward))), edges


def docstring_table() -> list:
    """The layer table of ``gluonlite/__init__.py``'s docstring, as ``LAYERS`` spells it."""
    with open(os.path.join(PACKAGE, "__init__.py"), encoding="utf-8") as f:
        doc = ast.get_docstring(ast.parse(f.read()))
    assert doc, "gluonlite/__init__.py has no docstring"
    rows = re.findall(r"^    (\w+): ([^\n]+)$", doc, flags=re.MULTILINE)
    return [(name, tuple(mods.split())) for name, mods in rows]


def test_readme_shows_the_same_table():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    rows = re.findall(r"^    (\w+): ([^\n]+)$", text, flags=re.MULTILINE)
    assert [(name, tuple(mods.split())) for name, mods in rows] == LAYERS


def test_docstring_table_is_the_tested_one():
    assert docstring_table() == LAYERS, (
        "the layer table in gluonlite/__init__.py's docstring and tests/test_layering.py "
        "differ: change both together")


def test_every_top_level_module_has_a_layer():
    named = {mod for _, mods in LAYERS for mod in mods if mod != "*"}
    present = {os.path.splitext(n)[0] for n in os.listdir(PACKAGE)
               if n.endswith(".py") or os.path.isfile(os.path.join(PACKAGE, n, "__init__.py"))}
    assert named <= present, f"layer table names missing modules: {sorted(named - present)}"


def test_no_import_of_a_higher_layer():
    upward, _ = scan()
    assert not upward, "imports of a higher layer:\n" + "\n".join(upward)


def test_no_cycles_between_layers():
    _, edges = scan()
    cycles = sorted({tuple(sorted((a, b))) for a in edges for b in edges[a]
                     if a in edges.get(b, set())})
    assert not cycles, f"layers that import each other: {cycles}"


@pytest.mark.parametrize("module, layer", [
    ("gluonlite.ops.registry", "ops"), ("gluonlite.autograd", "tape"),
    ("gluonlite.ndarray.invoke", "arrays"), ("gluonlite.symbol.symbol", "graphs"),
    ("gluonlite.engine.cached_op", "engine"), ("gluonlite.executor", "front"),
    ("gluonlite.operator", "front"), ("gluonlite.gluon.block", "front"),
    ("gluonlite.context", "device"), ("gluonlite", None)])
def test_layer_of(module, layer):
    assert layer_of(module) == layer


def test_the_walk_sees_imports_inside_functions():
    """The check is not only of module-level imports."""
    src = "def f():\n    from ..ndarray import zeros\n    return zeros\n"
    tree = ast.parse(src)
    found = [t for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             for t in _targets("gluonlite.ops.example", False, node)]
    assert "gluonlite.ndarray" in found
    assert layer_of("gluonlite.ndarray") == "arrays" and RANK["arrays"] > RANK["ops"]
