"""Product code (the agents, the builder, the evaluator, the analysis, the sandbox, the board, the Kaggle client)
never imports the offline builders in tools/, the benchmarks or the tests: an installed package works without them.
And it imports itself only as ``connectx_toolkit.*`` (the agents relatively): a user's own ``agents/`` or
``board.py`` beside a notebook cannot stand in for the toolkit's modules."""

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT = ["agents", "analysis", "building", "evaluation", "sandbox", "board", "on_kaggle", "evaluate.py",
           "build_submission.py"]
NOT_PRODUCT = {"tools", "tests", "bench"}
OWN = {name.removesuffix(".py") for name in PRODUCT} | NOT_PRODUCT
NAMESPACE = "connectx_toolkit"


def product_files() -> list[str]:
    files = []
    for name in PRODUCT:
        path = os.path.join(ROOT, name)
        if os.path.isfile(path):
            files.append(path)
        for folder, _, names in os.walk(path):
            files += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".py")]
    return files


def imported_top_levels(path: str) -> list[tuple[int, str]]:
    """(line, top-level package) of every absolute import in the file, at any depth (inside functions too)."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == NAMESPACE:  # from connectx_toolkit import evaluate
                found += [(node.lineno, f"{NAMESPACE}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def package_of(dotted: str) -> str:
    """The toolkit's package an import names (through the namespace or not), else its top level."""
    parts = dotted.split(".")
    return parts[1] if parts[0] == NAMESPACE and len(parts) > 1 else parts[0]


def forbidden_imports(paths: list[str]) -> list[str]:
    return [f"{os.path.relpath(path, ROOT)}:{line} imports {package_of(dotted)}"
            for path in paths for line, dotted in imported_top_levels(path) if package_of(dotted) in NOT_PRODUCT]


def imports_outside_the_namespace(paths: list[str]) -> list[str]:
    return [f"{os.path.relpath(path, ROOT)}:{line} imports {dotted}, not {NAMESPACE}.{dotted}"
            for path in paths for line, dotted in imported_top_levels(path) if dotted.split(".")[0] in OWN]


def test_product_code_never_imports_tools_tests_or_bench():
    files = product_files()
    assert any(f.endswith(os.path.join("analysis", "solving.py")) for f in files)  # the walk found the packages
    assert forbidden_imports(files) == []


@pytest.mark.parametrize("source", ["import tools.fast_solver\n", "from tools.make_outcomes import settle\n",
                                    "from connectx_toolkit.tools.make_book import x\n",
                                    "from connectx_toolkit import tests\n",
                                    "def f():\n    from tests.conftest import x\n", "import bench.solver_speed as s\n"])
def test_the_check_sees_every_form_of_import(tmp_path, source):
    path = tmp_path / "module.py"
    path.write_text(source)
    assert len(forbidden_imports([str(path)])) == 1


def test_product_code_imports_the_toolkit_only_through_its_namespace():
    assert imports_outside_the_namespace(product_files()) == []


@pytest.mark.parametrize("source, outside", [("from agents.core import Position\n", 1), ("import evaluate\n", 1),
                                             ("def f():\n    from board.session import S\n", 1),
                                             ("from connectx_toolkit.agents.core import Position\n", 0),
                                             ("from connectx_toolkit import evaluate\n", 0),
                                             ("from .core import Position\n", 0)])
def test_the_namespace_check_sees_every_form_of_import(tmp_path, source, outside):
    path = tmp_path / "module.py"
    path.write_text(source)
    assert len(imports_outside_the_namespace([str(path)])) == outside
