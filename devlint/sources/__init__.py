"""Sources: the one document API (a Python file, a notebook or an editor buffer in, reports and
fixes out) that every front end calls, and reading and writing source files without losing a byte.

Below the runner, above the engine. Kept empty so that importing one part imports no other."""
