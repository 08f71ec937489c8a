"""Model backends: one module per runtime, each resolving a selection to a ResolvedModel."""
