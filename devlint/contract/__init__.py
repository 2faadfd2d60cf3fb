"""The contract every layer speaks: a report and its fix (diagnostics.py), and who devlint is
(project.py: version, project and rule-page URLs), and how a file's name is shown (display.py).

The bottom layer: it imports nothing from the package's other layers."""
