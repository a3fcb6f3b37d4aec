"""Product code (the agents, the builder, the evaluator, the analysis, the sandbox, the board, the Kaggle client)
never imports the offline builders in tools/, the benchmarks, the tests or the examples (examples/: training with
libraries the toolkit does not install): an installed package works without them.
And it imports itself only as ``connectx_toolkit.*`` (the agents relatively): a user's own ``agents/`` or
``board.py`` beside a notebook cannot stand in for the toolkit's modules. No product module imports itself
through others: the imports, lazy ones inside functions included, form no circle. The packages stand on floors
(``FLOORS``) and import only the floors below: the command line (cli/) is the top floor."""

import ast
import os

import pytest
from tests.helpers import REPO

REPOSITORY = REPO
NAMESPACE = "connectx_toolkit"
ROOT = os.path.join(REPOSITORY, NAMESPACE)  # the package's folder: module names below are relative to it
PRODUCT = ["__init__.py", "__main__.py", "api.py", "atomic.py", "errors.py", "outcomes.py", "agents", "analysis",
           "building", "evaluation", "sandbox", "board", "on_kaggle", "measuring", "cli", "training"]
SCRIPTS = ["evaluate.py", "build_submission.py"]  # the checkout's thin entry points, beside the package
NOT_PRODUCT = {"tools", "tests", "bench", "examples"}
OWN = {name.removesuffix(".py") for name in PRODUCT + SCRIPTS} - {"__init__"} | NOT_PRODUCT


