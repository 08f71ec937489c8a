"""Sizing an Ollama model's window from its shape and this machine's memory.

Ollama drops the front of a prompt that outgrows ``num_ctx`` without a word, and reloads the
model whenever ``num_ctx`` changes, so wisp picks the window once, at selection: the largest
multiple of 4,096 whose KV cache, beside the weights and an overhead, fits the memory budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from pathlib import Path
from typing import Any

import msgspec

GIB = 1 << 30
MIB = 1 << 20
STEP = 4096
FLOOR = 8192
OVERHEAD = 512 * MIB
SLIDING_SLACK = 2048
"""A sliding layer holds its window plus this many tokens (a batch's worth)."""

NO_SHAPE_NOTE = "the default: Ollama reported no model shape to size from"

SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin:/usr/local/bin"
"""Where ``nvidia-smi`` is looked for: the system's folders, never ``PATH``, whose first folder
may be an activated ``.venv/bin`` a confined command could write to; wisp runs the program
unconfined."""


class Memory(msgspec.Struct, frozen=True):
    """What the model may use: free and installed bytes, of the GPU where there is one."""

    available: int
    installed: int
    is_gpu: bool = False


class Shape(msgspec.Struct, frozen=True):
    """What a model's KV cache costs, read from ``/api/show`` ``model_info``."""

    maximum: int
    """``<arch>.context_length``: the longest window the model was trained for."""
    per_token: int
    """Bytes per token of the global-attention layers (16-bit cache)."""
    sliding: list[tuple[int, int]] = msgspec.field(default_factory=list)
    """(bytes per token, sliding window) for each sliding-window layer."""
    fixed: int = 0
    """Bytes that do not grow with the window: recurrent state."""
    is_drafting: bool = False

    def bytes_needed(self, window: int, weights: int) -> int:
        overhead = OVERHEAD * (2 if self.is_drafting else 1)
        sliding = sum(cost * min(window, span + SLIDING_SLACK) for cost, span in self.sliding)
        return weights + overhead + self.fixed + sliding + self.per_token * window


# -- memory ------------------------------------------------------------------------------------


def memory_from_meminfo(text: str) -> Memory | None:
    """``MemAvailable`` and ``MemTotal`` from ``/proc/meminfo``, in bytes."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key] = int(parts[0]) * 1024
    if "MemAvailable" not in values or "MemTotal" not in values:
        return None
    return Memory(values["MemAvailable"], values["MemTotal"])


def memory_from_nvidia_smi(text: str) -> Memory | None:
    """Free and total MiB per GPU (``--format=csv,noheader,nounits``), summed, in bytes."""
    free = total = 0
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) != 2 or not all(cell.isdigit() for cell in cells):
            continue
        free += int(cells[0]) * MIB
        total += int(cells[1]) * MIB
    return Memory(free, total, is_gpu=True) if total else None


async def probe_memory() -> Memory | None:
    """The GPU's memory where ``nvidia-smi`` answers, else the machine's (Linux)."""
    gpu = await _nvidia_smi()
    if gpu is not None:
        return gpu
    with contextlib.suppress(OSError):
        return memory_from_meminfo(Path("/proc/meminfo").read_text())
    return None


async def _nvidia_smi() -> Memory | None:
    program = shutil.which("nvidia-smi", path=SYSTEM_PATH)
    if program is None:
        return None  # no NVIDIA driver here
    command = [program, "--query-gpu=memory.free,memory.total", "--format=csv,noheader,nounits"]
    try:
        process = await asyncio.create_subprocess_exec(
            *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
        )
    except OSError:
        return None  # no NVIDIA driver here
    try:
        async with asyncio.timeout(5):
            out, _ = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        return None
    return memory_from_nvidia_smi(out.decode(errors="replace")) if process.returncode == 0 else None


# -- shape -------------------------------------------------------------------------------------


def trained_maximum(model_info: dict[str, Any]) -> int | None:
    """``<arch>.context_length``: the longest window the model was trained for, if reported."""
    arch = model_info.get("general.architecture")
    return _Info(model_info, arch).int("context_length") if isinstance(arch, str) else None


def shape_from(model_info: dict[str, Any], modelfile: str = "") -> Shape | None:
    """The cache's cost per token; None when the model reports too little to tell."""
    arch = model_info.get("general.architecture")
    if not isinstance(arch, str):
        return None
    info = _Info(model_info, arch)
    maximum, layers = info.int("context_length"), info.int("block_count")
    if not maximum or not layers:
        return None
    kv_heads = info.per_layer("attention.head_count_kv", layers) or info.per_layer(
        "attention.head_count", layers
    )
    head_dim = _head_dim(info)
    if not kv_heads or not head_dim:
        return None
    key_len = info.int("attention.key_length") or head_dim
    value_len = info.int("attention.value_length") or head_dim
    drafting, draft_steps = _draft(modelfile)
    nextn = info.int("nextn_predict_layers") or 0
    main = range(layers - nextn)
    keeps_cache = _cache_layers(info, kv_heads, main)
    sliding_flags = _sliding_flags(info, layers)
    sliding_window = info.int("attention.sliding_window")
    key_swa = info.int("attention.key_length_swa") or key_len
    value_swa = info.int("attention.value_length_swa") or value_len

    per_token, sliding = 0, []
    for i in keeps_cache:
        if sliding_window and sliding_flags[i]:
            sliding.append((kv_heads[i] * (key_swa + value_swa) * 2, sliding_window))
        else:
            per_token += kv_heads[i] * (key_len + value_len) * 2
    widest = max(kv_heads) * (key_len + value_len) * 2
    # MTP layers, and a DRAFT model, each add a global layer as wide as the widest.
    per_token += widest * (nextn + (1 if drafting else 0))
    recurrent = len(main) - len(keeps_cache)
    fixed = recurrent * _recurrent_state(info) * (1 + draft_steps if drafting else 1)
    return Shape(maximum, per_token, sliding, fixed, is_drafting=drafting)


class _Info:
    """``model_info``'s architecture-prefixed keys, read by their short names."""

    def __init__(self, model_info: dict[str, Any], arch: str) -> None:
        self.model_info = model_info
        self.arch = arch

    def raw(self, key: str) -> Any:
        return self.model_info.get(f"{self.arch}.{key}")

    def int(self, key: str) -> int | None:
        value = self.raw(key)
        if isinstance(value, list):
            numbers = [v for v in value if isinstance(v, int | float)]
            return int(max(numbers)) if numbers else None
        return (
            int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
        )

    def per_layer(self, key: str, layers: int) -> list[int]:
        """One value per layer, whether the model gives one or a list."""
        value = self.raw(key)
        if isinstance(value, list):
            values = [int(v) if isinstance(v, int | float) else 0 for v in value[:layers]]
            return values + [0] * (layers - len(values))
        number = self.int(key)
        return [number] * layers if number else []


def _head_dim(info: _Info) -> int | None:
    embedding, heads = info.int("embedding_length"), info.int("attention.head_count")
    return embedding // heads if embedding and heads else None


def _cache_layers(info: _Info, kv_heads: list[int], main: range) -> list[int]:
    """The layers that keep a KV cache: in a hybrid model, only the attention ones."""
    interval = info.int("full_attention_interval")
    if interval:
        return [i for i in main if (i + 1) % interval == 0]
    return [i for i in main if kv_heads[i] > 0]


def _sliding_flags(info: _Info, layers: int) -> list[bool]:
    """Which layers attend through a sliding window; without a pattern, none (errs small)."""
    pattern = info.raw("attention.sliding_window_pattern")
    if isinstance(pattern, list):
        flags = [bool(flag) for flag in pattern[:layers]]
        return flags + [False] * (layers - len(flags))
    if isinstance(pattern, int) and not isinstance(pattern, bool) and pattern > 1:
        return [(i + 1) % pattern != 0 for i in range(layers)]  # every Nth layer is global
    return [False] * layers


def _recurrent_state(info: _Info) -> int:
    """Bytes of one recurrent layer's state (conv and SSM), at 32 bits."""
    conv = info.int("ssm.conv_kernel") or 0
    inner = info.int("ssm.inner_size") or 0
    groups = info.int("ssm.group_count") or 0
    state = info.int("ssm.state_size") or 0
    return (max(conv - 1, 0) * (inner + 2 * groups * state) + state * inner) * 4


def _draft(modelfile: str) -> tuple[bool, int]:
    """Whether the Modelfile names a DRAFT model, and its ``draft_num_predict``."""
    drafting, steps = False, 0
    for line in modelfile.splitlines():
        words = line.split()
        if words[:1] == ["DRAFT"]:
            drafting = True
        if (
            words[:2] == ["PARAMETER", "draft_num_predict"]
            and len(words) > 2
            and words[2].isdigit()
        ):
            steps = int(words[2])
    return drafting, steps


# -- the window --------------------------------------------------------------------------------


def budget_for(memory: Memory, held: int) -> int:
    """Half of what is free (plus what Ollama holds for this model), at most ¾ of all of it."""
    return int(min(0.5 * (memory.available + held), 0.75 * memory.installed))


def size_window(shape: Shape, weights: int, budget: int) -> tuple[int, str]:
    """The window and the note that explains it, e.g. ``24,576 of 131,072: 9.2 GiB of …``."""
    floor = min(FLOOR, shape.maximum)
    window = floor
    if shape.bytes_needed(shape.maximum, weights) <= budget:
        window = shape.maximum
    else:
        candidate = (shape.maximum - 1) // STEP * STEP
        while candidate > floor and shape.bytes_needed(candidate, weights) > budget:
            candidate -= STEP
        window = max(candidate, floor)
    needed = shape.bytes_needed(window, weights)
    shown = f"{_gib(needed)} of a {_gib(budget)} budget"
    if needed > budget:
        return window, f"{window:,} of {shape.maximum:,}, the floor: {shown}"
    return window, f"{window:,} of {shape.maximum:,}: {shown}"


def _gib(size: int) -> str:
    return f"{size / GIB:.1f} GiB"
