"""Where the project and its rule pages live: the one place the URLs are spelled.

A leaf module (it imports nothing), so that rules can name their pages without importing the
package's front door, which imports the layers above them."""

PROJECT_URL = "https://github.com/devlint/devlint"
DOCS_URL = f"{PROJECT_URL}/blob/main/docs/rules"
