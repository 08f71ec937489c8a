"""The Landlock layer: struct layouts, the rights per ABI, and the probe."""

from __future__ import annotations

import ctypes

from wisp.sandbox import landlock
from wisp.sandbox.landlock import (
    PathBeneathAttr,
    RulesetAttr,
    file_rights,
    handled_fs_rights,
    handled_net_rights,
    ruleset_attr_size,
)


def test_path_beneath_attr_is_packed_into_twelve_bytes() -> None:
    assert ctypes.sizeof(PathBeneathAttr) == 12
    assert PathBeneathAttr.parent_fd.offset == 8


def test_the_ruleset_attr_passes_only_what_the_abi_knows() -> None:
    assert ctypes.sizeof(RulesetAttr) == 24
    assert [ruleset_attr_size(abi) for abi in range(1, 8)] == [8, 8, 8, 16, 16, 24, 24]


def test_handled_rights_grow_with_the_abi() -> None:
    abi_1 = 0b1_1111_1111_0010  # WRITE_FILE, and REMOVE_DIR up to MAKE_SYM
    assert handled_fs_rights(1) == abi_1
    assert handled_fs_rights(2) == abi_1 | landlock.ACCESS_FS_REFER
    assert handled_fs_rights(4) == handled_fs_rights(3) == abi_1 | 0b11 << 13
    assert handled_fs_rights(5) == handled_fs_rights(7) == abi_1 | 0b111 << 13


def test_reading_and_running_are_never_handled() -> None:
    unhandled = landlock.ACCESS_FS_READ_FILE | landlock.ACCESS_FS_READ_DIR
    unhandled |= landlock.ACCESS_FS_EXECUTE
    assert all(handled_fs_rights(abi) & unhandled == 0 for abi in range(1, 8))


def test_files_get_only_file_rights() -> None:
    assert file_rights(1) == landlock.ACCESS_FS_WRITE_FILE
    assert file_rights(5) == (
        landlock.ACCESS_FS_WRITE_FILE | landlock.ACCESS_FS_TRUNCATE | landlock.ACCESS_FS_IOCTL_DEV
    )


def test_tcp_is_handled_only_with_the_network_off_from_abi_4() -> None:
    both = landlock.ACCESS_NET_BIND_TCP | landlock.ACCESS_NET_CONNECT_TCP
    assert handled_net_rights(4, network_off=True) == both
    assert handled_net_rights(3, network_off=True) == 0
    assert handled_net_rights(7, network_off=False) == 0


def test_the_probe_reports_this_kernels_abi() -> None:
    abi = landlock.abi_version()
    assert abi is None or abi >= 1
