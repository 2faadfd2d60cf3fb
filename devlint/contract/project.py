"""Who devlint is: its version and where the project and its rule pages live (the one place each
is spelled).

A leaf module (it imports nothing), so that every layer, rules included, can name the version and
the pages without importing the package's front door (`devlint/__init__.py`, the public API)."""

__version__ = "0.1.0"

PROJECT_URL = "https://github.com/devlint/devlint"
DOCS_URL = f"{PROJECT_URL}/blob/main/docs/rules"
