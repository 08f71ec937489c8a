"""Each package's ``__all__`` names what it really exports, and nothing it lacks."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize("package", ["wisp", "wisp.audit", "wisp.config"])
def test_all_names_exist_and_are_public(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert hasattr(module, name), f"{package}.__all__ names {name}, which it lacks"
    assert len(set(module.__all__)) == len(module.__all__)
