"""Settings: the one place configuration is read, from ``TTT_*`` environment variables.

Validated once at start-up; an invalid value stops the process with a message
naming the variable. Nothing else in the project reads the environment.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from service.api.limits import ANONYMOUS_POLICY, Quota, load_keys, parse_networks
from service.engine import DEFAULT_NODE_BUDGET, DEFAULT_TABLE_BYTES

CGROUP_ROOT = Path("/sys/fs/cgroup")


def available_cpus(cgroup_root: Path = CGROUP_ROOT) -> int:
    """The CPUs this process may use: its affinity mask, capped by a cgroup CPU quota
    (v2 ``cpu.max``, or v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``), rounded up."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    quota = period = None
    try:
        text = (cgroup_root / "cpu.max").read_text().split()
        if text and text[0] != "max":
            quota, period = int(text[0]), int(text[1])
    except (OSError, ValueError, IndexError):
        try:
            v1 = cgroup_root / "cpu"
            quota = int((v1 / "cpu.cfs_quota_us").read_text())
            period = int((v1 / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            pass
    if quota is not None and period and quota > 0:
        cpus = min(cpus, max(1, math.ceil(quota / period)))
    return max(1, cpus)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TTT_", frozen=True, extra="ignore")

    host: str = Field("127.0.0.1", description="Interface to listen on (0.0.0.0 in containers).")
    port: int = Field(8000, ge=1, le=65535)
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    node_budget: int = Field(
        DEFAULT_NODE_BUDGET, ge=1, le=1_000_000_000, description="Positions one search may visit."
    )
    table_mb: int = Field(
        DEFAULT_TABLE_BYTES // 2**20,
        ge=1,
        le=65_536,
        description="MiB of the shared table of proven bounds (fixed at start-up).",
    )
    answer_entries: int = Field(
        10_000, ge=100, le=5_000_000, description="Finished exact analyses kept."
    )
    cors_origins: str = Field("*", description="Comma-separated allowed origins, or *.")
    header_limit_bytes: int = Field(
        16_384,
        ge=1_024,
        le=1024 * 1024,
        description="Request line and headers together; past it, 431 and the connection closes.",
    )
    header_timeout_seconds: float = Field(
        10.0,
        gt=0,
        le=300,
        description="Time from a request's first byte to the end of its headers; then 408.",
    )
    body_limit_bytes: int = Field(16_384, ge=256, le=16 * 1024 * 1024)
    batch_body_limit_bytes: int = Field(1_048_576, ge=1_024, le=64 * 1024 * 1024)
    batch_limit: int = Field(100, ge=1, le=10_000)
    graceful_timeout_seconds: int = Field(20, ge=0, le=3_600)
    cache_max_age_seconds: int = Field(86_400, ge=0, le=31_536_000)
    response_cache_entries: int = Field(
        10_000,
        ge=0,
        le=10_000_000,
        description="Exact answers kept to replay to repeated requests (0: off).",
    )
    search_threads: int = Field(
        default_factory=available_cpus,
        ge=1,
        le=64,
        description="Searches that may run at once, each on its own core; default: the CPUs "
        "the process may use (affinity and cgroup quota).",
    )
    search_queue: int = Field(
        8, ge=0, le=10_000, description="Searches that may wait for a thread before 503."
    )
    search_deadline_ms: int = Field(
        800,
        ge=10,
        le=600_000,
        description="Wall-clock limit of one search, from admission; requests may ask for less.",
    )
    batch_deadline_ms: int = Field(
        5_000, ge=10, le=600_000, description="Wall-clock limit of all the searches of a batch."
    )
    batch_node_budget: int = Field(
        2_000_000,
        ge=1,
        le=1_000_000_000,
        description="Nodes one batch may search in all; later items get small budgets.",
    )

    # Per-client limits (service/api/limits.py, docs/api.md#rate-limits).
    rate_limit_rate: float = Field(
        20.0,
        ge=0,
        le=1_000_000,
        description="Work units a second into each client's bucket (0: no rate limit). "
        "A request costs 1, a search cells x seconds / 10 more.",
    )
    rate_limit_burst: int = Field(
        400, ge=1, le=10_000_000, description="Work units a client's bucket holds."
    )
    client_searches: int = Field(
        4,
        ge=0,
        le=10_000,
        description="Searches one client may have running or waiting at once (0: no cap).",
    )
    rate_limit_clients: int = Field(
        10_000,
        ge=100,
        le=10_000_000,
        description="Clients whose buckets one replica keeps; the least recent are dropped.",
    )
    rate_limit_store: str = Field(
        "memory",
        pattern=r"^(memory|(redis|rediss|unix)://.+)$",
        description="Where buckets live: memory (per replica) or a redis:// URL "
        "(shared by every replica).",
    )
    trusted_proxies: str = Field(
        "",
        max_length=10_000,
        description="Comma-separated addresses or CIDR blocks of the proxies (the ingress) "
        "whose Forwarded / X-Forwarded-For names the client.",
    )
    forwarded_header: Literal["x-forwarded-for", "forwarded"] = Field(
        "x-forwarded-for",
        description="The one header a trusted proxy names the client in: X-Forwarded-For "
        "(ingress-nginx, most load balancers) or Forwarded (RFC 7239).",
    )
    api_keys_file: Path | None = Field(
        None, description="JSON file of API keys (their SHA-256) and their quotas."
    )
    require_api_key: bool = Field(
        False, description="Answer only requests with a known X-API-Key (others get 401)."
    )

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: str) -> str:
        parse_networks(value)  # a ValueError names the bad entry
        return value

    @field_validator("api_keys_file")
    @classmethod
    def _keys(cls, value: Path | None) -> Path | None:
        if value is not None:
            try:
                load_keys(value, Quota(ANONYMOUS_POLICY, 1.0, 1, 1))
            except (OSError, KeyError, TypeError, ValueError) as error:
                raise ValueError(f"cannot read API keys from {value}: {error!r}") from error
        return value

    @property
    def anonymous_quota(self) -> Quota:
        return Quota(
            ANONYMOUS_POLICY, self.rate_limit_rate, self.rate_limit_burst, self.client_searches
        )

    @property
    def api_keys(self) -> dict[str, Quota]:
        if self.api_keys_file is None:
            return {}
        return load_keys(self.api_keys_file, self.anonymous_quota)

    @property
    def cors_origin_list(self) -> list[str]:
        return [origin.strip() for origin in self.cors_origins.split(",") if origin.strip()]
