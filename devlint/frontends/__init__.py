"""Front ends: what a user runs. The CLI, the flake8 plugin, the language server, the output
formats, `--add-noqa`, baselines and the runtime companion (`devlint confirm`).

The top layer: nothing in the package imports it. Kept empty so that importing one front end
imports no other."""
