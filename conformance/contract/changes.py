"""What changed in the contract since an earlier version's `contract.json`: for an
implementer moving to a new version of the suite, what is new to implement, what
changed and what is gone, section by section (tools, scenarios, requirement rows,
rules, ...), each entry by its name.

`pytest --conformance-contract=FILE --conformance-contract-since=OLD.json`, or
`python -m elicit_conformance.contract --since OLD.json [FILE]`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from elicit_conformance.exceptions import DeclarationError


def read(path: Path) -> dict[str, Any]:
    """An earlier contract, as `contract.json` holds it.

    Raises:
        DeclarationError: It cannot be read, or is not a contract.
    """
    try:
        old = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise DeclarationError(f"--conformance-contract-since={path}: cannot read it ({error.strerror})") from None
    except ValueError as error:
        raise DeclarationError(f"--conformance-contract-since={path}: not JSON ({error})") from None
    if not isinstance(old, dict) or "tools" not in old:
        raise DeclarationError(f"--conformance-contract-since={path}: not a contract.json (it has no 'tools')")
    return old


def changes(old: dict[str, Any], new: dict[str, Any], since: str) -> str:
    """Markdown: per section of the contract, the entries added, changed and removed."""
    old, new = _as_json(old), _as_json(new)  # tuples in `data()` are lists in a contract.json
    lines = [f"# What changed in the contract since {since}", ""]
    for section in sorted(set(old) | set(new), key=lambda s: (s not in new, list(new).index(s) if s in new else 0)):
        before, after = _entries(old.get(section)), _entries(new.get(section))
        added = [name for name in after if name not in before]
        removed = [name for name in before if name not in after]
        changed = [name for name in after if name in before and _differs(before[name], after[name])]
        if not (added or removed or changed):
            continue
        lines += [f"## {section}", ""]
        lines += [f"- added: `{name}`" for name in added]
        lines += [f"- changed: `{name}`" + _fields(before[name], after[name]) for name in changed]
        lines += [f"- removed: `{name}`" for name in removed]
        lines.append("")
    if len(lines) == 2:
        lines += ["Nothing changed.", ""]
    return "\n".join(lines)


def _as_json(contract: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(contract, ensure_ascii=False))


def _entries(value: Any) -> dict[str, Any]:
    """A section's entries by name: a mapping's keys; a list's items by their `id` or
    `name`, else by themselves (a rule is its own sentence)."""
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return {_name(item): item for item in value}
    return {} if value is None else {"(the section)": value}


def _name(item: Any) -> str:
    if isinstance(item, dict):
        for key in ("id", "name", "title"):
            if isinstance(item.get(key), str):
                return item[key]
    text = item if isinstance(item, str) else json.dumps(item, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def _changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The fields that differ; a field new in this version at its empty value (`"once":
    false` on every tool that is not one-time) asks nothing new, so it is no change."""
    return sorted(k for k in set(before) | set(after)
                  if before.get(k) != after.get(k) and not (k not in before and not after.get(k)))


def _differs(before: Any, after: Any) -> bool:
    if isinstance(before, dict) and isinstance(after, dict):
        return bool(_changed_fields(before, after))
    return before != after


def _fields(before: Any, after: Any) -> str:
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return ""
    return f" ({', '.join(_changed_fields(before, after))})"
