"""The match harness (``bench/match.py``) and its statistics (``bench/sprt.py``):
what decides whether a change to the search or the evaluation is kept."""

from __future__ import annotations

import doctest
import importlib
import json
import math
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

from service.engine import Rule

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module(name: str) -> ModuleType:
    """bench/NAME.py, imported as the scripts import each other."""
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def bench() -> tuple[ModuleType, ModuleType]:
    """bench/sprt.py and bench/match.py."""
    return bench_module("sprt"), bench_module("match")


@pytest.mark.parametrize(
    ("elo", "score"), [(0, 0.5), (100, 0.640065), (-100, 0.359935), (400, 0.909091)]
)
def test_elo_and_score_are_inverse(
    bench: tuple[ModuleType, ModuleType], elo: int, score: float
) -> None:
    sprt, _ = bench
    assert sprt.score_of(elo) == pytest.approx(score, abs=1e-6)
    assert sprt.elo_of(score) == pytest.approx(elo, abs=0.01)


def test_the_pentanomial_counts_pairs(bench: tuple[ModuleType, ModuleType]) -> None:
    sprt, _ = bench
    assert sprt.pentanomial([2.0, 1.0, 1.0, 0.5, 0.0, 1.5]) == (1, 1, 2, 1, 1)
    with pytest.raises(ValueError):
        sprt.pentanomial([0.25])


def test_the_interval_narrows_with_more_pairs_and_holds_the_estimate(
    bench: tuple[ModuleType, ModuleType],
) -> None:
    sprt, _ = bench
    few = sprt.estimate([2.0, 1.0, 1.5, 0.5])
    many = sprt.estimate([2.0, 1.0, 1.5, 0.5] * 25)
    assert few.score == many.score == 0.625
    assert few.elo_low < many.elo_low < many.elo < many.elo_high < few.elo_high
    # An even match of draws and splits: centred on 0, symmetric.
    even = sprt.estimate([1.0, 2.0, 0.0, 1.0] * 10)
    assert even.elo == pytest.approx(0) and even.elo_low == pytest.approx(-even.elo_high)


def simulated(elo: float, pairs: int, seed: int) -> list[float]:
    """Pairs of games between sides ``elo`` apart, no draws."""
    rng = random.Random(seed)
    win = 1 / (1 + 10 ** (-elo / 400))
    return [float(sum(rng.random() < win for _ in range(2))) for _ in range(pairs)]


def first_verdict(sprt: ModuleType, pair_points: list[float]) -> tuple[str | None, int]:
    for played in range(1, len(pair_points) + 1):
        decided = sprt.verdict(pair_points[:played], 0, 50)
        if decided is not None:
            return decided, played
    return None, len(pair_points)


