"""What the board shows and does: the game against the agent, the loaded game, the values, the exports.

One :class:`BoardSession` per server, shared by the request threads under one lock. The agent answers in
a thread of its own (its process may take up to Kaggle's clock), so requests never wait for it; a move it
makes after the human undid or started anew is dropped. In ``review`` mode the board shows the loaded
game at ``cursor``; a click on a column there plays on from that position against the agent. A session
made with ``start`` moves (``--position``) plays from that position, the human to move there, and "New game"
goes back to it: the position is what the user came to probe.
"""

from __future__ import annotations

import json
import queue
import threading
from typing import Any, Callable

from connectx_toolkit.agents.core import Config

from connectx_toolkit.analysis.games import Game
from connectx_toolkit.analysis.labelling import GameAnalysis
from connectx_toolkit.analysis.positions import move_string
from connectx_toolkit.board.game import BoardGame, Ending
from connectx_toolkit.board.values import ValueService
from connectx_toolkit.evaluation.seats.agent_move import AgentMove, UnsupportedAction
from connectx_toolkit.evaluation.seats.agent_process import AgentProcess
from connectx_toolkit.evaluation.referees.bank import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, Bank
from connectx_toolkit.evaluation.referees.played import Status, kaggle_configuration
from connectx_toolkit.evaluation.referees.native import checked_action
from connectx_toolkit.outcomes import Outcome

__all__ = ["BoardSession", "move_label"]



def move_label(analysis: GameAnalysis | None, ply: int) -> str:
    """A move's analysis label: kept, outcome-losing, unknown, or pending while the game is labelled."""
    if analysis is None:
        return "pending"
    label = analysis.moves[ply]
    return "outcome-losing" if label.loses_outcome else "kept" if label.kept_outcome else "unknown"


