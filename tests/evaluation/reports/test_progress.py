"""Progress bars: a live bar only where a terminal can redraw it; a few plain lines under a notebook's `!`."""

from __future__ import annotations

import io
import sys

import pytest

from connectx_toolkit.evaluation.reports import progress
from connectx_toolkit.evaluation.reports.progress import PlainProgress, can_redraw, end_early, progress_bar, under_notebook


class Terminal(io.StringIO):
    """A stream that says it is a terminal (as ipykernel's pseudo-terminal for `!` commands does)."""

    def isatty(self) -> bool:
        return True


# ipykernel's own environment, which a `!` command inherits (measured in a kernel: JPY_PARENT_PID from
# jupyter_client, TERM, PAGER and CLICOLOR from ipykernel)
KERNEL_CHILD = {"JPY_PARENT_PID": "4242", "TERM": "xterm-color", "PAGER": "cat", "CLICOLOR": "1"}


@pytest.mark.parametrize("environ, redraws", [
    ({"TERM": "xterm-256color"}, True),
    (KERNEL_CHILD, False),
    ({"TERM": "xterm-color", "PAGER": "cat"}, False),  # a kernel started without jupyter_client
    ({"TERM": "dumb"}, False),
    ({"TERM": "xterm", "KAGGLE_KERNEL_RUN_TYPE": "Batch"}, False),  # a Kaggle notebook saved as a version
])
def test_only_a_real_terminal_gets_a_live_bar(environ, redraws):
    assert can_redraw(Terminal(), environ) is redraws
    assert can_redraw(io.StringIO(), environ) is False  # a pipe or a file never does
    assert under_notebook(environ) is (environ.get("TERM") not in ("xterm-256color", "dumb"))


def test_plain_progress_says_each_quarter_once():
    out = io.StringIO()
    bar = PlainProgress(200, unit="game", delay=0, file=out)
    for n in range(200):
        bar.set_postfix_str(f"A scores {n}", refresh=False)
        bar.update(1)
    bar.close()
    lines = out.getvalue().splitlines()
    assert [line.split(",")[0] for line in lines] == ["50/200 games (25%)", "100/200 games (50%)",
                                                     "150/200 games (75%)", "200/200 games (100%)"]
    assert lines[-1].endswith("; A scores 199") and "\r" not in out.getvalue()


def test_plain_progress_is_silent_for_a_short_run_and_ends_a_cut_one():
    quiet = io.StringIO()
    bar = PlainProgress(10, delay=60, file=quiet)
    for _ in range(10):
        bar.update(1)
    bar.close()
    assert quiet.getvalue() == ""
    cut = io.StringIO()
    bar = PlainProgress(100, desc="gate", delay=0, file=cut)
    bar.update(30)
    bar.update(10)
    bar.close()  # stopped at 40 (an interrupt, a decided test): the last line says where
    lines = cut.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("gate: 30/100 games (30%)"), lines
    assert lines[1].startswith("gate: 40/100 games (40%)")


def test_progress_bar_follows_the_stream(monkeypatch):
    monkeypatch.setattr(progress, "in_notebook_kernel", lambda: False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress_bar(10) is None  # a pipe: nothing at all
    monkeypatch.setattr(sys, "stderr", Terminal())
    for name, value in KERNEL_CHILD.items():
        monkeypatch.setenv(name, value)
    assert isinstance(progress_bar(10), PlainProgress)  # a notebook's `!`: plain lines
    for name in KERNEL_CHILD:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in ("KAGGLE_KERNEL_RUN_TYPE", "COLAB_RELEASE_TAG"):
        monkeypatch.delenv(name, raising=False)
    bar = progress_bar(10)
    assert type(bar).__module__ == "tqdm.std"  # a terminal: tqdm's live bar
    bar.close()


def test_a_bar_stopped_early_on_purpose_ends_full():
    bar = PlainProgress(160, delay=0, file=io.StringIO())
    bar.update(43)
    end_early(bar)
    assert bar.total == 43
    end_early(None)  # no bar: nothing to do
