"""`devlint confirm`: run each rule's fixtures on the machine's real devices and show the evidence.

Only this package touches torch, and only inside child processes (`child.py` and the probes'
`run` functions): the parent plans snippets, runs one child per snippet, and judges the evidence
the children write back. Importing it never imports torch.
"""
