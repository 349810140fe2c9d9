"""The package's import graph: no circles, and every import points down the layers.

Layers, lowest first (CONTRIBUTING.md, "Where things go"):

0. foundations -- validation, linalg, memory, progress, preprocess, metrics, and the scale
   paths' operators in ``backends/`` (which know arrays, never algorithms);
1. library -- the algorithms of the papers and their data;
2. presentation -- plots and HTML tables;
3. interaction -- widgets, exercises, scikit-learn estimators, the Jupyter configuration;
4. reports -- reproductions and benchmarks;
5. the command line.

A module may import its own layer or any layer below. Imports inside functions count too:
a lazy import still ties the modules together, and the circles this test guards against
were all lazy ones (an algorithm handing over to its scale path, which imported the
algorithm's helpers back).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "spectral_kit"

LAYERS: dict[str, int] = {
    "_lazy": 0, "validation": 0, "memory": 0, "progress": 0, "linalg": 0, "preprocess": 0,
    "metrics": 0, "backends": 0,
    "qalpha": 1, "weighting": 1, "stability": 1, "sparse_lda": 1, "theory": 1,
    "topography": 1, "baselines": 1, "datasets": 1,
    "plots": 2, "tables": 2,
    "widgets": 3, "exercises": 3, "estimators": 3, "jupyter_config": 3, "notebook_files": 3,
    "extras": 3,
    "reproduce": 4, "bench": 4,
    "cli": 5,
    "__init__": 6,  # the façade: its names are imported lazily from every layer
}


def modules(package: Path = PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Dotted module name → (file, is a package's ``__init__``)."""
    found = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


def _targets(module: str, is_package: bool, node: ast.AST, known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "spectral_kit"]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        base = module.split(".")
        if not is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
        if target.split(".")[0] != "spectral_kit":
            return []
    # ``from . import kernels`` imports the submodule, ``from .x import name`` the module x.
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in known else target
            for a in node.names]


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module → the package's modules it imports (at top level or inside functions)."""
    found = modules(package)
    known = set(found)
    graph: dict[str, set[str]] = defaultdict(set)
    for module, (path, is_package) in found.items():
        graph[module]  # every module is a node, even one importing nothing
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _targets(module, is_package, node, known):
                while target not in known and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target != module and target in known:
                    graph[module].add(target)
    return dict(graph)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
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
    return found


def layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS[parts[1] if len(parts) > 1 else "__init__"]


def upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Edges from a module to one in a higher layer."""
    return sorted((a, b) for a, bs in graph.items() for b in bs if layer(b) > layer(a))


def test_graph_sees_lazy_imports():
    # The reader must find imports inside functions, or a lazy circle would pass unseen.
    graph = import_graph()
    assert "spectral_kit.qalpha.engine" in graph["spectral_kit.qalpha.standard"]
    assert len(graph) > 100
    assert sum(map(len, graph.values())) > 300


def test_circle_finder_on_a_known_graph():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": {"e"}}
    assert sorted(circles(graph)) == [["a", "b", "c"], ["e", "e2"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_every_component_has_a_layer():
    tops = {m.split(".")[1] if "." in m else "__init__" for m in modules()}
    assert tops <= set(LAYERS), f"give these a layer in LAYERS: {sorted(tops - set(LAYERS))}"


def test_no_import_circles():
    assert circles(import_graph()) == []


def test_imports_point_down_the_layers():
    assert upward(import_graph()) == []


def test_classroom_imports_no_scale_package():
    # The scale paths look at an argument's type; Dask and array-api-compat are imported
    # only by functions that received such an array.
    for module, (path, _) in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert name.split(".")[0] not in {"dask", "torch", "cupy", "array_api_compat"}, (
                    f"{module} imports {name} at module level")


if __name__ == "__main__":  # the numbers for a report: modules, edges, circles, upward
    g = import_graph()
    print(f"{len(g)} modules, {sum(map(len, g.values()))} edges")
    print("circles:", circles(g))
    print("upward:", *upward(g), sep="\n  ")
