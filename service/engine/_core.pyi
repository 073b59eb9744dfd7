"""Type stubs for the compiled search core (``core/python/``)."""

from collections.abc import Sequence

STOP_NONE: int
STOP_BUDGET: int
STOP_DEADLINE: int
STOP_CANCELLED: int
STOP_DECIDED: int
BUCKET_BYTES: int
BUCKET_SLOTS: int
BIG_MAX_SIDE: int
SMALL_MAX_CELLS: int
MAX_BUDGET: int
MAX_TABLE_BYTES: int
MAX_PROOF_THREADS: int
PATTERNS: int
KINDS: int

class Shape:
    def __init__(
        self,
        rows: int,
        cols: int,
        k: int,
        tag: int,
        lines: Sequence[Sequence[int]],
        symmetries: Sequence[Sequence[int]],
        order: Sequence[int],
        flanks: Sequence[Sequence[int]] | None = None,
    ) -> None: ...

class Table:
    def __init__(self, size_bytes: int) -> None: ...
    def stats(self) -> tuple[int, int, int, int, int, int]: ...
    def ages(self) -> tuple[int, int, int, int, int, int, int, int]: ...
    def clear(self) -> None: ...

class Context:
    def __init__(self) -> None: ...

class Control:
    def __init__(self, deadline: float | None = None) -> None: ...
    def cancel(self) -> None: ...
    def shorten(self, deadline: float, /) -> None: ...
    @property
    def deadline(self) -> float | None: ...
    @property
    def cancelled(self) -> bool: ...

def analyze(
    shape: Shape,
    table: Table,
    x: int,
    o: int,
    x_to_move: bool,
    budget: int,
    outcome_budget: int,
    distance_budget: int,
    control: Control | None = None,
    threads: int = 1,
) -> tuple[list[tuple[int, float, bool, int, tuple[int, ...], bool]], int, int, int]: ...
def store(
    shape: Shape, table: Table, x: int, o: int, x_to_move: bool, lower: int, upper: int, /
) -> None: ...
def proven_positions(
    shape: Shape, table: Table, max_marks: int, /
) -> list[tuple[int, int, bool, int, int]]: ...
def threat_win(shape: Shape, x: int, o: int, x_to_move: bool, nodes: int, /) -> tuple[int, int]: ...
def quiet_threat_win(
    shape: Shape, x: int, o: int, x_to_move: bool, nodes: int, /
) -> tuple[int, int]: ...
def heuristic(shape: Shape, x: int, o: int, x_to_move: bool, cell: int = -1, /) -> float: ...
def pairing(shape: Shape, x: int, o: int, x_to_move: bool, /) -> list[tuple[int, int]] | None: ...
def can_win(
    shape: Shape,
    table: Table,
    x: int,
    o: int,
    x_to_move: bool,
    attacker_x: bool,
    nodes: int,
    control: Control | None = None,
    /,
) -> tuple[bool | None, int]: ...
def analyze_big(
    rows: int,
    cols: int,
    k: int,
    rule: int,
    table: Table,
    x: bytes,
    o: bytes,
    x_to_move: bool,
    budget: int,
    control: Control | None = None,
    max_depth: int = 0,
    context: Context | None = None,
) -> tuple[
    list[tuple[int, float, bool, int, tuple[int, ...], bool]], int, int, int, int, int | None
]: ...
def big_board(
    rows: int, cols: int, k: int, rule: int, moves: Sequence[int], /
) -> tuple[
    list[int | tuple[tuple[int, int, int, int], tuple[int, int, int, int], int, int]],
    tuple[list[int], ...],
    int,
    tuple[int, int],
]: ...
def big_candidates(
    rows: int, cols: int, k: int, rule: int, moves: Sequence[int], /
) -> list[tuple[int, int]]: ...
def big_threat_win(
    rows: int, cols: int, k: int, rule: int, x: bytes, o: bytes, x_to_move: bool, nodes: int, /
) -> tuple[int, int, tuple[int, ...], int]: ...
def renju_first_forbidden(
    rows: int, cols: int, moves: Sequence[int], /
) -> tuple[int, int] | None: ...
def renju_forbidden(rows: int, cols: int, x: bytes, o: bytes, /) -> list[tuple[int, int]]: ...
def set_evaluation(
    pattern_worth: Sequence[int],
    kind_bonus: Sequence[int],
    pattern_worth_other: Sequence[int],
    kind_bonus_other: Sequence[int],
    tempo: int,
    correction: Sequence[int] = ...,
    correction_other: Sequence[int] = ...,
    /,
) -> None: ...
def set_threat_values(values: Sequence[int], /) -> None: ...
def set_network(
    mover: Sequence[int],
    other: Sequence[int],
    mask: Sequence[int],
    bias: Sequence[int],
    out: Sequence[int],
    out_bias: int,
    linear: Sequence[int],
    /,
) -> None: ...
def run_brain(in_fd: int, out_fd: int, /) -> None: ...
