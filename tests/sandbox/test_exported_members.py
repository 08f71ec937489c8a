"""wisp.sandbox's ``__all__`` names what it really exports, loaded on first use."""

from __future__ import annotations

import pytest

import wisp.sandbox


def test_all_names_exist() -> None:
    for name in wisp.sandbox.__all__:
        assert hasattr(wisp.sandbox, name), name
    assert len(set(wisp.sandbox.__all__)) == len(wisp.sandbox.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = wisp.sandbox.nothing_here
