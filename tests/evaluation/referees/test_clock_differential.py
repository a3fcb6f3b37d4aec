"""The gate's clock is Kaggle's: timing profiles played by the gate and by kaggle_environments' Environment.run.

Each profile is an agent that sleeps on a schedule (its load, each of its moves) while both players follow
one fixed 42-ply game that nobody wins, so a steady spender lives long enough to run out of bank. The
same two agent files are played (1) through the gate's own path (``GateContext.match``: the native referee,
each agent in its own process, killed at its deadline) and (2) by ``Environment.run`` with the files'
paths, as Kaggle runs a submission (it loads the file inside move 1 and waits for a hung move, then rules
TIMEOUT). The per-game statuses and the move of the TIMEOUT must be equal, and equal to what the toolkit's
one owner of the rule (``evaluation.referees.bank``) rules on the move times each run recorded.

The clock is scaled by 1/20 (act timeout 0.1 s, a 3 s bank): the rule (``duration - actTimeout >
remainingOverageTime``, the bank drawn by ``max(0, duration - actTimeout)`` per move) is the same at any
scale. One profile runs at Kaggle's real 2 s + 60 s under ``-m slow``. ``-s`` prints the table.

A measured move is its sleep plus the machine's overhead (waking the process, the pipe), which a loaded machine
stretches. The profiles the default run plays on the real clock end the same with up to ~90 ms of overhead a move
(several times what a loaded machine adds). The one that sits on the rule's edge ("5 s/move": 19 moves leave
exactly what the 20th needs) is played on a scripted clock by both referees in the default run, its exact times
and times with overhead added; on the real clock it runs under ``-m realclock``.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import pytest

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.evaluation.referees.bank import Bank, bank_spent
from connectx_toolkit.evaluation.referees.kaggle import play_kaggle
from connectx_toolkit.evaluation.referees.native import play_native
from connectx_toolkit.evaluation.referees.played import Status
from connectx_toolkit.evaluation.seats.callable_player import CallablePlayer
from tests.helpers import drawn_game

SCALE = 1 / 20  # of Kaggle's 2 s act timeout and 60 s bank

# name: (load seconds, {own move number: seconds}, seconds of every other move), in Kaggle's real seconds
PROFILES = {
    "instant": (0.0, {}, 0.0),
    "3 s load": (3.0, {}, 0.0),
    "2.5 s/move": (0.0, {}, 2.5),
    "3 s/move": (0.0, {}, 3.0),
    "5 s/move": (0.0, {}, 5.0),
    "one 20 s move, then instant": (0.0, {3: 20.0}, 0.0),
    "40 s spent over two moves": (0.0, {2: 22.0, 3: 22.0}, 0.0),
    "move 5 longer than act + bank": (0.0, {5: 70.0}, 0.0),
}
# What Kaggle's rule gives for each (seat 1 of a 42-ply game: 21 moves), checked against both runs
EXPECTED = {
    "instant": ("DONE", None), "3 s load": ("DONE", None), "2.5 s/move": ("DONE", None), "3 s/move": ("DONE", None),
    "5 s/move": ("TIMEOUT", 20),  # 3 s of bank a move: 19 moves leave 3 s, the 20th needs a little more
    "one 20 s move, then instant": ("DONE", None), "40 s spent over two moves": ("DONE", None),
    "move 5 longer than act + bank": ("TIMEOUT", 5),
}
# 19 moves of 5 s leave exactly the 3 s the 20th needs: a few ms of overhead a move (at 1/20 of the clock) decide
# between the 18th, the 19th and the 20th, so the real clock cannot hold it to one move (see the docstring)
ON_THE_EDGE = {"5 s/move"}

AGENT = """import time
time.sleep({load!r})
SEQUENCE = {sequence!r}
EXTRA = {extra!r}
EVERY = {every!r}


def agent(observation, configuration):
    placed = sum(1 for cell in observation.board if cell)
    own_move = placed // 2 + 1
    time.sleep(EXTRA.get(own_move, EVERY))
    return SEQUENCE[placed]