class BoardSession:
    """The state behind the page; every public method returns the new :meth:`state`."""

    def __init__(self, config: Config, seat: AgentProcess, agent_name: str, *, act_timeout: float = DEFAULT_ACT_TIMEOUT,
                 overage: float = DEFAULT_OVERAGE, values: ValueService | None = None, loaded: Game | None = None,
                 source: str = "", start: tuple[int, ...] = ()) -> None:
        self.config = config
        self.seat = seat
        self.agent_name = agent_name
        self.act_timeout = act_timeout
        self.overage = overage
        self.values = values
        self.loaded = loaded
        self.source = source
        self.lock = threading.RLock()
        self._closed = False
        self._seat_jobs: queue.Queue[Callable[[], None]] = queue.Queue()
        threading.Thread(target=self._seat_thread, name="board-agent", daemon=True).start()
        self.start = tuple(start)
        self.game = BoardGame(config, list(self.start))
        if self.game.ending() is not None:
            raise ValueError(f"the game is over after the start moves {self.start}")
        self.human_seat = self.game.to_move
        self.mode = "review" if loaded is not None else "play"
        self.cursor = 0
        self.generation = 0
        self.serial = 0  # numbers each state snapshot: the page never renders an older one over a newer one
        self.thinking = False
        self.fresh_agent = True
        self.bank = Bank(act_timeout, overage)  # the agent's clock in the game being played
        self.last_seconds: float | None = None
        if loaded is not None and values is not None:
            values.label(loaded)
        self._changed()

    # -- what the page sees -------------------------------------------------------------------------

    def shown_moves(self) -> list[int]:
        return list(self.loaded.moves[:self.cursor]) if self.mode == "review" and self.loaded else self.game.moves

    def shown_game(self) -> BoardGame:
        return BoardGame(self.config, self.shown_moves()) if self.mode == "review" else self.game

    def state(self) -> dict[str, Any]:
        with self.lock:
            self.serial += 1
            shown = self.shown_game()
            ending = shown.ending()
            if ending is not None:
                status = "over"
            elif self.mode == "play" and (self.thinking or shown.to_move != self.human_seat):
                status = "agent"
            else:
                status = "human"
            return {
                "serial": self.serial, "config": self.config.as_dict(), "agent": self.agent_name, "human_seat": self.human_seat,
                "mode": self.mode, "board": shown.board(), "moves": list(shown.moves), "to_move": shown.to_move,
                "start": move_string(self.start),
                "state": status, "message": self._message(shown, ending, status),
                "ending": None if ending is None else {"winner": ending.winner, "line": [list(c) for c in ending.line],
                                                       "reason": ending.reason},
                "values": self._values(shown, ending),
                "game": self._loaded_state(),
                "clock": {"act_timeout": self.act_timeout, "overage_left": round(max(0.0, self.bank.left), 3),
                          "last_seconds": None if self.last_seconds is None else round(self.last_seconds, 3)},
            }

    def _message(self, shown: BoardGame, ending: Ending | None, status: str) -> str:
        if ending is not None:
            if ending.winner is None:
                return f"Draw: {ending.reason}."
            who = self._seat_name(ending.winner)
            return f"{who} won: {ending.reason}."
        if self.mode == "review":
            return f"Move {self.cursor} of {len(self.loaded.moves) if self.loaded else 0}: click a column to play on from here."
        if status == "agent":
            return f"{self.agent_name} is thinking..."
        if self.start and shown.moves == list(self.start):
            return f"Position {move_string(self.start)}: your move ({('yellow', 'red')[shown.to_move]}), click a column."
        return "Your move: click a column."

    def _seat_name(self, seat: int) -> str:
        if self.mode == "review" and self.loaded is not None:
            return self.loaded.agents[seat] or f"player {seat + 1}"
        return "You" if seat == self.human_seat else self.agent_name

    def _values(self, shown: BoardGame, ending: Ending | None) -> dict[str, Any]:
        if not self.config.is_standard or self.values is None:
            return {"exact": False, "note": "No exact values on this board: the analysis solves 6x7, four in a row only."
                    if not self.config.is_standard else "Values are off.", "columns": None}
        cells = shown.board()
        solved = None if ending is not None else self.values.columns(tuple(shown.moves))
        columns = []
        for column in range(self.config.columns):
            if cells[column] != 0 or ending is not None:
                columns.append({"value": "full" if cells[column] else "pending", "score": None})
            elif solved is None:
                columns.append({"value": "pending", "score": None})
            else:
                value = solved[column]
                columns.append({"value": value.outcome, "score": value.score, "low": value.low, "high": value.high})
        side = ("yellow", "red")[shown.to_move]
        note = ("Game over." if ending is not None else "Solving..." if solved is None else
                f"Each column's value for {side} to move: win / draw / loss, with the exact score on Pons' scale "
                "when solved (? = not solved within the budget).")
        if self.values.error:
            note = f"The solver failed: {self.values.error}"
        return {"exact": True, "note": note, "columns": columns}

    def _loaded_state(self) -> dict[str, Any] | None:
        if self.loaded is None:
            return None
        analysis = self.values.analysis(self.loaded.game_id) if self.values is not None else None
        first = analysis.first_losing.ply if analysis is not None and analysis.first_losing is not None else None
        moves = [{"ply": ply, "column": column, "agent": self.loaded.mover(ply), "label": move_label(analysis, ply),
                  "first_losing": ply == first}
                 for ply, column in enumerate(self.loaded.moves)]
        return {"source": self.source, "game_id": self.loaded.game_id, "agents": list(self.loaded.agents),
                "outcomes": list(self.loaded.outcomes), "opening_plies": self.loaded.opening_plies, "moves": moves,
                "cursor": self.cursor, "first_losing": first, "labelled": analysis is not None or self.values is None}

    # -- what the page does -------------------------------------------------------------------------

    def move(self, column: int) -> dict[str, Any]:
        with self.lock:
            if self.mode == "review":
                if self.shown_game().ending() is not None:
                    raise ValueError("the game is over at this move")
                self._play_on()
            if self.thinking or self.game.to_move != self.human_seat:
                raise ValueError("it is the agent's move")
            self.game.play(column)
            self._changed()
            return self.state()

    def undo(self) -> dict[str, Any]:
        with self.lock:
            floor = len(self.start)  # the position the board opened at stays: undo takes back what was played since
            if self.mode == "play" and len(self.game.moves) > floor:
                self.game.forfeit = None
                self.game.moves.pop()
                while len(self.game.moves) > floor and self.game.to_move != self.human_seat:
                    self.game.moves.pop()
                self._changed(cancel=True)
            return self.state()

    def new_game(self) -> dict[str, Any]:
        with self.lock:
            self.mode = "play"
            self.game = BoardGame(self.config, list(self.start))
            self._restart_clock()
            self._changed(cancel=True)
            return self.state()

    def swap_seats(self) -> dict[str, Any]:
        with self.lock:
            self.human_seat ^= 1
            if self.mode == "play" and self.game.ending() is None:
                self._changed(cancel=True)
            return self.state()

    def goto(self, ply: int) -> dict[str, Any]:
        with self.lock:
            if self.loaded is None:
                raise ValueError("no game is loaded")
            self.mode = "review"
            self.cursor = max(0, min(len(self.loaded.moves), ply))
            self._changed(cancel=True)
            return self.state()

    def step(self, delta: int) -> dict[str, Any]:
        with self.lock:
            if self.loaded is None:
                raise ValueError("no game is loaded")
            return self.goto((self.cursor if self.mode == "review" else len(self.loaded.moves)) + delta)

    def play_on(self) -> dict[str, Any]:
        with self.lock:
            if self.mode == "review":
                self._play_on()
                self._changed(cancel=True)
            return self.state()

    def export(self) -> dict[str, str]:
        """The shown line as a results file of one game (``--analyze-file``, ``--board --game`` read it) and
        as a string of 1-based columns (the notation of Pons' solver)."""
        with self.lock:
            shown = self.shown_game()
            moves = list(shown.moves)
            ending = shown.ending()
            if self.mode == "review" and self.loaded is not None:
                agents = list(self.loaded.agents)
                opening = list(self.loaded.moves[:min(self.loaded.opening_plies, len(moves))])
            else:
                agents = ["human", self.agent_name] if self.human_seat == 0 else [self.agent_name, "human"]
                opening = []
            statuses = [Status.DONE, Status.DONE]
            if ending is None:
                outcomes, note = [Outcome.DRAW, Outcome.DRAW], f"unfinished: exported from the board at ply {len(moves)}"
            elif ending.winner is None:
                outcomes, note = [Outcome.DRAW, Outcome.DRAW], ""
            else:
                outcomes = [Outcome.WIN, Outcome.WIN]
                outcomes[1 - ending.winner] = Outcome.LOSS
                note = "" if self.game.forfeit is None or self.mode == "review" else ending.reason
                if self.mode == "play" and self.game.forfeit is not None:  # the reason starts with the outcome (_apply)
                    forfeited = Outcome(self.game.forfeit.reason.split(":")[0])
                    outcomes[1 - ending.winner], statuses[1 - ending.winner] = forfeited, forfeited.status
            header = {"kind": "run", "format": 1, "agents": agents, "games": 1, "config": self.config.as_dict(),
                      "seed": 0, "act_timeout": self.act_timeout, "overage": self.overage, "openings": None,
                      "sprt": None, "alpha": 0.05, "beta": 0.05, "suite": [opening]}
            record = {"kind": "game", "game_id": 0, "agents": agents, "opening": opening, "moves": moves,
                      "statuses": statuses, "outcomes": outcomes, "move_times": [[], []],
                      "config": self.config.as_dict(), "seed": 0, "swapped": False, "note": note}
            lines = (json.dumps(header, separators=(",", ":")) + "\n" + json.dumps(record, separators=(",", ":")) + "\n")
            return {"results": lines, "columns": "".join(str(c + 1) for c in moves)}

    # -- inside -------------------------------------------------------------------------------------

    def _play_on(self) -> None:
        self.game = BoardGame(self.config, self.shown_moves())
        self.human_seat = self.game.to_move
        self.mode = "play"
        self._restart_clock()

    def _restart_clock(self) -> None:
        self.fresh_agent = True
        self.bank = Bank(self.act_timeout, self.overage)
        self.last_seconds = None

    def _changed(self, cancel: bool = False) -> None:
        """After any change: forget a move the agent is still thinking about, ask for values, let it move."""
        if cancel and self.thinking:
            self.generation += 1
            self.thinking = False
        shown = self.shown_game()
        if self.values is not None and self.config.is_standard and shown.ending() is None:
            self.values.ask(tuple(shown.moves))
        if self.mode == "play" and not self.thinking and self.game.ending() is None \
                and self.game.to_move != self.human_seat:
            self.thinking = True
            generation = self.generation
            self._seat_jobs.put(lambda: self._agent_turn(generation))

    def start_agent(self) -> None:
        """Start the agent's process now (on the seat's thread); RuntimeError if it cannot start."""
        done: queue.Queue[BaseException | None] = queue.Queue()

        def start() -> None:
            try:
                self.seat.new_game()
                done.put(None)
            except RuntimeError as error:
                done.put(error)

        self._seat_jobs.put(start)
        error = done.get()
        if error is not None:
            raise error
        self.fresh_agent = False

    def close(self) -> None:
        """Stop the agent's process (on the seat's thread, which then ends); again: nothing."""
        if self._closed:
            return
        self._closed = True
        finished = threading.Event()

        def close() -> None:
            self.seat.close()
            finished.set()
            raise SystemExit

        self._seat_jobs.put(close)
        finished.wait(10)

    def _seat_thread(self) -> None:
        """Every call into the seat runs here: its process dies with the thread that started it."""
        while True:
            job = self._seat_jobs.get()
            try:
                job()
            except SystemExit:
                return

    def _agent_turn(self, generation: int) -> None:
        with self.lock:
            if generation != self.generation:
                return
            fresh, self.fresh_agent = self.fresh_agent, False
            observation = {"board": self.game.board(), "mark": self.game.to_move + 1, "step": len(self.game.moves),
                           "remainingOverageTime": self.bank.left}
            deadline = self.bank.deadline
        configuration = kaggle_configuration(self.config.as_dict(), self.act_timeout)
        try:
            if fresh:
                self.seat.new_game()
            answer = self.seat.act(observation, configuration, deadline)
        except RuntimeError as error:
            answer = AgentMove(None, 0.0, str(error))
        with self.lock:
            if generation != self.generation:
                return
            self.thinking = False
            self._apply(answer)
            self._changed()

    def _apply(self, answer: AgentMove) -> None:
        """The referee's ruling on the agent's answer, as Kaggle's ConnectX interpreter rules."""
        self.last_seconds = answer.seconds
        late = answer.timed_out or self.bank.times_out(answer.seconds)
        self.bank.charge(answer.seconds)
        agent, human = 1 - self.human_seat, self.human_seat
        if late:
            self.game.forfeit = Ending(human, (), f"{Outcome.TIMEOUT}: {self.agent_name} ran out of time")
            return
        if answer.error:
            self.game.forfeit = Ending(human, (), f"{Outcome.ERROR}: {self.agent_name} failed: {answer.error}")
            return
        # Kaggle's action check: None is column 0; numpy integers, bools, strings, negatives and floats are refused
        action = checked_action(answer.action)
        if type(action) is not int or not self.game.can_play(action):
            kind = answer.action.type_name if isinstance(answer.action, UnsupportedAction) else type(answer.action).__name__
            shown = answer.action if type(answer.action) is int else f"a {kind}"
            self.game.forfeit = Ending(human, (), f"{Outcome.INVALID}: {self.agent_name} played {shown}, not a legal column")
            return
        assert agent == self.game.to_move
        self.game.play(action)
