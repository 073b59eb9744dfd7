"""One game as the manager describes it: the board's size, the rule played,
and the stones in the order they came, the brain's, the opponent's and dead.

Dead stones are ``BOARD``'s field 3. The protocol: "only if continuous game is
enabled, stone is part of winning line or is forbidden according to renju
rules". A continuous game goes on after a five, and the five's stones stay on
the board, counting for neither side (Rapfi reads them as walls and, having no
walls, drops them). The engine has no neutral cell, so ``Game.board`` gives
each dead stone to a side: the opponent's, where it blocks the brain's rows
as a wall does and the brain never counts on it (at worst the brain defends
against a row that is not there), unless that would complete a row for the
opponent; then the brain's. A dead stone that would complete a row for either
side cannot be given to one: ``ProtocolError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.engine import Board, Geometry, Player, Rule, geometry
from service.engine.geometry import RENJU_MIN_SIDE, default_k


class ProtocolError(Exception):
    """A line the brain cannot take: answered ``ERROR`` where the command
    expects an answer, and otherwise ignored."""


@dataclass
class Game:
    """The board as the manager describes it: the brain's stones and the
    opponent's, in the order they were played, and the dead ones."""

    cols: int
    rows: int
    rule: Rule = Rule.FREESTYLE
    stones: list[tuple[int, bool]] = field(default_factory=list)  # (cell, mine)
    dead: list[int] = field(default_factory=list)

    def cell(self, x: int, y: int) -> int:
        if not (0 <= x < self.cols and 0 <= y < self.rows):
            raise ProtocolError(f"{x},{y} is off the {self.cols}x{self.rows} board")
        return y * self.cols + x

    def is_taken(self, cell: int) -> bool:
        return cell in self.dead or any(taken == cell for taken, _ in self.stones)

    def place(self, x: int, y: int, mine: bool) -> None:
        cell = self.cell(x, y)
        if self.is_taken(cell):
            raise ProtocolError(f"{x},{y} is already taken")
        self.stones.append((cell, mine))

    def place_dead(self, x: int, y: int) -> None:
        cell = self.cell(x, y)
        if self.is_taken(cell):
            raise ProtocolError(f"{x},{y} is already taken")
        self.dead.append(cell)

    def take_back(self, x: int, y: int) -> None:
        cell = self.cell(x, y)
        for index, (taken, _) in enumerate(self.stones):
            if taken == cell:
                del self.stones[index]
                return
        raise ProtocolError(f"{x},{y} is empty: nothing to take back")

    @property
    def shape(self) -> Geometry:
        rule = self.rule
        if rule is Rule.RENJU and min(self.rows, self.cols) < RENJU_MIN_SIDE:
            rule = Rule.EXACT  # renju needs 9x9; its closest rule (Black's six is no win)
        return geometry(self.rows, self.cols, default_k(self.rows, self.cols), rule)

    def board(self) -> Board:
        """The position with the brain to move. The brain plays whichever side
        the stone counts give the move to (X when they are equal); dead stones
        are given out as the module's docstring says."""
        mine = sum(1 << cell for cell, own in self.stones if own)
        theirs = sum(1 << cell for cell, own in self.stones if not own)
        shape = self.shape
        # The side with fewer stones moves: X (under renju, Black) when the
        # counts are equal.
        brain_is_x = mine.bit_count() <= theirs.bit_count()
        for cell in self.dead:
            bit = 1 << cell
            if not shape.has_line(theirs | bit, x=not brain_is_x):
                theirs |= bit
            elif not shape.has_line(mine | bit, x=brain_is_x):
                mine |= bit
            else:
                x, y = cell % self.cols, cell // self.cols
                raise ProtocolError(
                    f"the dead stone at {x},{y} would complete a row for either side"
                )
        if brain_is_x:
            return Board(shape, mine, theirs, Player.X)
        return Board(shape, theirs, mine, Player.O)
