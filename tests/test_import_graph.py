"""The project's import graph, read from the source with ``ast``: imports point down, the
project has no cycle (imports under ``if TYPE_CHECKING:`` counted), and no import hides
inside a function (where it would hide a cycle).

Run as a script to print the graph of ``packing/`` and who imports what from it:
``python -m tests.test_import_graph``.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import packing

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("packing", "data_loaders", "throughput", "figures", "pages")
#: Optional heavy dependencies the engine imports only when a feature needs them.
OPTIONAL_IMPORTS = {"pyarrow", "pyarrow.parquet"}
#: The only names outside code may import from the engine: its public surfaces (the API, the
#: batching simulator, file reading and writing, the checks of a file's fields for the
#: sections above the engine, the values in words, and the arguments the command lines share,
#: e.g. the sweep's, which ``python -m data_loaders sweep`` reuses to run a sweep on a Dask
#: cluster).
PUBLIC_ENGINE = {"packing", "packing.batching", "packing.io", "packing.fields", "packing.words", "packing.cli_args"}
#: Everything ``packing`` exports: the names a user of the library calls.
ENGINE_NAMES = {
    "ALGORITHMS", "DEFAULT_MAX_GRAPHS", "DEFAULT_TIME_BUDGET", "HEURISTICS", "MAX_LIMIT", "MAX_PACK_LIMIT",
    "TUPLE_ALGORITHMS", "BatchShape", "Bounds", "PackLimits", "PackMethod", "PackingPlan", "Recommendation",
    "SizeHistogram", "StepCost", "__version__", "best_plan", "compare", "config_histogram", "default_limits",
    "export_config", "limit_grid", "lower_bounds", "pack", "price_sweep", "published_table", "recommend",
    "smallest_limits", "sweep", "whole_number",
}
#: The modules of ``packing/`` outside the engine proper: the surfaces for files and words,
#: and the command lines.
WORDS_AND_IO = {"packing.io", "packing.words"}
NOT_ENGINE = WORDS_AND_IO | {"packing.cli", "packing.cli_args", "packing.recommend_cli", "packing.__main__"}


def module_name(path: Path) -> str:
    """``packing/batching/simulate.py`` -> ``packing.batching.simulate``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def names_bound_by(path: Path) -> set[str]:
    """The names a package's ``__init__`` (or a module) binds at its top level by import."""
    tree = ast.parse(path.read_text(), str(path))
    return {alias.asname or alias.name.split(".")[0] for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in node.names}


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> tuple[set[str], list[tuple[int, str]]]:
    """The project modules ``module`` imports at its top level, those under ``if
    TYPE_CHECKING:`` too (a cycle a type checker needs is a cycle all the same), and the
    imports placed inside functions (line, what)."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    loaded: set[str] = set()
    inside: list[tuple[int, str]] = []

    def targets(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        source = _resolve(node, module, is_package)
        bound = names_bound_by(modules[source]) if source in modules else set()
        # ``from packing import sweep`` is the function the package exports, not the module
        return [source if alias.name in bound or f"{source}.{alias.name}" not in modules
                else f"{source}.{alias.name}" for alias in node.names]

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in targets(child):
                    if in_function:
                        inside.append((child.lineno, target))
                    elif target in modules:
                        loaded.add(target)
                continue
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
    loaded.discard(module)
    return loaded, inside


def import_graph(with_hidden: bool = True) -> dict[str, set[str]]:
    """Who imports whom among the project's modules; ``with_hidden`` counts the imports
    inside functions too (they are dependencies all the same, only later)."""
    modules = project_modules()
    graph = {}
    for module, path in modules.items():
        loaded, inside = imports_of(module, path, modules)
        graph[module] = loaded | ({target for _, target in inside if target in modules} if with_hidden else set())
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_no_import_cycle_in_the_project():
    found = cycles(import_graph())
    assert not found, f"import cycles: {found}"


def test_no_import_inside_a_function_in_the_engine():
    modules = project_modules()
    hidden = [(module, line, target) for module, path in modules.items() if module.startswith("packing")
              for line, target in imports_of(module, path, modules)[1] if target not in OPTIONAL_IMPORTS]
    assert not hidden, f"imports inside functions (module, line, target): {hidden}"


@pytest.mark.parametrize("package", ["throughput", "pages", "figures", "data_loaders"])
def test_outside_code_uses_only_the_engines_public_surface(package):
    graph = import_graph()
    private = sorted({(module, target) for module, targets in graph.items() if module.split(".")[0] == package
                      for target in targets if target.startswith("packing") and target not in PUBLIC_ENGINE})
    assert not private, f"{package} reaches into engine modules: {private}"


def test_the_engine_imports_nothing_above_it():
    graph = import_graph()
    upward = sorted((module, target) for module, targets in graph.items() if module.startswith("packing")
                    for target in targets if not target.startswith("packing"))
    assert not upward, upward


def test_the_engine_exports_only_its_listed_names():
    assert set(packing.__all__) == ENGINE_NAMES and len(packing.__all__) == len(ENGINE_NAMES)
    assert len(ENGINE_NAMES) <= 30
    bound = {name for name in names_bound_by(ROOT / "packing" / "__init__.py") if not name.startswith("_")}
    assert bound <= ENGINE_NAMES, f"packing binds names it does not export: {sorted(bound - ENGINE_NAMES)}"
    public = {name for name in vars(packing) if not name.startswith("_")}
    submodules = {module.split(".")[1] for module in project_modules() if module.count(".") >= 1}
    assert public - submodules <= ENGINE_NAMES, sorted(public - submodules - ENGINE_NAMES)


def test_the_engine_imports_no_wording_or_file_module():
    graph = import_graph()
    engine = {module for module in graph if module.split(".")[0] == "packing" and module not in NOT_ENGINE}
    assert "packing.plan" in engine and "packing.export" in engine
    reaching = sorted((module, target) for module in engine for target in graph[module] if target in WORDS_AND_IO)
    assert not reaching, f"engine modules import wording or file modules: {reaching}"


def test_the_reader_finds_a_cycle_and_a_hidden_import(tmp_path):
    """The checks above can fail: a two-module cycle and an import in a function are found."""
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    source = tmp_path / "m.py"
    source.write_text("import os\n\ndef f():\n    from packing import pack\n    return pack\n")
    loaded, inside = imports_of("m", source, {"packing": source})
    assert loaded == set() and inside == [(4, "packing")]


def test_an_import_for_type_checkers_closes_a_cycle(tmp_path):
    """An ``if TYPE_CHECKING:`` import between two engine modules counts: the cycle it
    closes is found."""
    package = tmp_path / "packing"
    package.mkdir()
    (package / "plan.py").write_text("from .bounds import Bounds\n")
    (package / "bounds.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                                       "    from .plan import PackingPlan\n")
    modules = {"packing.plan": package / "plan.py", "packing.bounds": package / "bounds.py"}
    graph = {module: imports_of(module, path, modules)[0] for module, path in modules.items()}
    assert cycles(graph) == [["packing.bounds", "packing.plan"]]


if __name__ == "__main__":
    graph = import_graph()
    engine = {module: sorted(t for t in targets if t.startswith("packing"))
              for module, targets in graph.items() if module.startswith("packing")}
    for module, targets in sorted(engine.items()):
        print(f"{module} -> {', '.join(targets) or '-'}")
    print("cycles:", cycles(graph) or "none")
    for package in ("throughput", "pages"):
        used = sorted({t for m, ts in graph.items() if m.split(".")[0] == package for t in ts if t.startswith("packing")})
        print(f"{package} imports {len(used)} engine module(s): {', '.join(used)}")
