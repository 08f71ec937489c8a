"""config.json: known settings, dotted paths, atomic writes."""

from wisp.config.paths import join_path, model_path, shell_word, split_path
from wisp.config.sections import Settings
from wisp.config.settings import MODEL_FIELDS, SETTINGS, Setting, near_key, setting_for
from wisp.config.store import (
    MISSING,
    Change,
    Config,
    is_unknown,
    load_config,
    locked_config,
    problem_with,
    save_config,
    set_value,
    store_model_entry,
    unknown_keys_in,
    unset_value,
)

__all__ = [
    "MISSING",
    "MODEL_FIELDS",
    "SETTINGS",
    "Change",
    "Config",
    "Setting",
    "Settings",
    "is_unknown",
    "join_path",
    "load_config",
    "locked_config",
    "model_path",
    "near_key",
    "problem_with",
    "save_config",
    "set_value",
    "setting_for",
    "shell_word",
    "split_path",
    "store_model_entry",
    "unknown_keys_in",
    "unset_value",
]
