"""DEV017 — a float64 tensor sent to Apple's GPU (`mps`), which has no float64."""

from __future__ import annotations

import ast
from typing import Iterator

from devlint.analysis.prefilter import words
from devlint.analysis.screen import SyntaxFacts
from devlint.rules.rule import FixSafety, Rule, any_candidate

# NumPy's makers whose arrays are float64 unless given another dtype
NUMPY_FLOAT64 = frozenset({
    "zeros", "ones", "empty", "eye", "identity", "linspace", "loadtxt", "genfromtxt",
    "random.rand", "random.randn", "random.random", "random.uniform", "random.normal", "random.random_sample",
})
# torch's names for float64
TORCH_FLOAT64 = frozenset({"torch.float64", "torch.double"})


def _mps_places(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """Every call given the `"mps"` device: `.to("mps")`, `.to(torch.device("mps"))`, `device="mps"`."""
    for call in facts.calls:
        values = [*call.args[:1], *(keyword.value for keyword in call.keywords if keyword.arg == "device")]
        if any(_names_mps(value) for value in values):
            yield call
    for move in facts.moves:
        if move.args and _names_mps(move.args[0]) or any(
                keyword.arg == "device" and _names_mps(keyword.value) for keyword in move.keywords):
            yield move


def _names_mps(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.strip().partition(":")[0] == "mps"
    return isinstance(node, ast.Call) and bool(node.args) and _names_mps(node.args[0])


RULE = Rule(
    code="DEV017",
    name="float64-to-mps",
    summary="A float64 tensor is sent to `mps`, which has no float64: it raises on Apple silicon",
    why="""
        Apple's Metal backend has no 64-bit floats: `x.to("mps")` of a float64 tensor raises `TypeError: Cannot
        convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use float32
        instead.`, and so does a factory given `dtype=torch.float64, device="mps"`. float64 comes in quietly:
        NumPy makes float64 arrays by default (`np.zeros`, `np.random.rand`, `np.loadtxt`), and
        `torch.from_numpy` / `torch.as_tensor` keep their dtype; `.double()` and `dtype=torch.float64` ask for it.
        Convert on the way (`.to("mps", dtype=torch.float32)`, `.float()`), or make the array float32.
    """,
    details="""
        Reported where the file shows both in one function: the float64 value (made there, in the same expression or
        bound once to a name before the move) and the `"mps"` device written out. Not reported: a device that
        is not a literal (`device`), an array given another dtype (`np.zeros(n, dtype=np.float32)`),
        `torch.tensor([...])` of Python floats (float32 by default), a name bound more than once in the function.
    """,
    example="""
        weights = torch.from_numpy(np.random.rand(16, 8))
        weights = weights.to("mps")
    """,
    instead="""
        weights = torch.from_numpy(np.random.rand(16, 8)).float()
        weights = weights.to("mps")
    """,
    fix_safety=FixSafety.UNSAFE,
    fix="""
        `.to("mps")` becomes `.to("mps", dtype=torch.float32)`: unsafe, as any narrowing is: values lose precision
        (about 7 significant digits are kept of 16), and code that expects float64 results gets float32 ones. No
        fix for a factory given `dtype=torch.float64` (the dtype was asked for: the code needs to choose).
    """,
    tokens=("torch", words("mps")),
    screen=any_candidate(_mps_places),
    candidates=_mps_places,
    preview=True,
)
