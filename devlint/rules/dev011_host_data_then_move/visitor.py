"""DEV011 — host data made into a CPU tensor, then moved: the visitor (the finding and its fix are
devlint/rules/_factory_moves/, shared with DEV002)."""

from __future__ import annotations

from devlint.rules._factory_moves.visitor import HOST_DATA, FactoryMoveVisitor
from devlint.rules.dev011_host_data_then_move import RULE


class HostDataThenMove(FactoryMoveVisitor):
    rule = RULE
    finds = HOST_DATA
    message = ("`torch.{name}(...)` of host data is made on the CPU and {when} `{move}`; the data crosses once"
               " either way: give the factory the device, {suggestion}")
