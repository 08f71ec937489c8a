"""Reading the helper's spec with the standard library only: msgspec (with ``typing`` and
``inspect``) costs the helper more to import than the rest of its start, on every command.

The fields and their types are :class:`wisp.sandbox.spec.HelperSpec`'s; a test holds the two
to each other. As there, a field this version does not know makes the spec fail, so a spec
from another wisp version is refused rather than half read.
"""

from __future__ import annotations

import json

EXIT_CANNOT_CONFINE = 121
"""The helper's exit status when it could not confine the command (it never runs it then)."""
MESSAGE_PREFIX = "wisp-sandbox: "
"""How each line the helper itself writes on stderr begins."""

REQUIRED = {"abi": int, "roots": list, "files": list, "network_off": bool}
OPTIONAL = {
    "protected": (str, None),
    "namespace": (bool, False),
    "read_only": (list, []),
    "hidden": (list, []),
    "sockets": (list, []),
    "private_pts": (bool, False),
}


class Spec:
    """What the helper enforces (see ``HelperSpec`` for each field)."""

    abi: int
    roots: list[str]
    files: list[str]
    network_off: bool
    protected: str | None
    namespace: bool
    read_only: list[str]
    hidden: list[str]
    sockets: list[str]
    private_pts: bool

    def __init__(self, fields: dict[str, object]) -> None:
        self.__dict__.update(fields)


def read_spec(text: str) -> Spec:
    """The spec in ``text``; ``ValueError`` names what is wrong with it."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("the spec is not a JSON object")
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ValueError(f"the spec has fields this wisp does not know: {', '.join(unknown)}")
    fields: dict[str, object] = {}
    for name, kind in REQUIRED.items():
        if name not in data:
            raise ValueError(f"the spec has no {name}")
        fields[name] = _checked(name, data[name], kind)
    for name, (kind, default) in OPTIONAL.items():
        value = data.get(name, default)
        fields[name] = value if value is None and default is None else _checked(name, value, kind)
    return Spec(fields)


def _checked(name: str, value: object, kind: type) -> object:
    # bool is an int in Python; the spec's JSON never mixes them.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"the spec's {name} is not a {kind.__name__}")
    if isinstance(value, list):
        if not all(isinstance(item, str) for item in value):
            raise ValueError(f"the spec's {name} is not a list of strings")
        return list(value)
    return value
