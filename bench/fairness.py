"""Fair share: one client cannot take the service from everyone else.

Run with ``make bench`` or ``python bench/fairness.py``. Every server is the
real one (``python -m service``, production defaults unless a scenario says
otherwise) on a free loopback port, with both CPUs. Each client has an address
of its own: it connects from ``127.0.0.N`` (Linux routes all of 127/8 to the
loopback), so the server tells clients apart by their peer address exactly as
it does in production. All traffic stays on 127.0.0.1 and every scenario ends
by itself.

Scenarios and targets:

1. ``flood``: client A sends 60 concurrent ``POST /v1/analysis`` on distinct
   15x15 positions; 0.2 s later client B sends 30 light ``POST /v1/move``
   (distinct 5x5 positions), one after another. Target: at least 29 of B's 30
   get 200, and A gets 429 (not 503) for what it sends beyond its share. The
   same scenario on a server without per-client limits
   (``TTT_RATE_LIMIT_RATE=0 TTT_CLIENT_SEARCHES=0``) is the "before" column.
2. ``polite``: ten clients each send one move a second for 20 s (distinct
   positions on 3x3 to 6x6 boards, a person's pace at the playground) while
   an eleventh keeps 60 15x15 analyses in flight the whole time. Target: no
   refusal of any polite request.
3. ``clients``: at least 100,000 requests, each from a distinct address
   (wrk on one connection, an ``X-Forwarded-For`` counting up, with
   ``TTT_TRUSTED_PROXIES=127.0.0.1``: the bench plays the ingress), in runs of
   3 s. Target: the server's resident memory grows by at most 8 MiB from the
   first reading past 20,000 clients to the last (the buckets are bounded at
   ``TTT_RATE_LIMIT_CLIENTS``, 10,000 by default).
4. ``replicas``: two servers share one ``redis-server``; one client sends 80
   cheap requests alternately to both, with a bucket of 40 units that refills
   at 0.1 a second. Target: 40 to 42 answered in all (one limit), where two
   servers without Redis answer 80.

Prints a table per scenario, then one JSON object as the last line (also
written to ``bench/results/fairness.json``); exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from local_server import REPO, LocalServer, require

sys.path.insert(0, str(REPO))  # the tests' redis-server and limit settings

from service.engine import Board
from tests.redis_server import redis_server
from tests.server import NO_CLIENT_LIMITS

RESULTS = REPO / "bench" / "results"
FLOODER = "127.0.0.2"
LIGHT = "127.0.0.3"
POLITE = [f"127.0.0.{10 + i}" for i in range(10)]
SEED = 31


def positions(
    rows: int, k: int, count: int, marks: tuple[int, int], rng: random.Random
) -> list[str]:
    """``count`` distinct unfinished positions, reached by random play near the centre."""
    found: dict[str, None] = {}
    centre = rows // 2
    near = [
        r * rows + c
        for r in range(rows)
        for c in range(rows)
        if abs(r - centre) <= 3 and abs(c - centre) <= 3
    ]
    while len(found) < count:
        board = Board.parse("." * rows * rows, rows=rows, cols=rows, k=k)
        for _ in range(rng.randint(*marks)):
            free = [cell for cell in near if cell in board.empty_cells()]
            board = board.play(rng.choice(free))
            if board.is_game_over():
                break
        if not board.is_game_over():
            found[board.format()] = None
    return list(found)


def client_from(address: str, url: str, connections: int = 100) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(
        local_address=address,
        limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
    )
    return httpx.AsyncClient(transport=transport, base_url=url, timeout=60)


@dataclass
class Tally:
    statuses: Counter[int]
    reasons: Counter[str]
    details: Counter[str]  # of other refusals (503), by their problem's detail

    @classmethod
    def new(cls) -> Tally:
        return cls(Counter(), Counter(), Counter())

    def add(self, response: httpx.Response) -> None:
        self.statuses[response.status_code] += 1
        if response.status_code == 429:
            self.reasons[response.json().get("reason", "?")] += 1
        elif response.status_code != 200:
            self.details[response.json().get("detail", response.text[:80])] += 1

    def figures(self) -> dict[str, Any]:
        return {
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "reasons_429": dict(self.reasons),
            "other_refusals": dict(self.details),
        }


async def flood(url: str, rng: random.Random) -> tuple[Tally, Tally]:
    big = positions(15, 5, 60, (4, 10), rng)
    light = positions(5, 4, 30, (2, 6), rng)
    flooder, polite = Tally.new(), Tally.new()
    async with client_from(FLOODER, url) as a, client_from(LIGHT, url) as b:

        async def ask(board: str) -> None:
            flooder.add(await a.post("/v1/analysis", json={"board": board}))

        flooding = [asyncio.create_task(ask(board)) for board in big]
        await asyncio.sleep(0.2)
        for board in light:
            polite.add(await b.post("/v1/move", json={"board": board, "k": 4}))
        await asyncio.gather(*flooding)
    return flooder, polite


async def polite_and_flood(url: str, seconds: float, rng: random.Random) -> tuple[Tally, Tally]:
    # Boards whose searches take at most a few hundred ms (7x7 k=5 takes ~0.55 s:
    # ten people on it at a move a second would need more than two cores alone).
    shapes = [(3, 3), (4, 3), (5, 4), (6, 4), (6, 5)]
    boards = {
        address: positions(rows, k, int(seconds) + 1, (1, 4), rng)
        for address, (rows, k) in zip(POLITE, shapes * 2, strict=True)
    }
    ks = {address: k for address, (_, k) in zip(POLITE, shapes * 2, strict=True)}
    big = positions(15, 5, 400, (4, 10), rng)
    flooder, polite = Tally.new(), Tally.new()
    stop = time.monotonic() + seconds

    async def person(address: str) -> None:
        async with client_from(address, url, 2) as http:
            await asyncio.sleep(rng.random())  # people do not move in step
            for board in boards[address]:
                if time.monotonic() >= stop:
                    return
                asked = time.monotonic()
                polite.add(await http.post("/v1/move", json={"board": board, "k": ks[address]}))
                await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - asked)))

    async def flood_forever(http: httpx.AsyncClient, start: int) -> None:
        i = start
        while time.monotonic() < stop:
            flooder.add(await http.post("/v1/analysis", json={"board": big[i % len(big)]}))
            i += 60

    async with client_from(FLOODER, url) as http:
        await asyncio.gather(
            *(person(address) for address in POLITE),
            *(flood_forever(http, i) for i in range(60)),
        )
    return flooder, polite


# wrk, one client address per request: the counter starts at the offset given
# after "--" and counts up, so successive runs never repeat an address.
DISTINCT_LUA = """
local i = 0
local body = '{"board":"X...O...."}'
local headers = {["Content-Type"] = "application/json"}
non2xx = 0
function init(args) i = tonumber(args[1]) end
function request()
  headers["X-Forwarded-For"] = string.format(
    "10.%d.%d.%d", math.floor(i / 65536) % 256, math.floor(i / 256) % 256, i % 256)
  i = i + 1
  return wrk.format("POST", "/v1/move", headers, body)
