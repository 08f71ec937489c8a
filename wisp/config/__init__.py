"""config.json: known settings, dotted paths, atomic writes."""

from wisp.config.settings import SETTINGS, Setting
from wisp.config.store import (
    MISSING,
    Change,
    Config,
    load_config,
    locked_config,
    save_config,
    set_value,
    unknown_keys_in,
    unset_value,
)

__all__ = [
    "MISSING",
    "SETTINGS",
    "Change",
    "Config",
    "Setting",
    "load_config",
    "locked_config",
    "save_config",
    "set_value",
    "unknown_keys_in",
    "unset_value",
]
