"""The one router for every call wisp makes to a model of its own accord (docs/models.md,
"Routed tasks")."""
