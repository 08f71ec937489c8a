"""``wisp watch``: a command run at start, on each change under the watched folders and on an
interval, each run's outcome shown, recorded as ``watch.run``, a failure read by a routed model
and a change of state notified (docs/watch.md)."""