def product_files(root: str = ROOT) -> list[str]:
    files = [os.path.join(REPOSITORY, name) for name in SCRIPTS] if root == ROOT else []
    for name in PRODUCT:
        path = os.path.join(root, name)
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
            if node.module == NAMESPACE:  # from connectx_toolkit.cli import evaluate
                found += [(node.lineno, f"{NAMESPACE}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def package_of(dotted: str) -> str:
    """The toolkit's package an import names (through the namespace or not), else its top level."""
    parts = dotted.split(".")
    return parts[1] if parts[0] == NAMESPACE and len(parts) > 1 else parts[0]


def forbidden_imports(paths: list[str]) -> list[str]:
    return [f"{os.path.relpath(path, REPOSITORY)}:{line} imports {package_of(dotted)}"
            for path in paths for line, dotted in imported_top_levels(path) if package_of(dotted) in NOT_PRODUCT]


def imports_outside_the_namespace(paths: list[str]) -> list[str]:
    return [f"{os.path.relpath(path, REPOSITORY)}:{line} imports {dotted}, not {NAMESPACE}.{dotted}"
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
                                             ("from connectx_toolkit.cli import evaluate\n", 0),
                                             ("from .core import Position\n", 0)])
def test_the_namespace_check_sees_every_form_of_import(tmp_path, source, outside):
    path = tmp_path / "module.py"
    path.write_text(source)
    assert len(imports_outside_the_namespace([str(path)])) == outside


def module_name(path: str, root: str) -> str:
    dotted = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
    return dotted.removesuffix(".__init__")


def imported_modules(path: str, root: str, modules: set[str]) -> set[str]:
    """The product modules ``path`` imports, at any depth, relative imports resolved: for each import the
    longest dotted prefix that is a module (``from a.b import c`` is a.b.c when c is a module, else a.b)."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    name = module_name(path, root)
    package = name.split(".") if path.endswith("__init__.py") else name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]).strip(".") \
                if node.level else node.module or ""
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            parts = target.removeprefix(f"{NAMESPACE}.").split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            if parts and ".".join(parts) != name:
                found.add(".".join(parts))
    return found


def import_cycles(root: str = ROOT) -> list[list[str]]:
    """Every circle of product imports, as the modules of each strongly connected part (Tarjan), sorted."""
    paths = {module_name(path, root): path for path in product_files(root) if path.startswith(root + os.sep)}
    graph = {name: imported_modules(path, root, set(paths)) for name, path in paths.items()}
    order: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(module: str) -> None:
        order[module] = lowest[module] = len(order)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in order:
                visit(other)
                lowest[module] = min(lowest[module], lowest[other])
            elif other in stack:
                lowest[module] = min(lowest[module], order[other])
        if lowest[module] == order[module]:
            part = []
            while not part or part[-1] != module:
                part.append(stack.pop())
            if len(part) > 1:
                cycles.append(sorted(part))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return sorted(cycles)


def test_product_imports_form_no_circle():
    assert import_cycles() == []


def test_the_cycle_finder_sees_a_circle_added_by_hand(tmp_path):
    """A lazy import inside a function closes a circle of three modules through a relative import."""
    package = tmp_path / "evaluation"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "referee.py").write_text("from connectx_toolkit.evaluation.seat import Seat\n")
    (package / "seat.py").write_text("from .host import serve\n")
    (package / "host.py").write_text("def serve():\n    from connectx_toolkit.evaluation import referee\n")
    (package / "stats.py").write_text("from . import seat\n")  # outside the circle
    assert import_cycles(str(tmp_path)) == [["evaluation.host", "evaluation.referee", "evaluation.seat"]]
    (package / "host.py").write_text("def serve():\n    pass\n")
    assert import_cycles(str(tmp_path)) == []


# What each of the evaluator's subpackages may import of the evaluator (their __init__.py say why); the front
# doors (api, settings, gate, league, display) may import all of them.
EVALUATION_LAYERS = {
    "seats": set(),
    "referees": {"seats"},
    "scheduling": {"seats", "referees"},
    "reports": {"seats", "referees"},
}


def evaluation_layer_breaches(root: str = ROOT) -> list[str]:
    paths = {module_name(path, root): path for path in product_files(root) if path.startswith(root + os.sep)}
    breaches = []
    for name, path in sorted(paths.items()):
        parts = name.split(".")
        if len(parts) < 3 or parts[0] != "evaluation" or parts[1] not in EVALUATION_LAYERS:
            continue
        for imported in sorted(imported_modules(path, root, set(paths))):
            other = imported.split(".")
            if other[0] == "evaluation" and len(other) > 1 and other[1] != parts[1] \
                    and other[1] not in EVALUATION_LAYERS[parts[1]]:
                breaches.append(f"{name} imports {imported}")
    return breaches


def test_the_evaluators_subpackages_import_only_the_layers_below():
    assert evaluation_layer_breaches() == []


def test_the_layer_check_sees_a_breach(tmp_path):
    for package in ("evaluation", "evaluation/seats", "evaluation/reports"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "evaluation" / "reports" / "summary.py").write_text("X = 1\n")
    (tmp_path / "evaluation" / "seats" / "wire.py").write_text(
        "def f():\n    from connectx_toolkit.evaluation.reports.summary import X\n")
    assert evaluation_layer_breaches(str(tmp_path)) == ["evaluation.seats.wire imports evaluation.reports.summary"]


# The package's floors, from the bottom up: a module imports only modules of its own package or of a lower floor
# (never its floor's neighbours, never a floor above). errors.py (UsageError), outcomes.py (the typed outcomes) and
# atomic.py (whole-file writes) are at the bottom so that every layer may use them; the command line and the Python API (api.py) are the top
# floor, the only one that reads argv or sees an argparse Namespace being the command line; the package's face
# (__init__.py) and ``python -m connectx_toolkit`` stand above them.
FLOORS = [
    {"errors", "outcomes", "atomic", "agents"},
    {"sandbox"},
    {"building"},
    {"evaluation"},
    {"training", "analysis"},
    {"board", "on_kaggle", "measuring"},
    {"cli", "api"},
    {"__init__", "__main__"},
]
# Arrows that still run back up: none. One that a change must leave for a while is listed here with the change
# that will remove it (the test fails when a listed one no longer exists, so the list cannot go stale).
STILL_UP: set[str] = set()


def floor_of(module: str) -> int:
    package = module.split(".")[0]
    return next(level for level, packages in enumerate(FLOORS) if package in packages)


def arrows_back_up(root: str = ROOT) -> list[str]:
    """Every import of a module on the same floor (another package) or a higher one, as "a imports b"."""
    paths = {module_name(path, root): path for path in product_files(root) if path.startswith(root + os.sep)}
    found = []
    for name, path in sorted(paths.items()):
        for imported in sorted(imported_modules(path, root, set(paths))):
            if imported.split(".")[0] != name.split(".")[0] and floor_of(imported) >= floor_of(name):
                found.append(f"{name} imports {imported}")
    return found


def test_every_package_stands_on_a_floor():
    packages = {module_name(path, ROOT).split(".")[0] for path in product_files() if path.startswith(ROOT + os.sep)}
    assert packages <= set().union(*FLOORS), packages - set().union(*FLOORS)
    assert {"errors", "evaluation", "analysis", "board", "on_kaggle", "cli"} <= packages


def test_no_import_runs_back_up_the_floors():
    assert set(arrows_back_up()) == STILL_UP


def test_only_the_command_line_reads_argv_or_imports_argparse():
    readers = [f"{os.path.relpath(path, REPOSITORY)}:{line}" for path in product_files()
               if path.startswith(ROOT + os.sep) and not path.startswith(os.path.join(ROOT, "cli") + os.sep)
               for line, dotted in imported_top_levels(path) if dotted == "argparse"]
    assert readers == []


def test_the_floor_check_sees_an_arrow_back_up(tmp_path):
    for package in ("analysis", "cli"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "cli" / "program.py").write_text("NAME = 'x'\n")
    (tmp_path / "analysis" / "report.py").write_text("def f():\n    from connectx_toolkit.cli.program import NAME\n")
    (tmp_path / "cli" / "analyze.py").write_text("from connectx_toolkit.analysis import report\n")  # down: fine
    assert arrows_back_up(str(tmp_path)) == ["analysis.report imports cli.program"]
