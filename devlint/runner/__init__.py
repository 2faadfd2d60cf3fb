"""The runner: one run over many files. Configuration (pyproject.toml / setup.cfg into Settings),
file discovery and excludes, the result cache, worker processes, and writing the fixes.

Below the front ends, above the sources. Kept empty so that importing one part imports no other."""
