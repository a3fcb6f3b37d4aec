"""The n-tuple learner's run: the same seed gives the same weights; a run stopped (Ctrl-C, ``kill -9``) and resumed
ends with the weights of a run that never stopped; the command's bad input is one line and exit 2."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
from kaggle_environments.utils import Struct
import pytest

pytest.importorskip("numba")

from connectx_toolkit.agents import ntuple as ntuple_agent  # noqa: E402
from connectx_toolkit.cli import main as connectx  # noqa: E402
from connectx_toolkit.training import ntuple  # noqa: E402
from connectx_toolkit.training.ntuple import trainer  # noqa: E402


def trained(folder, seed: int, episodes: int) -> ntuple.TrainingState:
    os.makedirs(folder, exist_ok=True)
    state = ntuple.new_state(ntuple.NTupleSettings(seed=seed))
    ntuple.train(state, str(folder), episodes=episodes)
    return state


def test_the_same_seed_gives_the_same_weights(tmp_path):
    one, two = trained(tmp_path / "a", 3, 3000), trained(tmp_path / "b", 3, 3000)
    other = trained(tmp_path / "c", 4, 3000)
    assert one.episodes == two.episodes == 3000
    assert np.count_nonzero(one.weights) > 1000  # it learned something
    assert one.weights.tobytes() == two.weights.tobytes()
    assert one.coherence_size.tobytes() == two.coherence_size.tobytes()
    assert ntuple.weights_bytes(one) == ntuple.weights_bytes(two)
    assert one.weights.tobytes() != other.weights.tobytes()


def test_side_tables_learn_a_set_for_each_side_to_move_and_a_run_recorded_before_them_keeps_one(tmp_path):
    state = trained(tmp_path / "sides", 3, 2000)
    assert ntuple.tables(state).shape == (140, 4 ** 8)  # the even positions' 70 tables, then the odd ones'
    even, odd = np.count_nonzero(state.weights[:70 * 4 ** 8]), np.count_nonzero(state.weights[70 * 4 ** 8:])
    assert even > 1000 and odd > 1000  # both sides' positions learned, each in its own set
    network = ntuple_agent.read_network(ntuple.weights_bytes(state))
    assert (network.set_shifts == np.arange(43) % 2 * 70 * 4 ** 8).all()
    old = {k: v for k, v in ntuple.NTupleSettings(seed=3).record().items() if k != "side_tables"}
    assert ntuple.NTupleSettings.from_record(old).side_tables is False
    before = ntuple.new_state(ntuple.NTupleSettings.from_record(old))
    os.makedirs(tmp_path / "old")
    ntuple.train(before, str(tmp_path / "old"), episodes=2000)
    assert ntuple.tables(before).shape == (70, 4 ** 8)
    assert not ntuple_agent.read_network(ntuple.weights_bytes(before)).set_shifts.any()


def test_threat_tables_are_learned_written_and_read_and_a_run_recorded_before_them_has_none(tmp_path):
    state = trained(tmp_path / "threats", 3, 2000)
    threats = ntuple.threat_tables(state)
    assert threats is not None and threats.shape == ntuple_agent.THREAT_SHAPE
    assert np.count_nonzero(threats) > 300  # both sides' columns and lowest winning cells learned
    assert np.count_nonzero(threats[:, ntuple_agent.LOWEST_BASE:]) > 20
    assert ntuple.tables(state).shape == (140, 4 ** 8)
    network = ntuple_agent.read_network(ntuple.weights_bytes(state))
    assert network.threats is not None
    assert np.array_equal(network.threats, threats.astype(np.float16).astype(np.float32).reshape(-1))
    # The agent values positions as the run does: its weights, as trained, give its values.
    live = ntuple.network(state)
    position = ntuple_agent.Position.from_moves([3, 3, 2, 4, 2, 2, 4])
    states = ntuple_agent.cell_states(position)[None, :]
    assert np.isclose(live.values(states)[0], network.values(states)[0], atol=2e-3)
    old = {k: v for k, v in ntuple.NTupleSettings(seed=3).record().items() if k != "threats"}
    before = ntuple.new_state(ntuple.NTupleSettings.from_record(old))
    assert ntuple.threat_tables(before) is None and before.weights.size == 140 * 4 ** 8
    assert ntuple_agent.read_network(ntuple.weights_bytes(before)).threats is None


def test_stages_give_each_stage_of_the_game_its_own_sets_of_tables_and_the_agent_reads_them(tmp_path):
    settings = ntuple.NTupleSettings(seed=3, stages=2)
    assert settings.table_sets().tolist() == [2 * (n // 22) + n % 2 for n in range(43)]
    assert ntuple.NTupleSettings(seed=3, stages=2, side_tables=False).table_sets().tolist() == [
        n // 22 for n in range(43)]
    state = ntuple.new_state(settings)
    os.makedirs(tmp_path / "run")
    ntuple.train(state, str(tmp_path / "run"), episodes=4000)
    assert ntuple.tables(state).shape == (280, 4 ** 8)
    for part in np.split(state.weights, 4):
        assert np.count_nonzero(part) > 100  # every set learned: both sides, early and late
    network = ntuple_agent.read_network(ntuple.weights_bytes(state))
    assert (network.set_shifts == settings.table_sets() * 70 * 4 ** 8).all()
    with pytest.raises(ValueError, match="stages"):
        ntuple.NTupleSettings(stages=0)


def test_more_tuples_are_the_first_of_the_140_and_the_agent_reads_them(tmp_path):
    from connectx_toolkit.training.ntuple.tuples import MOST_TUPLES, TUPLES, mirror_cell, tuple_set

    every = tuple_set(MOST_TUPLES)
    assert tuple_set(70) == TUPLES and every[:70] == TUPLES and tuple_set(100) == every[:100]
    seen = set()
    for cells in every:  # each a walk of 8 distinct cells, each a neighbour of the one before; none twice
        assert len(set(cells)) == 8 and all(
            max(abs(a // 6 - b // 6), abs(a % 6 - b % 6)) == 1 for a, b in zip(cells, cells[1:]))
        assert frozenset(cells) not in seen and frozenset(map(mirror_cell, cells)) not in seen
        seen |= {frozenset(cells), frozenset(map(mirror_cell, cells))}
    state = ntuple.new_state(ntuple.NTupleSettings(seed=3, tuples=MOST_TUPLES))
    os.makedirs(tmp_path / "run")
    ntuple.train(state, str(tmp_path / "run"), episodes=2000)
    assert ntuple.tables(state).shape == (2 * MOST_TUPLES, 4 ** 8)  # each side's 140 tables
    assert np.count_nonzero(ntuple.tables(state)[70:MOST_TUPLES]) > 1000  # the 70 more learned too
    network = ntuple_agent.read_network(ntuple.weights_bytes(state))
    assert network.slot_cells[:MOST_TUPLES].tolist() == [list(t) for t in every]
    assert (network.set_shifts == np.arange(43) % 2 * MOST_TUPLES * 4 ** 8).all()
    live = ntuple.network(state)
    position = ntuple_agent.Position.from_moves([3, 3, 2, 4, 2, 2, 4])
    states = ntuple_agent.cell_states(position)[None, :]
    assert np.isclose(live.values(states)[0], network.values(states)[0], atol=2e-3)
    old = {k: v for k, v in ntuple.NTupleSettings(seed=3, tuples=MOST_TUPLES).record().items() if k != "tuples"}
    assert ntuple.NTupleSettings.from_record(old).tuples == 70  # a run recorded before the setting had 70
    for wrong in (0, MOST_TUPLES + 1):
        with pytest.raises(ValueError, match="tuples"):
            ntuple.NTupleSettings(tuples=wrong)


def test_a_run_recorded_before_greedy_targets_goes_on_teaching_the_explored_moves_value(tmp_path):
    old = {k: v for k, v in ntuple.NTupleSettings(seed=3).record().items() if k != "greedy_target"}
    assert ntuple.NTupleSettings.from_record(old).greedy_target is False
    assert ntuple.NTupleSettings().greedy_target is True
    runs = {}
    for name, record in (("old", old), ("new", ntuple.NTupleSettings(seed=3).record())):
        runs[name] = ntuple.new_state(ntuple.NTupleSettings.from_record(record))
        os.makedirs(tmp_path / name)
        ntuple.train(runs[name], str(tmp_path / name), episodes=2000)
    assert not np.array_equal(runs["old"].weights, runs["new"].weights)


def test_ctrl_c_stops_after_the_chunk_and_keeps_a_checkpoint_to_resume_from(tmp_path):
    state = ntuple.new_state(ntuple.NTupleSettings(seed=5))
    os.makedirs(tmp_path / "run")

    def interrupt_once(state, figures):
        if state.episodes == trainer.CHUNK:
            signal.raise_signal(signal.SIGINT)  # as Ctrl-C would, while the run is under way

    assert ntuple.train(state, str(tmp_path / "run"), episodes=10 * trainer.CHUNK, progress=interrupt_once) == \
        "interrupted"
    assert state.episodes == trainer.CHUNK  # the chunk under way finished; no other began
    resumed = ntuple.load(str(tmp_path / "run"))
    assert resumed.episodes == trainer.CHUNK and resumed.weights.tobytes() == state.weights.tobytes()
    assert ntuple.train(resumed, str(tmp_path / "run"), episodes=3 * trainer.CHUNK) == "episodes"
    assert resumed.weights.tobytes() == trained(tmp_path / "whole", 5, 3 * trainer.CHUNK).weights.tobytes()


def train_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "connectx_toolkit", "train", "--learner", "ntuple", "--quiet", *args]


def checkpoint_episodes(folder) -> int:
    try:
        return ntuple.load(str(folder)).episodes
    except (FileNotFoundError, ValueError):
        return 0


def test_a_run_killed_and_resumed_ends_with_the_weights_of_one_that_never_stopped(tmp_path):
    killed = tmp_path / "killed"
    run = subprocess.Popen(train_command("--episodes", "100000000", "--checkpoint-minutes", "0", "--curve-every",
                                         "100000000", "--seed", "7", "--out", str(killed)),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while checkpoint_episodes(killed) == 0 and run.poll() is None:
            time.sleep(0.05)
        run.send_signal(signal.SIGKILL)
    finally:
        run.wait()
    assert run.returncode == -signal.SIGKILL, run.stderr.read() if run.stderr else ""
    stopped_at = checkpoint_episodes(killed)
    assert stopped_at > 0
    total = stopped_at + 2 * trainer.CHUNK  # the resumed run plays on past where the killed one stood
    resumed = subprocess.run([sys.executable, "-m", "connectx_toolkit", "train", "--quiet", "--resume",
                              str(killed), "--episodes", str(total)], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    whole = tmp_path / "whole"
    uninterrupted = subprocess.run(train_command("--episodes", str(total), "--curve-every", "100000000", "--seed",
                                                 "7", "--out", str(whole)), capture_output=True, text=True)
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    one, two = ntuple.load(str(killed)), ntuple.load(str(whole))
    assert one.episodes == two.episodes == total
    assert one.weights.tobytes() == two.weights.tobytes()
    assert one.coherence_sum.tobytes() == two.coherence_sum.tobytes()
    assert one.generator.tobytes() == two.generator.tobytes()
    weights = os.path.join("data", "ntuple_6x7.npz")  # the agent's weights file, byte for byte
    with open(killed / weights, "rb") as a, open(whole / weights, "rb") as b:
        assert a.read() == b.read()


class Died(Exception):
    """Stands for a run's process dying (kill -9, a power cut) just after a checkpoint."""


