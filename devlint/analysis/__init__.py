"""What rules share: torch names, the traversal context, types by evidence, guards.

Each question is answered here once; rules only ask.
"""