def test_the_sequential_test_keeps_its_error_rates(bench: tuple[ModuleType, ModuleType]) -> None:
    """SPRT(0, 50) at alpha = beta = 0.05 over simulated matches: a change worth
    nothing passes about 5% of the time, one worth +100 nearly always, quickly."""
    sprt, _ = bench
    runs = 200
    verdicts = {
        elo: [first_verdict(sprt, simulated(elo, 3_000, seed)) for seed in range(runs)]
        for elo in (0, 100, -50)
    }
    assert sum(v == "H1" for v, _ in verdicts[0]) <= 0.08 * runs
    assert sum(v == "H1" for v, _ in verdicts[100]) >= 0.97 * runs
    assert sorted(n for _, n in verdicts[100])[runs // 2] <= 60
    assert sum(v == "H1" for v, _ in verdicts[-50]) <= 0.01 * runs
    assert all(n >= sprt.MIN_PAIRS for v in verdicts.values() for _, n in v)


def test_openings_are_read_and_placed_around_the_centre(
    bench: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    _, match = bench
    for name in (
        "decided.txt",
        "balanced.txt",
        "renju.txt",
        "renju64.txt",
        "wide.txt",
        "contested.txt",
    ):
        committed = match.read_openings(BENCH / "openings" / name)
        assert len(committed) >= 32 and len(set(committed)) == len(committed)
        assert all(2 <= len(o) <= 5 and all(abs(d) <= 3 for s in o for d in s) for o in committed)
    path = tmp_path / "openings.txt"
    path.write_text("# a comment\n0,0 1,-1  # the centre, then up right\n\n")
    (opening,) = match.read_openings(path)
    assert opening == ((0, 0), (1, -1))
    assert match.placed(opening, 15) == [(7, 7), (8, 6)]
    assert match.placed(opening, 20) == [(10, 10), (11, 9)]
    path.write_text("0,0 0,0\n")
    with pytest.raises(SystemExit, match="played twice"):
        match.read_openings(path)
    path.write_text("0,0 1\n")
    with pytest.raises(SystemExit, match="dx,dy"):
        match.read_openings(path)


@pytest.mark.slow
def test_a_match_plays_each_opening_with_both_colours(
    bench: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    """The brain against itself, one pair: both games finish, both colours are
    played, each side's replies are timed against its own turn."""
    _, match = bench
    ours = match.Side("brain", match.entrant("brain", tmp_path), turn_ms=100)
    theirs = match.Side("brain", match.entrant("brain", tmp_path), turn_ms=50)
    games = tmp_path / "games.jsonl"
    opening = ((0, 0), (1, 1), (-1, 1))
    tally, decided = match.run_match(
        ours, theirs, 15, Rule.FREESTYLE, [opening], 1, None, 5_000, 0, games
    )
    assert decided is None and len(tally.pair_points) == 1
    assert tally.wins + tally.draws + tally.losses == 2 and not tally.forfeits
    lines = games.read_text().splitlines()
    assert sorted('"ours_first": true' in line for line in lines) == [False, True]
    # Each record tells its opening's length (bench/tune.py fits after it).
    assert [match.opening_stones(json.loads(line)) for line in lines] == [3, 3]
    row = match.summary(tally, ours, theirs, 15, Rule.FREESTYLE, None, None)
    assert row["games"] == 2 and row["turn_ms"] == [100, 50]
    assert row["ours_timing"]["replies"] > 0 and row["their_timing"]["replies"] > 0


def test_one_revision_named_for_both_sides_is_built_once(
    bench: tuple[ModuleType, ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--ours brain@main --opponent brain@main`` (the same engine with other
    INFO lines, say two counts of nodes) builds it once and runs it twice;
    the second side used to fail on the folder the first had made."""
    _, match = bench
    built: list[str] = []

    def build(revision: str, here: Path) -> object:
        built.append(revision)
        return match.Entrant(("true",), {"PYTHONPATH": str(here)}, here)

    monkeypatch.setattr(match, "previous_brain", build)
    monkeypatch.setattr(match, "_BUILT", {})
    first = match.entrant("brain@main", tmp_path)
    second = match.entrant("brain@main", tmp_path)
    other = match.entrant("brain@abc1234", tmp_path)
    assert built == ["main", "abc1234"]
    assert first == second and first.quiet and first.cwd == tmp_path / "main"
    assert other.cwd == tmp_path / "abc1234"


def test_a_busy_machine_spins_while_the_block_runs_and_stops_after(
    bench: tuple[ModuleType, ModuleType],
) -> None:
    _, match = bench
    with match.busy_machine(2) as spinners:
        assert len(spinners) == 2
        assert all(spinner.poll() is None for spinner in spinners)
    assert all(spinner.poll() is not None for spinner in spinners)
    with match.busy_machine(0) as none:
        assert none == []


def test_openings_are_kept_when_the_stronger_side_wins_both_games(
    bench: tuple[ModuleType, ModuleType],
) -> None:
    """``--decided-by``: a pair won twice keeps its opening; 1-1, a draw, or a
    pair not finished does not."""
    _, match = bench
    candidates = [((0, 0),), ((1, 0),), ((2, 0),), ((3, 0),), ((4, 0),)]
    by_pair = {0: 1.0, 1: 2.0, 2: 1.5, 4: 2.0}
    assert match.kept_openings(candidates, by_pair) == [((1, 0),), ((4, 0),)]
    tally = match.Tally()
    tally.pair([1.0, 1.0], 3)
    tally.pair([0.0, 1.0], 0)
    assert tally.by_pair == {3: 2.0, 0: 1.0} and tally.pair_points == [2.0, 1.0]


def test_openings_decided_by_nodes_are_judged_by_a_fixed_node_match(
    bench: tuple[ModuleType, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--decided-by-nodes``: the brain against itself, each side's count of
    nodes sent as INFO max_node, no referee's pause, a turn the count ends
    first; the openings whose pair the larger count won twice are kept."""
    _, match = bench
    candidates = [((0, 0),), ((1, 0),), ((2, 0),)]
    seen: list[tuple[object, ...]] = []

    def played(*args: object) -> tuple[object, None]:
        seen.append(args)
        tally = match.Tally()
        for index, points in enumerate([[1.0, 1.0], [1.0, 0.0], [0.5, 1.0]]):
            tally.pair(points, index)
        return tally, None

    monkeypatch.setattr(match, "run_match", played)
    assert match.decided_by_nodes(candidates, Rule.FREESTYLE, 8000, 2000, 2) == [((0, 0),)]
    (args,) = seen
    strong, weak = args[:2]
    assert strong.infos == ("INFO max_node 8000",) and weak.infos == ("INFO max_node 2000",)
    assert strong.turn_ms == weak.turn_ms == match.NODES_TURN_MS
    assert args[4] == candidates and args[-1] == 0.0


def test_decided_openings_judge_each_position_once_and_stop(
    bench: tuple[ModuleType, ModuleType],
) -> None:
    """``--decided-by``'s rounds: a position comes up again from a later seed
    (here in another order) and is not judged again; a round is judged only
    as far as openings are still wanted; a hopeless judge ends in SystemExit,
    not in an endless loop."""
    _, match = bench
    a, b, c, d = ((0, 0), (1, 0), (0, 1)), ((0, 0), (2, 0)), ((0, 0), (3, 0)), ((0, 0), (4, 0))
    a_again = ((0, 1), (1, 0), (0, 0))  # the same position as a, played in another order
    rounds = {27: [a, b], 28: [a_again, c, d]}
    judged: list[list[tuple[tuple[int, int], ...]]] = []

    def judge(fresh: Sequence[tuple[tuple[int, int], ...]]) -> list[tuple[tuple[int, int], ...]]:
        judged.append(list(fresh))
        return [o for o in fresh if o in (b, c, d)]

    kept, last = match.decided_openings(2, 27, lambda seed: rounds[seed], judge)
    assert kept == [b, c] and last == 28
    assert judged == [[a, b], [c, d]]
    assert match.position(((0, 0), (1, 0), (2, 0))) == match.position(((2, 0), (1, 0), (0, 0)))
    with pytest.raises(SystemExit, match="3 seeds in a row"):
        match.decided_openings(1, 0, lambda seed: [((seed, 0), (seed, 1))], lambda fresh: [])


# -- the gauntlet (bench/gauntlet.py): a change measured against a reference engine ------


def test_a_gain_on_a_few_openings_shows_where_the_two_scores_intervals_overlap(
    bench: tuple[ModuleType, ModuleType],
) -> None:
    """Both entrants lose 20 openings with both colours and split 20; the
    candidate splits 5 of the baseline's lost ones. Apart, the two scores'
    intervals overlap; paired by opening, the gain's excludes nothing gained."""
    sprt, _ = bench
    baseline = [0.0] * 20 + [1.0] * 20
    candidate = [0.0] * 15 + [1.0] * 5 + [1.0] * 20
    apart = sprt.estimate(baseline), sprt.estimate(candidate)
    assert apart[0].elo_high > apart[1].elo_low
    d = sprt.paired_difference(baseline, candidate)
    assert (d.pairs, d.baseline, d.candidate) == (40, 0.25, 0.3125)
    assert d.gain == pytest.approx(0.0625)
    assert 0 < d.gain_low < d.gain < d.gain_high
    assert 0 < d.elo_low < d.elo == pytest.approx(sprt.elo_of(0.3125) - sprt.elo_of(0.25))
    assert d.elo < d.elo_high
    # The other way round, the same gain lost.
    back = sprt.paired_difference(candidate, baseline)
    assert back.gain == pytest.approx(-d.gain) and back.gain_high < 0 < -back.gain_low


def test_the_paired_interval_holds_no_gain_about_95_in_100_times(
    bench: tuple[ModuleType, ModuleType],
) -> None:
    """Two entrants alike, over openings each with a score of its own against
    the reference: the gain's 95% interval holds 0 in 90-99% of 300 runs.
    The openings are nearly all lost or all won, so an interval from the two
    scores' own spreads, unpaired, is too wide: it holds 0 in all 300."""
    sprt, _ = bench
    rng = random.Random(29)
    held = 0
    for _ in range(300):
        openings = [rng.choice([0.05, 0.95]) for _ in range(64)]

        def pairs(chances: list[float]) -> list[float]:
            return [float(sum(rng.random() < p for _ in range(2))) for p in chances]

        d = sprt.paired_difference(pairs(openings), pairs(openings))
        held += d.gain_low <= 0 <= d.gain_high
    assert 270 <= held <= 297


def test_the_paired_elo_is_infinite_at_the_ends_of_the_score(
    bench: tuple[ModuleType, ModuleType],
) -> None:
    """A score of 0 or 1 is an infinite Elo: a gain to it is infinite, and a
    gain from it has no Elo, where a clamped score would give a figure."""
    sprt, _ = bench
    to_all = sprt.paired_difference([0.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0])
    assert to_all.candidate == 1 and to_all.elo == math.inf
    assert math.isfinite(to_all.elo_low) and to_all.elo_high == math.inf
    from_none = sprt.paired_difference([0.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    assert from_none.gain > 0 and math.isnan(from_none.elo)
    down = sprt.paired_difference([1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0])
    assert down.elo_low == -math.inf and math.isfinite(down.elo)


def test_the_paired_difference_wants_the_same_openings(
    bench: tuple[ModuleType, ModuleType],
) -> None:
    sprt, _ = bench
    with pytest.raises(ValueError):
        sprt.paired_difference([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        sprt.paired_difference([], [])
    same = sprt.paired_difference([0.0, 2.0, 1.0], [0.0, 2.0, 1.0])
    assert same.gain == same.elo == 0 and same.gain_low == pytest.approx(-same.gain_high)


def test_the_gauntlet_plays_every_entrant_on_each_opening_before_the_next(
    bench: tuple[ModuleType, ModuleType],
) -> None:
    gauntlet = bench_module("gauntlet")
    assert gauntlet.jobs(2, 2) == [
        (0, 0, True), (0, 0, False), (0, 1, True), (0, 1, False),
        (1, 0, True), (1, 0, False), (1, 1, True), (1, 1, False),
    ]  # fmt: skip
    assert [who for _, who, _ in gauntlet.jobs(1, 3)] == [0, 0, 1, 1, 2, 2]
    _, match = bench
    baseline, first, second = match.Tally(), match.Tally(), match.Tally()
    baseline.pair([1.0, 0.0], 0)
    baseline.pair([0.0, 0.0], 1)
    first.pair([1.0, 1.0], 1)  # opening 0 not finished by every entrant: left out
    first.pair([1.0, 0.0], 0)
    second.pair([0.0, 0.0], 1)
    assert gauntlet.complete_pairs([baseline, first]) == [[1.0, 0.0], [1.0, 2.0]]
    assert gauntlet.complete_pairs([baseline, first, second]) == [[0.0], [2.0], [0.0]]
    line = gauntlet.progress([baseline, first, second])
    assert line.startswith("   1 openings  baseline 0.000  | 1: 1.000, gain +1.000")
    assert "| 2: 0.000, gain +0.000" in line
    assert "Elo undefined" in line and "nan" not in line  # the baseline scored 0


def test_the_gauntlet_gives_each_entrant_its_own_info_lines() -> None:
    gauntlet = bench_module("gauntlet")
    assert gauntlet.entrant_infos(["1:thread_num 2", "1: max_memory 0 ", "0:rule 1"], 3) == [
        ("INFO rule 1",),
        ("INFO thread_num 2", "INFO max_memory 0"),
        (),
    ]
    for wrong in ["2:thread_num 2", "thread_num 2", "1:", "-1:rule 1"]:
        with pytest.raises(SystemExit):
            gauntlet.entrant_infos([wrong], 2)


def test_a_fixed_count_of_nodes_goes_to_every_side_of_the_gauntlet() -> None:
    """``--nodes N``: every entrant and the reference get ``INFO max_node N``
    (before an entrant's own lines); without it, nobody does."""
    gauntlet = bench_module("gauntlet")
    entrants, reference = gauntlet.side_infos(["1:thread_num 2"], 3, 100000)
    assert entrants == [
        ("INFO max_node 100000",),
        ("INFO max_node 100000", "INFO thread_num 2"),
        ("INFO max_node 100000",),
    ]
    assert reference == ("INFO max_node 100000",)
    assert gauntlet.side_infos(["0:rule 1"], 2, 0) == ([("INFO rule 1",), ()], ())


def test_an_earlier_runs_baseline_games_stand_for_it_only_where_they_match(
    bench: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    """``--baseline-games``: a record stands for the baseline's game only when
    it is the same brain with the same INFO lines (its count of nodes), board,
    rule and opening; a game missing, or an opening of another file, stops the
    run (SystemExit) instead of scoring fewer games."""
    gauntlet = bench_module("gauntlet")
    _, match = bench
    openings = [((0, 0), (1, 0)), ((0, 1),)]
    side = match.Side("brain@abc1234", match.Entrant(("true",)), 60000, ("INFO max_node 500",))

    def record(pair: int, first: bool, **changed: object) -> dict[str, object]:
        stones = match.placed(openings[pair], 15)
        return {
            "ours": "brain@abc1234", "infos": ["INFO max_node 500"], "theirs": "r",
            "size": 15, "rule": "freestyle", "pair": pair, "ours_first": first,
            "moves": [list(s) for s in stones] + [[0, 0]], "winner": 0 if first else 1,
            "forfeit": None, "replies_ms": [[3.0], []], **changed,
        }  # fmt: skip

    games = [record(p, f) for p in (0, 1) for f in (True, False)]
    others = [
        record(0, True, infos=["INFO max_node 400"], winner=None),
        record(0, True, ours="brain@main", winner=None),
        record(0, True, entrant=1, winner=None),
        record(0, True, size=20, winner=None),
    ]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*games, *others]))
    found = gauntlet.recorded_games(path, side, 15, match.Rule.FREESTYLE, openings, 2)
    assert sorted(found) == [(0, False), (0, True), (1, False), (1, True)]
    assert found[(0, True)].winner == 0 and found[(0, False)].winner == 1
    assert found[(1, True)].moves[-1] == (0, 0) and found[(1, True)].replies_ms == [[3.0], []]
    tally = match.Tally()
    assert [tally.add(found[(0, first)], first) for first in (True, False)] == [1.0, 1.0]
    with pytest.raises(SystemExit, match="2 of the 6 games"):
        gauntlet.recorded_games(path, side, 15, match.Rule.FREESTYLE, [*openings, ((2, 2),)], 3)
    path.write_text("".join(json.dumps(r) + "\n" for r in games[1:]))
    with pytest.raises(SystemExit, match="opening 0"):
        gauntlet.recorded_games(path, side, 15, match.Rule.FREESTYLE, openings, 2)
    with pytest.raises(SystemExit, match="not played from this --openings file"):
        gauntlet.recorded_games(path, side, 15, match.Rule.FREESTYLE, openings[::-1], 2)


def test_the_games_report_counts_by_colour_and_finds_where_replies_turned_instant() -> None:
    games_report = bench_module("games_report")
    assert games_report.our_colour(3, True) == "O" and games_report.our_colour(2, True) == "X"
    assert games_report.instant_from([800.0, 5.0, 900.0, 2.0, 1.0]) == 3
    assert games_report.instant_from([800.0, 900.0]) is None
    openings = [((0, 0), (1, 0), (2, 0))]  # three stones: O moves first after them
    records = [
        # Ours first (O): lost, the opponent instant from its second reply.
        {"ours": "b", "pair": 0, "ours_first": True, "moves": [[0, 0]] * 9, "winner": 1,
         "replies_ms": [[700.0, 700.0, 700.0], [900.0, 3.0, 2.0]]},
        # Ours second (X): won.
        {"ours": "b", "pair": 0, "ours_first": False, "moves": [[0, 0]] * 11, "winner": 1,
         "replies_ms": [[900.0, 900.0], [700.0, 700.0]]},
        # The same build with its own INFO line, a gauntlet's entrant 1: a draw
        # as X, not counted lost.
        {"ours": "b", "infos": ["INFO thread_num 2"], "entrant": 1, "pair": 0,
         "ours_first": False, "moves": [[0, 0]] * 225, "winner": None,
         "replies_ms": [[900.0, 900.0], [3.0, 3.0]]},
    ]  # fmt: skip
    assert games_report.report(records, openings) == [
        "b as O: 1 games, 0 won, 0 drawn, 1 lost; median length 9 stones; of the 1 lost, 1 "
        "ended in instant replies of the opponent's, from its reply number 2 (median)",
        "b as X: 1 games, 1 won, 0 drawn, 0 lost; median length 11 stones",
        "b (INFO thread_num 2) #1 as X: 1 games, 0 won, 1 drawn, 0 lost; median length 225 stones",
    ]


@pytest.mark.parametrize(
    "name", ["sprt", "gauntlet", "games_report", "blunders", "horizon", "match", "tune"]
)
def test_the_examples_in_the_bench_scripts_hold(name: str) -> None:
    """Their doctests (bench/ is outside pytest's doctest paths)."""
    result = doctest.testmod(bench_module(name))
    assert result.failed == 0
