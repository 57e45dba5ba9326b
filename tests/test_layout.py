"""The shape of the tree, kept: Python modules import each other without cycles (at module
level; imports inside functions are the deliberate way to load a part only when used), and
no source file grows past what a reader takes in at a sitting."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "python" / "subword"
MAX_LINES = 650


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _top_level_imports(path: Path, name: str) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in tree.body:  # module level only; `if TYPE_CHECKING:` blocks are skipped
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m.startswith("subword")}


def test_python_modules_import_without_cycles() -> None:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {
        name: {m for m in _top_level_imports(path, name) if m in modules and m != name}
        for name, path in modules.items()
    }
    # A module imports its parent packages too (Python runs their __init__ first); those
    # edges point up and are not part of a cycle unless the package imports back.
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


@pytest.mark.parametrize("suffix", [".py", ".rs"])
def test_no_source_file_is_too_long(suffix: str) -> None:
    roots = [PACKAGE] if suffix == ".py" else [REPO / "src"]
    long = {
        str(p.relative_to(REPO)): n
        for root in roots
        for p in root.rglob(f"*{suffix}")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"split these along their concerns (over {MAX_LINES} lines): {long}"
