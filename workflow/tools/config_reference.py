"""config/README.md's reference of every config key, written from the workflow's JSON schema
(workflow/schemas/config.schema.yaml), so the page and the schema cannot disagree: `make docs` writes the block,
`make check-docs` (and tests/test_docs.py) fail when it differs.

    python workflow/tools/config_reference.py [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
PAGE = REPO / "config" / "README.md"
BLOCK = re.compile(r"(<!-- generated: config-reference[^>]*-->\n)(.*?)(<!-- end generated: config-reference -->)", re.S)
TARGETS_BLOCK = re.compile(r"(<!-- generated: targets[^>]*-->\n)(.*?)(<!-- end generated: targets -->)", re.S)


def resolve(node: dict, schema: dict) -> dict:
    """A schema node with its local ``$ref`` (``#/...``) merged in under its own keys."""
    if "$ref" not in node:
        return node
    target = schema
    for part in node["$ref"].lstrip("#/").split("/"):
        target = target[part]
    return {**resolve(target, schema), **{k: v for k, v in node.items() if k != "$ref"}}


def kind(node: dict) -> str:
    """What a value may be, in a few words."""
    if "enum" in node:
        return " \\| ".join(f"`{value}`" for value in node["enum"])
    if "oneOf" in node:
        return " or ".join(kind(option) for option in node["oneOf"])
    types = node.get("type", "any")
    types = types if isinstance(types, list) else [types]
    text = " or ".join("map" if t == "object" else ("list" if t == "array" else str(t)) for t in types)
    bounds = [
        f"≥ {node['minimum']}" if "minimum" in node else "",
        f"> {node['exclusiveMinimum']}" if "exclusiveMinimum" in node else "",
        f"≤ {node['maximum']}" if "maximum" in node else "",
    ]
    return " ".join([text, *filter(None, bounds)])


def default_cell(node: dict) -> str:
    if "default" not in node:
        return ""
    value = node["default"]
    if value == {} and node.get("properties"):
        return "(its keys' defaults)"
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def rows(node: dict, schema: dict, path: str, required: set[str]) -> list[list[str]]:
    node = resolve(node, schema)
    description = " ".join(str(node.get("description", "")).split()).replace("|", "\\|")
    mark = " (required)" if path.rsplit(".", 1)[-1] in required and "default" not in node else ""
    out = [[f"`{path}`{mark}", kind(node), default_cell(node), description]]
    for name, child in node.get("properties", {}).items():
        out += rows(child, schema, f"{path}.{name}", set(node.get("required", [])))
    # a map's entries (runs, encoder.models, ...) and a list's items (datasets): their keys, under <name> or []
    for inner, suffix in ((node.get("additionalProperties"), ".<name>"), (node.get("items"), "[]")):
        inner = resolve(inner, schema) if isinstance(inner, dict) else None
        if inner and inner.get("properties"):
            for name, child in inner["properties"].items():
                out += rows(child, schema, f"{path}{suffix}.{name}", set(inner.get("required", [])))
    return out


def reference(schema: dict) -> str:
    """One Markdown table per top-level section: key, what it may be, default, what it decides."""
    parts = []
    for section, node in schema["properties"].items():
        table = rows(node, schema, section, set(schema.get("required", [])))
        lines = ["| key | value | default | what it decides |", "| --- | --- | --- | --- |"]
        lines += ["| " + " | ".join(cells) + " |" for cells in table]
        parts.append(f"### `{section}`\n\n" + "\n".join(lines) + "\n")
    return "\n".join(parts)


def targets_table() -> str:
    """The make targets and the overlays each stacks over config.yaml (the targets' table, stsynth.pipeline.cli)."""
    from stsynth.pipeline.cli import TARGETS

    lines = [
        "| make target | overlays over `config.yaml` | working directory | what it builds |",
        "| --- | --- | --- | --- |",
    ]
    for target in TARGETS.values():
        overlays = ", ".join(f"`{overlay}`" for overlay in target.overlays) or "none"
        lines.append(f"| `make {target.name}` | {overlays} | `{target.directory}` | {target.what} |")
    return "\n".join(lines) + "\n"


def render(page: str, schema: dict) -> str:
    for block, name in ((BLOCK, "config-reference"), (TARGETS_BLOCK, "targets")):
        if not block.search(page):
            raise ValueError(f"{PAGE}: no <!-- generated: {name} --> block")
    page = TARGETS_BLOCK.sub(lambda m: m[1] + targets_table() + m[3], page, count=1)
    return BLOCK.sub(lambda m: m[1] + reference(schema) + m[3], page, count=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when the page differs")
    args = parser.parse_args()
    schema, page = yaml.safe_load(SCHEMA.read_text()), PAGE.read_text()
    written = render(page, schema)
    if args.check:
        if written != page:
            print(f"{PAGE}: its config reference differs from {SCHEMA} (make docs rewrites it)", file=sys.stderr)
            return 1
        print(f"{PAGE}: the config reference is the schema's")
        return 0
    if written != page:
        PAGE.write_text(written)
        print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