def test_a_resume_asked_for_nothing_goes_on_to_the_games_the_run_was_asked_for(tmp_path):
    """``--resume DIR`` alone ends where the interrupted command would have ended (not at the default), with its
    weights."""
    died = tmp_path / "died"
    os.makedirs(died)
    state = ntuple.new_state(ntuple.NTupleSettings(seed=5, curve_every=1000, checkpoint_seconds=0))

    def die(state) -> None:
        raise Died

    with pytest.raises(Died):
        ntuple.train(state, str(died), episodes=3000, after_checkpoint=die)
    assert ntuple.load(str(died)).episodes == 1000
    assert connectx.main(["train", "--quiet", "--resume", str(died)]) == 0
    whole = trained(tmp_path / "whole", 5, 3000)
    resumed = ntuple.load(str(died))
    assert resumed.episodes == 3000
    assert resumed.weights.tobytes() == whole.weights.tobytes()


@pytest.mark.parametrize("args, message", [
    (["--minutes", "5", "--out", "x"], "--minutes is the n-tuple learner's"),
    (["--learner", "ntuple", "--rows", "5", "--out", "x"], "plays 6x7"),
    (["--learner", "ntuple", "--alpha", "0", "--out", "x"], "n-tuple settings out of range: alpha"),
    (["--alpha", "1", "--out", "x"], "--alpha is the n-tuple learner's"),
    (["--no-threats", "--out", "x"], "--no-threats is the n-tuple learner's"),
    (["--tuples", "140", "--out", "x"], "--tuples is the n-tuple learner's"),
    (["--learner", "ntuple", "--tuples", "141", "--out", "x"], "n-tuple settings out of range: tuples"),
    (["--siblings", "0.25", "--out", "x"], "--siblings is the n-tuple learner's"),
    (["--learner", "ntuple", "--siblings", "1.5", "--out", "x"], "n-tuple settings out of range: siblings"),
    (["--learner", "ntuple", "--minutes", "0", "--out", "x"], "--minutes must be more than 0"),
    (["--learner", "ntuple", "--episodes", "-1", "--out", "x"], "--episodes must be at least 0"),
    (["--resume", "nowhere"], "no checkpoint.npz"),
    (["--learner", "td_lambda", "--resume", "nowhere"], "--resume goes on with an n-tuple"),
    (["--learner", "ntuple"], "--out DIR is required"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    assert connectx.main(["train", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "x").exists()


def test_no_threats_trains_the_tuples_alone_and_a_resume_keeps_the_runs_choice(tmp_path, capsys):
    plain, threats = tmp_path / "plain", tmp_path / "threats"
    assert connectx.main(["train", "--learner", "ntuple", "--quiet", "--no-threats", "--episodes", "1000",
                          "--curve-every", "1000", "--out", str(plain)]) == 0
    assert ntuple.load(str(plain)).settings["threats"] is False
    assert ntuple.threat_tables(ntuple.load(str(plain))) is None
    assert ntuple_agent.read_network((plain / "data" / "ntuple_6x7.npz").read_bytes()).threats is None
    assert connectx.main(["train", "--quiet", "--resume", str(plain), "--no-threats", "--episodes", "2000"]) == 0
    assert connectx.main(["train", "--learner", "ntuple", "--quiet", "--episodes", "1000", "--curve-every", "1000",
                          "--out", str(threats)]) == 0
    capsys.readouterr()
    assert connectx.main(["train", "--quiet", "--resume", str(threats), "--no-threats"]) == 2
    assert "the run's threats is True" in capsys.readouterr().err


def test_tuples_from_the_command_line_and_a_resume_keeps_the_runs_count(tmp_path, capsys):
    run = tmp_path / "run"
    assert connectx.main(["train", "--learner", "ntuple", "--quiet", "--tuples", "100", "--episodes", "1000",
                          "--curve-every", "1000", "--out", str(run)]) == 0
    assert ntuple.load(str(run)).settings["tuples"] == 100
    assert len(ntuple_agent.read_network((run / "data" / "ntuple_6x7.npz").read_bytes()).slot_cells) == 200
    capsys.readouterr()
    assert connectx.main(["train", "--quiet", "--resume", str(run), "--tuples", "70"]) == 2
    assert "the run's tuples is 100" in capsys.readouterr().err


def test_siblings_from_the_command_line_teach_more_and_a_resume_keeps_the_runs_share(tmp_path, capsys):
    runs = {}
    for name, share in (("plain", []), ("siblings", ["--siblings", "0.5"])):
        runs[name] = tmp_path / name
        assert connectx.main(["train", "--learner", "ntuple", "--quiet", *share, "--seed", "2", "--episodes", "400",
                              "--curve-every", "400", "--out", str(runs[name])]) == 0
    plain, siblings = ntuple.load(str(runs["plain"])), ntuple.load(str(runs["siblings"]))
    assert plain.settings["siblings"] == 0.0 and siblings.settings["siblings"] == 0.5
    # The same games' seed, and more entries taught: the positions after the moves not played learn too.
    assert np.count_nonzero(siblings.weights) > np.count_nonzero(plain.weights)
    old = {k: v for k, v in plain.settings.items() if k != "siblings"}
    assert ntuple.NTupleSettings.from_record(old).siblings == 0.0  # a run recorded before the setting had none
    capsys.readouterr()
    assert connectx.main(["train", "--quiet", "--resume", str(runs["siblings"]), "--siblings", "0"]) == 2
    assert "the run's siblings is 0.5" in capsys.readouterr().err


def test_a_trained_folder_builds_into_one_file_with_its_own_weights_only(tmp_path):
    """The folder's main.py reads the player with its own weights: the build embeds those, not the shipped ones
    (which bear the same name: the build stopped at that conflict when the folder imported the built-in agent)."""
    from connectx_toolkit.cli import build_submission

    folder = tmp_path / "run"
    assert connectx.main(["train", "--learner", "ntuple", "--quiet", "--episodes", "1000", "--curve-every", "1000",
                          "--out", str(folder)]) == 0
    text, _, resources = build_submission.build_text(str(folder))
    weights = (folder / "data" / "ntuple_6x7.npz").read_bytes()
    assert resources["ntuple_6x7.npz"] == weights
    assert set(resources) == {"ntuple_6x7.npz", "td_lambda_6x7.json"}  # the tactical filter is td_lambda's module's
    namespace: dict = {}
    exec(compile(text, "submission.py", "exec"), namespace)
    embedded = namespace["_module"]("main").NETWORK
    assert "agents.ntuple" not in namespace["_SOURCES"]  # the built-in agent, and its shipped weights, left out
    assert embedded.threats is not None
    assert np.array_equal(embedded.tables, ntuple_agent.read_network(weights).tables)
    move = namespace["agent"](Struct(board=[0] * 42, mark=1, remainingOverageTime=60),
                              Struct(rows=6, columns=7, inarow=4, actTimeout=0.2))
    assert type(move) is int and 0 <= move < 7
