# syntax=docker/dockerfile:1
#
# tictactoe-service image: build wheels in one stage, install only those wheels
# in a clean runtime stage. Build with:
#   docker build -t tictactoe-service:0.1.0 .
#
# Base image: pinned by tag (python:3.11-slim-bookworm), not by digest, so that
# rebuilds pick up Debian and CPython security patches within 3.11/bookworm.
# Deployments pin what they run by the digest of *our* pushed image (see
# docs/operations.md), which gives reproducible rollouts without freezing the
# base. Both stages use the same tag so the wheels match the runtime's CPython.
#
# tests/test_deploy.py reads this file: it lints it (hadolint, checkov) and
# replays the builder's COPY lines and the runtime's ENV and CMD without Docker.

FROM python:3.11-slim-bookworm AS builder

WORKDIR /src

# A C compiler for the compiled search core (service/engine/core/, built by
# setup.py). Only this stage has it: the runtime stage installs the built
# wheel and never compiles. The packages are Debian bookworm's, fixed by the
# base image's tag; pinning their exact versions would break the build at
# every bookworm security update without making it more reproducible.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*

# Only what the wheel is built from (README.md is the project's `readme`), and
# the constraints that pin every dependency to the versions the tests ran with.
COPY pyproject.toml setup.py README.md constraints.txt ./
COPY service ./service

# The project wheel first (--no-deps), then the wheels of its dependencies,
# resolved from that wheel's metadata under the constraints, into one directory.
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels . \
    && pip wheel --no-cache-dir --constraint constraints.txt --wheel-dir /wheels \
       /wheels/tictactoe_service-*.whl


FROM python:3.11-slim-bookworm AS runtime

LABEL org.opencontainers.image.title="tictactoe-service" \
      org.opencontainers.image.description="Exact move suggestions for m,n,k tic-tac-toe over a stateless REST API" \
      org.opencontainers.image.licenses="MIT"

# A fixed numeric user, so Kubernetes' runAsNonRoot can verify it without
# reading /etc/passwd; the account exists so tools that look the user up work.
RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid 10001 --no-create-home \
       --home-dir /nonexistent --shell /usr/sbin/nologin app

# The runtime's own virtual environment, apart from the base image's pip.
ENV VIRTUAL_ENV=/opt/venv

# Install from the builder's wheels only (--no-index: nothing is fetched here).
# The wheels are bind-mounted, not copied, so they add no layer to the image.
# pip compiles .pyc files now; at run time nothing is written.
RUN --mount=type=bind,from=builder,source=/wheels,target=/wheels \
    python -m venv "$VIRTUAL_ENV" \
    && "$VIRTUAL_ENV/bin/pip" install --no-cache-dir --no-index --find-links=/wheels \
       /wheels/tictactoe_service-*.whl

# PATH: the venv's console scripts (tictactoe-service, python) come first.
# PYTHONDONTWRITEBYTECODE: the root filesystem is read-only in Kubernetes.
# TTT_HOST: listen on all interfaces inside the container's network namespace.
ENV PATH="$VIRTUAL_ENV/bin:$PATH" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    TTT_HOST=0.0.0.0 \
    TTT_PORT=8000

USER 10001:10001

EXPOSE 8000

# Docker and Compose use this; Kubernetes ignores it and uses the probes in
# k8s/deployment.yaml. No curl in the image: urlopen raises (exit 1) on
# connection errors and on any non-2xx/3xx status.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/livez' % os.environ.get('TTT_PORT', '8000'), timeout=3)"]

# One uvicorn process (no --workers): Kubernetes scales by replicas. Exec form,
# so the server is PID 1 and receives SIGTERM for its graceful shutdown.
CMD ["tictactoe-service"]
