"""Scenario files and --set overrides, as the simulator reads them.

`apply_override` mirrors ApplyOverride() in contrib/fabric/helper/config/scenario-config.cc (dotted keys,
mappings created on the way, the value parsed as YAML). The analytic side of a case never trusts
this copy alone: `effective_parameters` returns the document the simulator itself wrote into
summary.json ("parameters": the scenario after every override), and `check_same` fails loudly if
the two disagree, so a prediction is always computed from what was actually simulated.
"""

import copy
import yaml


class ScenarioError(RuntimeError):
    """A scenario or override the validator cannot use; the message names it."""


def load(path: str) -> dict:
    try:
        with open(path) as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise ScenarioError(f"{path}: {e}") from e
    if not isinstance(doc, dict):
        raise ScenarioError(f"{path}: a scenario is a mapping")
    return doc


def to_yaml_value(value) -> str:
    """A value as a one-line YAML flow text for --set KEY=VALUE."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return yaml.safe_dump(value, default_flow_style=True, width=1 << 30).strip()


def apply_override(doc: dict, key: str, value) -> None:
    parts = key.split(".")
    if any(not p for p in parts):
        raise ScenarioError(f"--set {key}: empty key component")
    node = doc
    for p in parts[:-1]:
        if isinstance(node, list):
            # An index into a list (workload.jobs.0.…), as fabric-run's --set takes it.
            if not p.isdigit() or int(p) >= len(node):
                raise ScenarioError(f"--set {key}: '{p}' is not an index of the list")
            node = node[int(p)]
            continue
        child = node.get(p)
        if child is not None and not isinstance(child, (dict, list)):
            raise ScenarioError(f"--set {key}: '{p}' is not a mapping")
        if child is None:
            child = node[p] = {}
        node = child
    if isinstance(node, list):
        raise ScenarioError(f"--set {key}: cannot set an element of a list")
    node[parts[-1]] = yaml.safe_load(to_yaml_value(value)) if not isinstance(value, str) \
        else yaml.safe_load(value)


def with_overrides(doc: dict, overrides: dict) -> dict:
    out = copy.deepcopy(doc)
    for k, v in overrides.items():
        apply_override(out, k, v)
    return out


def stringify(value):
    """The simulator writes every scalar of the document as a string."""
    if isinstance(value, dict):
        return {str(k): stringify(v) for k, v in value.items()}
    if isinstance(value, list):
        return [stringify(v) for v in value]
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def get(doc: dict, key: str, default=None):
    node = doc
    for p in key.split("."):
        if not isinstance(node, dict) or p not in node:
            return default
        node = node[p]
    return node


def require(doc: dict, key: str, where: str):
    v = get(doc, key)
    if v is None:
        raise ScenarioError(f"{where}: parameter '{key}' missing")
    return v


def check_same(ours: dict, simulated: dict, where: str) -> None:
    """The validator's own merge of file + overrides must equal what the simulator used."""
    a, b = stringify(ours), simulated

    def norm(x):
        # yaml-cpp keeps scalars verbatim ("0B", "20ms"); PyYAML turns 1.0 into 1.0 and 10 into
        # 10: compare as text after both went through str().
        if isinstance(x, dict):
            return {k: norm(v) for k, v in x.items()}
        if isinstance(x, list):
            return [norm(v) for v in x]
        return None if x is None else str(x)

    a = norm(a)
    b = norm(b)
    topo = a.get("topology") if isinstance(a, dict) else None
    if isinstance(topo, dict) and topo.get("hosts") == "auto":
        # The simulator writes its sizing of "hosts: auto" (receiver + senders) into the document.
        topo["hosts"] = str(int(get(a, "workload.senders", "8")) + 1)
    if a != b:
        raise ScenarioError(f"{where}: the scenario the simulator ran (summary.json parameters) "
                            f"differs from the one the validator built: {a} != {b}")