end
function response(status, headers, body)
  if status ~= 200 then non2xx = non2xx + 1 end
end
function done(summary, latency, requests)
  io.write(string.format("WRK %d %d\\n", summary.requests, non2xx))
end
"""


def distinct_clients(server: LocalServer, total: int, folder: Path) -> list[tuple[int, float]]:
    """RSS in MiB after each run of wrk, until ``total`` distinct clients have asked.

    One connection, so that the addresses go out in order and a run's request
    count is the next run's offset."""
    script = folder / "distinct.lua"
    script.write_text(DISTINCT_LUA)
    rss: list[tuple[int, float]] = [(0, server.rss_kib() / 1024)]
    sent = 0
    while sent < total:
        command = [require("wrk"), "-t1", "-c1", "-d3s", "-s", str(script), server.url]
        done = subprocess.run(
            [*command, "--", str(sent)], capture_output=True, text=True, timeout=60, check=True
        )
        line = next(x for x in done.stdout.splitlines() if x.startswith("WRK "))
        requests, failures = (int(x) for x in line.split()[1:])
        if failures:
            raise RuntimeError(f"{failures} of {requests} requests from distinct clients failed")
        sent += requests
        rss.append((sent, server.rss_kib() / 1024))
    return rss


async def split_burst(urls: list[str], requests: int) -> int:
    answered = 0
    async with httpx.AsyncClient(timeout=30) as http:
        for i in range(requests):
            answer = await http.post(urls[i % 2] + "/v1/move", json={"board": "X...O...."})
            answered += answer.status_code == 200
    return answered


Checks = dict[str, tuple[float, str, bool]]


