"""Positions that no budget or deadline used in the tests settles, for tests
that need a search to run out: 7x7 boards with k=4, a first-player win whose
every move's distance takes far more nodes than any test spends. (7x7 with
k=5, the default, no longer serves: the engine proves most of its positions
draws within the default budget, the empty board from the book at once.)"""

K = 4

# The largest node budget the service accepts (TTT_NODE_BUDGET): a heavy
# search needs about a minute or more to spend it (12-22 M nodes/s alone on a
# core at f50ad4d), so with it a test's search runs until its deadline or its
# client gives up. 100,000,000 no longer did: alone on a core, a heavy search
# ended by that budget in about 4 s.
LONG_BUDGET = 1_000_000_000


def heavy_board(i: int = 0) -> str:
    """X on cell ``i`` (0 to 47), O on the last cell: a different position per ``i``."""
    return "." * i + "X" + "." * (47 - i) + "O"


def heavy(i: int = 0) -> dict[str, object]:
    """A request body for ``heavy_board(i)``."""
    return {"board": heavy_board(i), "k": K}


# 7x7, k=5, X to move: a draw that takes about 4,000,000 nodes (about a
# second) to prove, more than any test's budget or deadline allows it.
HARD = "......./......./......./..X..../......O/......./......."
