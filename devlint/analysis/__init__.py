"""What rules share: torch names, the traversal context, types by evidence, guards; the words and
`ast` facts their cheap stages ask before LibCST (prefilter.py, screen.py); tree walks (walk.py).

Each question is answered here once; rules only ask.
"""
