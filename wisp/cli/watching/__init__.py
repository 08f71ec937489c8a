"""``wisp watch``: its command line, the command's launch, and the triage's model machinery."""
