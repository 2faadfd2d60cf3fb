"""The one build step pyproject.toml cannot declare: the wheel carries `fixtures/` as package data.

`fixtures/` stays at the top of the checkout, the one copy the tests, the docs and `devlint confirm`
in a checkout read; a wheel (`pip install .`, `python -m build`, also built from the sdist, which
grafts `fixtures/`) gets it as `devlint/frontends/runtime/fixtures/`, where the companion finds it
with importlib.resources. An editable install reads the checkout's own, so nothing is copied then.
Everything else is in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PACKAGED = Path("devlint", "frontends", "runtime", "fixtures")  # devlint.frontends.runtime.cli reads it there


class BuildPyWithFixtures(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib) / PACKAGED
        shutil.rmtree(target, ignore_errors=True)  # a stale build/ must not keep a fixture since removed
        shutil.copytree(FIXTURES, target, ignore=shutil.ignore_patterns("__pycache__", "*.py[cod]"))


setup(cmdclass={"build_py": BuildPyWithFixtures})
