"""``wisp draft``'s own part, pure: the tasks and what each gathers, the prompt fitted to the
routed model's window, and the reply cleaned into the text to use (docs/draft.md). The CLI
gathers the inputs and asks the model."""
