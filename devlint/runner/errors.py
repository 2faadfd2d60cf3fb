"""The error a user causes on the command line or in the configuration.

It lives in the runner layer, the lowest that raises it (configuration, file discovery); the front
ends raise it too and the CLI turns it into exit 2, once, at its edge."""


class UsageError(Exception):
    """A mistake on the command line or in the configuration (exit 2)."""
