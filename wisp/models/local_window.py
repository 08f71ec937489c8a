"""The embedded model's window: a GGUF header's shape, sized to memory.

The header is read here, not by llama-cpp-python, so resolving neither loads weights nor lets
llama.cpp write to stderr. Precedence: ``local.models.<name>.contextLength`` →
``local.contextLength`` → sized from memory (Ollama's formula, CPU memory) capped at the
model's maximum → floor 8,192 or the maximum. See docs/models.md, "Context windows".
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from wisp.config.paths import model_path

FLOOR = 8192
STEP = 4096
OVERHEAD = 512 << 20
"""Bytes allowed beyond weights and cache: compute buffers, the process itself."""
GIB = 1 << 30

_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
_KEPT_ARRAY = 4096
"""Numeric arrays up to this long are kept (per-layer shapes); vocabularies are skipped."""


def read_gguf_metadata(path: Path) -> dict[str, Any]:
    """The key/value header of a GGUF file (version 2 or newer); ``ValueError`` if it is not one."""
    with path.open("rb") as file:
        if file.read(4) != b"GGUF":
            raise ValueError("it does not start with GGUF")
        (version,) = _unpack(file, "<I")
        if version < 2:
            raise ValueError(f"GGUF version {version} is too old")
        _tensors, count = _unpack(file, "<QQ")
        return {_read_string(file): _read_value(file, _unpack(file, "<I")[0]) for _ in range(count)}


def _unpack(file: BinaryIO, layout: str) -> tuple[Any, ...]:
    size = struct.calcsize(layout)
    data = file.read(size)
    if len(data) < size:
        raise ValueError("the header ends early")
    return struct.unpack(layout, data)


def _read_string(file: BinaryIO) -> str:
    (length,) = _unpack(file, "<Q")
    return file.read(length).decode(errors="replace")


def _read_value(file: BinaryIO, kind: int) -> Any:
    if kind == _STRING:
        return _read_string(file)
    if kind == _ARRAY:
        item_kind, length = _unpack(file, "<IQ")
        if item_kind in _SCALARS and length <= _KEPT_ARRAY:
            return [_read_value(file, item_kind) for _ in range(length)]
        if item_kind in _SCALARS:
            file.seek(length * struct.calcsize(_SCALARS[item_kind]), 1)
        else:
            for _ in range(length):
                _read_value(file, item_kind)
        return None
    if kind not in _SCALARS:
        raise ValueError(f"unknown value type {kind}")
    return _unpack(file, _SCALARS[kind])[0]


class ModelShape(msgspec.Struct, frozen=True):
    """What sizing needs from the header; ``None`` where the file does not say."""

    maximum: int | None
    """``<arch>.context_length``: the window the model was trained for."""
    weights: int
    """The file's size in bytes."""
    bytes_per_token: int | None
    """KV cache per token, 16-bit: layers × kv heads × (key + value length) × 2."""

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any], size: int) -> ModelShape:
        arch = metadata.get("general.architecture")

        def number(key: str) -> int | None:
            value = metadata.get(f"{arch}.{key}")
            return value if isinstance(value, int) and value > 0 else None

        return cls(number("context_length"), size, _bytes_per_token(metadata, arch, number))


def _bytes_per_token(metadata: dict[str, Any], arch: Any, number: Any) -> int | None:
    layers, heads, width = (
        number("block_count"),
        number("attention.head_count"),
        number("embedding_length"),
    )
    kv = metadata.get(f"{arch}.attention.head_count_kv")
    if isinstance(kv, list):  # per layer (hybrid models): only layers with heads keep a cache
        kv_total = sum(h for h in kv if isinstance(h, int))
    elif isinstance(kv, int):
        kv_total = kv * (layers or 0)
    else:
        kv_total = (heads or 0) * (layers or 0)
    head_width = width // heads if width and heads else None
    key = number("attention.key_length") or head_width
    value = number("attention.value_length") or head_width
    if not kv_total or not key or not value:
        return None
    return kv_total * (key + value) * 2


def memory_figures(meminfo: Path = Path("/proc/meminfo")) -> tuple[int, int] | None:
    """(available, installed) bytes from Linux's ``MemAvailable`` and ``MemTotal``."""
    try:
        lines = meminfo.read_text().splitlines()
    except OSError:
        return None
    values: dict[str, int] = {}
    for line in lines:
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key] = int(parts[0]) * 1024  # kB
    if "MemAvailable" not in values or "MemTotal" not in values:
        return None
    return values["MemAvailable"], values["MemTotal"]


def choose_window(
    shape: ModelShape,
    model_setting: Any,
    setting: int | None,
    name: str,
    memory: tuple[int, int] | None = None,
) -> tuple[int, str | None]:
    """The window and its note (where it came from).

    ``memory`` is (available, installed); None reads it.
    """
    if isinstance(model_setting, int) and model_setting > 0:
        where = model_path("local", name, "contextLength")
        return model_setting, f"set for this model ({where})"
    if setting is not None:
        return setting, "configured (local.contextLength)"
    if shape.maximum is None:
        return FLOOR, "the default: the model file names no maximum window"
    floor = min(FLOOR, shape.maximum)
    figures = memory if memory is not None else memory_figures()
    if shape.bytes_per_token is None or figures is None:
        why = "no layer shape" if figures else "no memory figures"
        return floor, _without_sizing(floor, shape.maximum, why)
    return _sized(shape, shape.bytes_per_token, figures, floor)


def _without_sizing(floor: int, maximum: int, why: str) -> str | None:
    return None if floor == maximum else f"the default: {why} to size from"


def _sized(
    shape: ModelShape, per_token: int, figures: tuple[int, int], floor: int
) -> tuple[int, str | None]:
    available, installed = figures
    budget = min(available // 2, installed * 3 // 4)
    room = budget - shape.weights - OVERHEAD
    fits = (room // per_token) // STEP * STEP if room > 0 else 0
    window = min(fits, shape.maximum or fits)
    if window == shape.maximum:
        return window, None  # the model's own maximum: nothing to explain
    if window < floor:
        if floor == shape.maximum:
            return floor, None
        need = shape.weights + OVERHEAD + floor * per_token
        return floor, (
            f"{floor:,} of {shape.maximum:,}: the floor, though it needs {need / GIB:.1f} GiB "
            f"of a {budget / GIB:.1f} GiB budget"
        )
    used = shape.weights + OVERHEAD + window * per_token
    return (
        window,
        f"{window:,} of {shape.maximum:,}: {used / GIB:.1f} GiB of a {budget / GIB:.1f} GiB budget",
    )
