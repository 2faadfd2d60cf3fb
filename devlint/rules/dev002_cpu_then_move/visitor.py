"""DEV002 — tensor created on the CPU, then moved: the visitor (the finding and its fix are
devlint/rules/_factory_moves/, shared with DEV011)."""

from __future__ import annotations

from devlint.rules._factory_moves.visitor import ALLOCATION, FactoryMoveVisitor
from devlint.rules.dev002_cpu_then_move import RULE


class CpuTensorThenMove(FactoryMoveVisitor):
    rule = RULE
    finds = ALLOCATION
    message = "`torch.{name}(...)` is created on the CPU and {when} `{move}`; create it on the device: {suggestion}"

    def finish(self) -> None:
        """By default only a copy the code shows to repeat (in a loop, a `forward` or a step, or a function the
        project calls so), with where its cost is paid; a one-time copy (start-up, a test's input) is preview's."""
        kept = []
        for factory, message, fix in self.pending:
            where = self.repeats.get(id(factory))
            if where is None and not self.preview:
                continue
            kept.append((factory, message if where is None else f"{message} ({where})", fix))
        self.pending = kept
        super().finish()
