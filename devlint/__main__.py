"""`python -m devlint` runs the command-line interface."""

from devlint.frontends.cli import main

raise SystemExit(main())