def run_flood(
    folder: Path, args: argparse.Namespace, figures: dict[str, Any], checks: Checks
) -> None:
    for label, settings in (("limits", {}), ("no_limits", NO_CLIENT_LIMITS)):
        with LocalServer(settings, folder / f"flood-{label}.log", cpu=None) as server:
            flooder, light = asyncio.run(flood(server.url, random.Random(SEED)))
        figures[f"flood_{label}"] = {"flooder": flooder.figures(), "light": light.figures()}
        print(f"flood, {label:<9}  light client: {dict(light.statuses)}  ", end="")
        print(f"flooder: {dict(flooder.statuses)} {dict(flooder.reasons)}")
    light_ok = figures["flood_limits"]["light"]["statuses"].get("200", 0)
    flooder_statuses = figures["flood_limits"]["flooder"]["statuses"]
    checks["flood_light_200_of_30"] = (light_ok, ">= 29", light_ok >= 29)
    shed = flooder_statuses.get("503", 0)
    checks["flood_flooder_503"] = (shed, "0", shed == 0 and flooder_statuses.get("429", 0) > 0)


def run_polite(
    folder: Path, args: argparse.Namespace, figures: dict[str, Any], checks: Checks
) -> None:
    with LocalServer({}, folder / "polite.log", cpu=None) as server:
        flooder, polite = asyncio.run(
            polite_and_flood(server.url, args.seconds, random.Random(SEED))
        )
    figures["polite"] = {"flooder": flooder.figures(), "polite": polite.figures()}
    refused = sum(n for status, n in polite.statuses.items() if status != 200)
    print(f"polite: ten clients {dict(polite.statuses)}  flooder: {dict(flooder.statuses)}")
    asked = sum(polite.statuses.values())
    checks["polite_refused"] = (refused, "0", refused == 0 and asked > 0)


def run_clients(
    folder: Path, args: argparse.Namespace, figures: dict[str, Any], checks: Checks
) -> None:
    settings = {"TTT_TRUSTED_PROXIES": "127.0.0.1", "TTT_LOG_LEVEL": "warning"}
    with LocalServer(settings, folder / "clients.log", cpu=None) as server:
        rss = distinct_clients(server, args.clients, folder)
    figures["clients_rss_mib"] = {str(n): round(mib, 1) for n, mib in rss}
    # From the first reading past 20,000 clients (the buckets full at 10,000) to the last.
    settled = next(mib for n, mib in rss if n >= 20_000)
    growth = rss[-1][1] - settled
    print("distinct clients -> RSS MiB: " + ", ".join(f"{n:,}: {m:.1f}" for n, m in rss))
    checks["rss_growth_20k_to_last_mib"] = (growth, "<= 8", growth <= 8)


def run_replicas(
    folder: Path, args: argparse.Namespace, figures: dict[str, Any], checks: Checks
) -> None:
    with redis_server(folder) as url:
        shared = {
            "TTT_RATE_LIMIT_RATE": "0.1",
            "TTT_RATE_LIMIT_BURST": "40",
            "TTT_LOG_LEVEL": "warning",
        }
        for label, settings in (
            ("redis", {**shared, "TTT_RATE_LIMIT_STORE": url}),
            ("memory", shared),
        ):
            with (
                LocalServer(settings, folder / f"{label}-1.log", cpu=None) as one,
                LocalServer(settings, folder / f"{label}-2.log", cpu=None) as two,
            ):
                answered = asyncio.run(split_burst([one.url, two.url], 80))
            figures[f"replicas_{label}_answered_of_80"] = answered
            print(f"two replicas, {label}: {answered} of 80 answered (bucket of 40)")
    answered = figures["replicas_redis_answered_of_80"]
    checks["replicas_one_limit"] = (answered, "40-42", 40 <= answered <= 42)


SCENARIOS = {
    "flood": run_flood,
    "polite": run_polite,
    "clients": run_clients,
    "replicas": run_replicas,
}


def run(args: argparse.Namespace) -> int:
    figures: dict[str, Any] = {}
    checks: Checks = {}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ttt-fairness-") as scratch:
        for name in args.only.split(","):
            began = time.monotonic()
            SCENARIOS[name](Path(scratch), args, figures, checks)
            figures[f"{name}_elapsed_s"] = round(time.monotonic() - began, 1)
    print()
    print(f"{'target':<30} {'measured':>9}  {'wanted':<8} ok")
    for name, (value, wanted, ok) in checks.items():
        print(f"{name:<30} {value:>9.1f}  {wanted:<8} {'yes' if ok else 'NO'}")
        figures[name] = value
    figures["all_targets_met"] = all(ok for _, _, ok in checks.values())
    figures["elapsed_s"] = round(time.monotonic() - started, 1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "fairness.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, sort_keys=True))
    return 0 if figures["all_targets_met"] else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the polite scenario")
    parser.add_argument("--clients", type=int, default=100_000, help="distinct clients")
    parser.add_argument(
        "--only", default=",".join(SCENARIOS), help="comma-separated scenarios to run"
    )
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
