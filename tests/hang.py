"""HANG: the one bound on every wait in the tests.

A test waits on progress (a line, a file, a process's exit, a condition), never for a time it
expects things to take: how long something takes is measured in bench/, against a baseline
taken in the same run. This bound only turns a hang into a failure, so it is minutes, far past
anything a slow or busy machine needs.
"""

HANG = 300.0
"""Seconds without the awaited progress after which a test gives up and fails."""
