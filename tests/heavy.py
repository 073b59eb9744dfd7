"""Positions that no budget or deadline used in the tests settles, for tests
that need a search to run out: 7x7 boards with k=4, a first-player win whose
every move's distance takes far more nodes than any test spends. (7x7 with
k=5, the default, no longer serves: the engine proves most of its positions
draws within the default budget, the empty board from the book at once.)"""

K = 4


def heavy_board(i: int = 0) -> str:
    """X on cell ``i`` (0 to 47), O on the last cell: a different position per ``i``."""
    return "." * i + "X" + "." * (47 - i) + "O"


def heavy(i: int = 0) -> dict[str, object]:
    """A request body for ``heavy_board(i)``."""
    return {"board": heavy_board(i), "k": K}


# 7x7, k=5, X to move: a draw that takes about 4,000,000 nodes (about a
# second) to prove, more than any test's budget or deadline allows it.
HARD = "......./......./......./..X..../......O/......./......."