"""


def write_agent(folder, name: str, profile: tuple, sequence: list[int], scale: float) -> str:
    load, extra, every = profile
    path = folder / f"{name}.py"
    path.write_text(AGENT.format(load=load * scale, sequence=sequence,
                                 extra={move: seconds * scale for move, seconds in extra.items()}, every=every * scale))
    return str(path)


def by_gate(profile_path: str, opponent_path: str, act: float, bank: float) -> tuple[str, int | None, list[float]]:
    """(status of the profiled seat, its move that timed out or None, its move times) on the gate's clock."""
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec
    from connectx_toolkit.evaluation.gate import GateContext, GateSettings
    from connectx_toolkit.evaluation.referees.record import GameTask

    config = Config()
    settings = GateSettings(candidate=profile_path, baseline=opponent_path, act_timeout=act, overage=bank, workers=1)
    profiled, opponent = AgentSpec(profile_path, "file", profile_path), AgentSpec(opponent_path, "file", opponent_path)
    context = GateContext(settings, profiled, opponent, config)
    task = GameTask(0, profiled, opponent, False, (), tuple(config.as_dict().items()), act, bank, 0)
    (record,) = context.match(profiled, opponent, [task])
    status, times = record.statuses[0], record.move_times[0]
    return status, (len(times) if status == "TIMEOUT" else None), times


def by_kaggle(profile_path: str, opponent_path: str, act: float, bank: float) -> tuple[str, int | None, list[float]]:
    """The same on kaggle_environments' ``Environment.run`` (the bank set at every reset, as Kaggle's is 60 s)."""
    from kaggle_environments import make

    env = make("connectx", configuration={"actTimeout": act}, debug=False)
    reset = env.reset

    def reset_with_bank(num_agents=None):
        state = reset(num_agents)
        for agent in env.state:
            agent.observation.remainingOverageTime = bank
        return state

    env.reset = reset_with_bank
    env.run([profile_path, opponent_path])
    times = [log[0]["duration"] for log in env.logs if log and isinstance(log[0], dict) and "duration" in log[0]]
    status = env.state[0].status
    return status, (len(times) if status == "TIMEOUT" else None), times


def play_on(referee: str, name: str, folder, scale: float) -> tuple:
    """One profile on one referee ("gate" or "kaggle"), each in a process of its own: mostly sleeps."""
    sequence = drawn_game()
    act, bank = 2.0 * scale, 60.0 * scale
    stem = "".join(c if c.isalnum() else "_" for c in name) + "_" + referee
    profiled = write_agent(folder, f"profile_{stem}", PROFILES[name], sequence, scale)
    opponent = write_agent(folder, f"opponent_{stem}", PROFILES["instant"], sequence, scale)
    return (by_gate if referee == "gate" else by_kaggle)(profiled, opponent, act, bank)


def play_both(names, folder, scale: float) -> list[tuple[str, tuple, tuple]]:
    """(name, the gate's run, Kaggle's run) of each profile: all of them at once, as they mostly sleep."""
    import kaggle_environments  # noqa: F401  (imported once here, not again in each of the forks)

    runs = [(referee, name) for name in names for referee in ("gate", "kaggle")]
    with ProcessPoolExecutor(len(runs)) as pool:
        results = dict(zip(runs, pool.map(play_on, *zip(*runs), [folder] * len(runs), [scale] * len(runs))))
    return [(name, results["gate", name], results["kaggle", name]) for name in names]


def print_table(rows: list[tuple[str, tuple, tuple]], scale: float) -> None:
    print(f"\nclock scaled by {scale:g}: act timeout {2 * scale:g} s, bank {60 * scale:g} s (times in real seconds)")
    print(f"{'profile':<32} {'gate':<12} {'Kaggle':<12} {'bank spent (gate / Kaggle)':>28}")
    for name, gate_run, kaggle_run in rows:
        def cell(run):
            return run[0] + (f" @{run[1]}" if run[1] else "")

        spent = [bank_spent(run[2], 2 * scale) / scale for run in (gate_run, kaggle_run)]
        print(f"{name:<32} {cell(gate_run):<12} {cell(kaggle_run):<12} {spent[0]:>13.1f} / {spent[1]:.1f}")


def ruled(times: list[float], act: float, bank: float) -> tuple[str, int | None]:
    """(status, the move that timed out or None) by the toolkit's rule, from a seat's recorded move times."""
    clock = Bank(act, bank)
    for number, seconds in enumerate(times, start=1):
        if clock.times_out(seconds):
            return "TIMEOUT", number
        clock.charge(seconds)
    return "DONE", None


