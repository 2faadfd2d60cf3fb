"""`python -m devlint` runs the command-line interface."""

from devlint.cli import main

raise SystemExit(main())
