"""The README is the first page a newcomer reads: short enough to read at once, and its claims of strength are the
figures the project measured, not more."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_reads_at_once():
    assert len(README.splitlines()) <= 200


def test_the_two_commands_are_the_readmes():
    assert "bash run.sh            #" in README and "bash run.sh test       #" in README


def test_the_solvers_accuracy_is_the_one_docs_agents_measured():
    """The solver is not called perfect: the README gives its accuracy on the benchmark, which must be the figure of
    the solver's row in docs/agents.md's accuracy table (an agent improved, or the table re-measured, shows here)."""
    table = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    row = re.search(r"^\| solver \(`submissions/submission.py`\) \| ([\d.]+) \[", table, re.M)
    assert row, "docs/agents.md has no accuracy row for the solver"
    assert f"{row.group(1)} % of the accuracy" in README
    assert "perfect Connect 4" not in README and "perfect on 6x7" not in README


def test_every_page_the_readme_links_is_there():
    links = re.findall(r"\]\(((?:docs/|CHANGELOG)[^)#]*)", README)
    assert links and [link for link in links if not (ROOT / link).exists()] == []
