"""Product code (the agents, the builder, the evaluator, the analysis, the sandbox, the board, the Kaggle client)
never imports the offline builders in tools/, the benchmarks or the tests: an installed package works without them."""

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT = ["agents", "analysis", "building", "evaluation", "sandbox", "board", "on_kaggle", "evaluate.py",
           "build_submission.py"]
NOT_PRODUCT = {"tools", "tests", "bench"}


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
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def forbidden_imports(paths: list[str]) -> list[str]:
    return [f"{os.path.relpath(path, ROOT)}:{line} imports {package}"
            for path in paths for line, package in imported_top_levels(path) if package in NOT_PRODUCT]


def test_product_code_never_imports_tools_tests_or_bench():
    files = product_files()
    assert any(f.endswith(os.path.join("analysis", "solving.py")) for f in files)  # the walk found the packages
    assert forbidden_imports(files) == []


@pytest.mark.parametrize("source", ["import tools.fast_solver\n", "from tools.make_outcomes import settle\n",
                                    "def f():\n    from tests.conftest import x\n", "import bench.solver_speed as s\n"])
def test_the_check_sees_every_form_of_import(tmp_path, source):
    path = tmp_path / "module.py"
    path.write_text(source)
    assert len(forbidden_imports([str(path)])) == 1
