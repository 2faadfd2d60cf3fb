"""DEV002 — tensor created on the CPU, then moved: the visitor (the finding and its fix are
devlint/rules/_factory_moves.py, shared with DEV011)."""

from __future__ import annotations

from devlint.rules._factory_moves import ALLOCATION, FactoryMoveVisitor
from devlint.rules.dev002_cpu_then_move import RULE


class CpuTensorThenMove(FactoryMoveVisitor):
    rule = RULE
    finds = ALLOCATION
    message = "`torch.{name}(...)` is created on the CPU and {when} `{move}`; create it on the device: {suggestion}"
