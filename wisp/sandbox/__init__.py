"""The Linux sandbox (D6): Landlock applied in a helper before exec, and the refusal check."""
