"""Settings: the one place configuration is read, from ``TTT_*`` environment variables.

Validated once at start-up; an invalid value stops the process with a message
naming the variable. Nothing else in the project reads the environment.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from service.engine import DEFAULT_CACHE_ENTRIES, DEFAULT_NODE_BUDGET


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TTT_", frozen=True, extra="ignore")

    host: str = Field("127.0.0.1", description="Interface to listen on (0.0.0.0 in containers).")
    port: int = Field(8000, ge=1, le=65535)
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    node_budget: int = Field(
        DEFAULT_NODE_BUDGET, ge=1, le=100_000_000, description="Positions one search may visit."
    )
    cache_entries: int = Field(
        DEFAULT_CACHE_ENTRIES, ge=1_000, le=50_000_000, description="Proven positions kept."
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
    batch_body_limit_bytes: int = Field(262_144, ge=1_024, le=64 * 1024 * 1024)
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
        2, ge=1, le=64, description="Searches that may run at once, off the event loop."
    )
    search_queue: int = Field(
        8, ge=0, le=10_000, description="Searches that may wait for a thread before 503."
    )
    batch_node_budget: int = Field(
        2_000_000,
        ge=1,
        le=1_000_000_000,
        description="Nodes one batch may search in all; later items get small budgets.",
    )

    @property
    def cors_origin_list(self) -> list[str]:
        return [origin.strip() for origin in self.cors_origins.split(",") if origin.strip()]