def test_the_fixed_game_is_a_full_board_nobody_wins():
    moves = drawn_game()
    position = Position(Config())
    for column in moves:
        assert not position.is_winning_move(column)
        position = position.played(column)
    assert position.moves == 42


def test_every_profile_ends_as_on_kaggle(tmp_path):
    names = [name for name in PROFILES if name not in ON_THE_EDGE]
    rows = play_both(names, tmp_path, SCALE)
    print_table(rows, SCALE)
    act, bank = 2.0 * SCALE, 60.0 * SCALE
    for name, gate_run, kaggle_run in rows:
        for run in (gate_run, kaggle_run):
            # each referee rules by the one owner of the rule on the times it measured, and ends as Kaggle's rule
            # says the profile ends
            assert run[:2] == ruled(run[2], act, bank), name
            assert run[:2] == EXPECTED[name], name


class ScriptedClock:
    """Time that only moves when the profiled agent says it thought (Kaggle's ``Agent.act`` reads it too)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# Seconds of every move of the profile on the rule's edge, its overhead added: (status, the move that timed out)
EDGE_TIMES = {
    5.0: (Status.TIMEOUT, 21),  # the 20th move draws exactly the 3 s left, which stands; the 21st has none
    5.001: (Status.TIMEOUT, 20),  # 1 ms of overhead a move, as on an idle machine: the 20th needs a little more
    5.34: (Status.TIMEOUT, 18),  # 17 ms a move at 1/20 of the clock, as on a loaded machine: the 18th runs out
}


@pytest.mark.parametrize("seconds", EDGE_TIMES)
@pytest.mark.parametrize("play", [play_native, play_kaggle], ids=["native", "kaggle"])
def test_the_profile_on_the_rules_edge_ends_by_the_rule_on_a_scripted_clock(play, seconds, monkeypatch):
    """The "5 s/move" profile at Kaggle's own 2 s + 60 s, every move taking exactly ``seconds`` on a scripted
    clock: both referees (the gate's native one, and Kaggle's Environment with its ``Agent.act`` timing the
    calls) time it out at the move the owner's rule gives, on the edge and a little past it."""
    clock = ScriptedClock()
    monkeypatch.setattr("kaggle_environments.agent.perf_counter", clock)
    sequence = drawn_game()

    def profiled(obs, config):
        clock.now += seconds
        return sequence[sum(1 for cell in obs.board if cell)]

    def instant(obs, config):
        return sequence[sum(1 for cell in obs.board if cell)]

    played = play([CallablePlayer(profiled, clock), CallablePlayer(instant, clock)], Config().as_dict(), 2.0, 60.0)
    times = played.move_times[0]
    assert times == pytest.approx([seconds] * len(times))
    ending = (played.statuses[0], len(times) if played.statuses[0] == Status.TIMEOUT else None)
    assert ending == ruled(times, 2.0, 60.0) == EDGE_TIMES[seconds]
    assert played.statuses[1] == Status.DONE


@pytest.mark.realclock
def test_the_profile_on_the_rules_edge_ends_as_on_kaggle_on_the_real_clock(tmp_path):
    """The same profile on the real clock (1/20 of Kaggle's), through the gate's processes and Kaggle's
    ``Environment.run``: each referee rules by the owner on the times it measured; the overhead only adds to a
    move, so the profile runs out by its 20th move, earlier the more loaded the machine is."""
    rows = play_both(sorted(ON_THE_EDGE), tmp_path, SCALE)
    print_table(rows, SCALE)
    act, bank = 2.0 * SCALE, 60.0 * SCALE
    for name, gate_run, kaggle_run in rows:
        status, move = EXPECTED[name]
        for run in (gate_run, kaggle_run):
            assert run[:2] == ruled(run[2], act, bank), name
            assert run[0] == status and 1 <= run[1] <= move, (name, run[:2])


@pytest.mark.slow
def test_3_s_a_move_at_kaggles_real_clock_is_done_on_both(tmp_path):
    rows = play_both(["3 s/move"], tmp_path, 1.0)
    print_table(rows, 1.0)
    (name, gate_run, kaggle_run), = rows
    assert gate_run[:2] == kaggle_run[:2] == ruled(kaggle_run[2], 2.0, 60.0) == ("DONE", None)
    assert 18 < sum(t - 2 for t in gate_run[2]) < 30  # ~1 s of bank on each of 21 moves
