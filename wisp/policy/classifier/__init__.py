"""A second opinion on the commands the rules do not know (docs/policy.md, "The classifier")."""
