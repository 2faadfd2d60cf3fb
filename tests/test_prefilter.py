"""The prefilter never loses a report: every rule, with and without it, reports the same.

The prefilter's two stages skip rules, and whole files: the text search (devlint/analysis/prefilter.py)
those whose tokens are not in the text, the syntax screen (devlint/analysis/screen.py) those with no
candidate in the file's `ast`. These tests run the engine both ways over every fixture, over
files assembled from corpus-like snippets (tricky spellings included: escapes, split strings,
comments and continuations inside a call; aliases, helpers of `forward`, chains, split moves),
and over generated programs with those snippets spliced in.
"""

from __future__ import annotations

import re
import textwrap
import warnings

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from devlint.analysis import screen as screen_module
from devlint.engine import cst_stage, engine
from devlint.engine.engine import analyze
from devlint.engine.selection import enabled_rules, prefilter, screen
from devlint.frontends.flake8 import Plugin
from devlint.engine.settings import Settings

from conftest import RULE_DIRS
from generated_programs import PROGRAMS

# Every default rule, and DEV003, DEV004, DEV005 and DEV009: rules in preview, which run where their code is named.
ALL = Settings(select=("DEV",), extend_select=("DEV003", "DEV004", "DEV005", "DEV009"))
# The same with the preview shapes, which some screens keep a rule for only when preview is on.
ALL_PREVIEW = Settings(select=("DEV",), extend_select=("DEV003", "DEV004", "DEV005", "DEV009"), preview=True)


def _reports(source: str) -> list[tuple[bool, int, int, str, str]]:
    return [(settings.preview, d.line, d.col, d.code, d.message) for settings in (ALL, ALL_PREVIEW)
            for d in analyze(source, "snippet.py", settings).diagnostics
            if d.code != "DEV999"]  # syntax errors are reported only for files that are parsed


def _both_ways(source: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list]:
    filtered = _reports(source)
    with monkeypatch.context() as patch:
        patch.setattr(engine, "prefilter", lambda text, rules: list(rules))
        patch.setattr(engine, "screen_with_facts", lambda text, rules, tree=None, **_: (list(rules), None))
        unfiltered = _reports(source)
    return filtered, unfiltered


def _assert_screen_keeps(code: str, source: str, kept: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen keeps rule `code` for `source` exactly when `kept`, and the rule agrees: what it drops is
    never reported (the reports are the same with and without both stages, in both modes)."""
    assert (code in _screened(source)) is kept
    filtered, unfiltered = _both_ways(source, monkeypatch)
    assert filtered == unfiltered


def _kept(source: str) -> list[str]:
    return [entry.rule.code for entry in prefilter(source, enabled_rules(ALL, None))]


def _screened(source: str) -> list[str]:
    return [entry.rule.code for entry in screen(source, prefilter(source, enabled_rules(ALL, None)))]


FIXTURE_FILES = sorted(path for directory in RULE_DIRS for path in directory.glob("*.py"))


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixtures_report_the_same_with_and_without_the_prefilter(path, monkeypatch):
    filtered, unfiltered = _both_ways(path.read_text(), monkeypatch)
    assert filtered == unfiltered


# Lines as they appear in real training code, and spellings meant to slip past a naive filter.
SNIPPETS = [
    "import torch", "import torch as th", "import torch.nn as nn", "from torch import zeros, load, nn, Tensor",
    "from torch import zeros as z", "from torch import load as ld", "from torch.nn import Module", "import numpy as np",
    "device = 'cuda'", 'device = "cuda:0"', 'DEVICE = "\\x63uda"', 'dev = "cu" "da"', "dev = ('cu'\n       'da:1')",
    'device = "cu\\\nda"', 'x = torch.zeros(3, device="\\u0063uda")',
    "x = torch.zeros(3)", "x = x.to(device)", "x.to(device)", "x.cuda()", "y.cpu()", "x.pin_memory()",
    "x = th.ones(2, 3)\nx.to(dev)", "x = torch.randn(4)\nx = x.to(device)", "x = z(4)\nx = x.cuda()",
    "def total(preds):\n    losses = []\n    for p in preds:\n        if p.numel():\n"
    "            losses.append(torch.tensor(0))\n    return torch.stack(losses)",
    "x = torch.tensor([1, 2]).cuda()", "mask = torch.ones(4, 4).to(device)", "t = torch.arange(5).float().to(dev)",
    "(x\n .to  # move it\n (device))", "x.\\\nto(device)", "x . cuda ( )", "out = th.zeros(3).to(  # c\n  dev)",
    "state = torch.load(path)", "model.load_state_dict(torch.load(path))", "s = ld(path)",
    "m = th.jit.load(p)", "ckpt = torch.serialization.load(f)", "torch.save(model, path)",
    "model = Net().cuda()", "if torch.cuda.is_available():\n    model.cuda()", "torch.set_default_device('cuda')",
    "with torch.device('cuda'):\n    w = torch.zeros(3)",
    "class Net(nn.Module):\n    def forward(self, x):\n        pos = torch.arange(x.size(1))\n        return x + pos",
    "class Head(Module):\n    def forward(self, x: Tensor):\n        return x * z(3)",
    "class Block(nn.Module):\n    def forward(self, x):\n        return x + torch.tensor(0.5)",
    "def forward(x):\n    return torch.ones(3)",
    "for images, labels in loader:\n    images.to(device)\n    labels = labels.to(device)",
    "batch = tokenizer(text).to(device)", "model.to(device)", "self.weight.to(device)",
    "x = torch.randn(8)  # noqa: DEV002", "t = 'torch'", "# torch cuda forward load zeros .to(",
    "class Old(nn.Module):\n    def forward(self, x):\n        return x + torch.FloatTensor(3)",
    "class Sparse(nn.Module):\n    def forward(self, x):\n        return torch.sparse_coo_tensor([[0]], [1.0])",
    "class Helper(nn.Module):\n    def forward(self, x):\n        return self.make(x)\n"
    "    def make(self, x):\n        return torch.LongTensor([1, 2])",
    "opts = {'device': 'cuda'}\ny = torch.zeros(2, **opts)",
    "if isinstance(x, torch.Tensor):\n    x.to(device)",
    "state = torch.load(path, map_location=None)",
    # for the syntax screen: what each rule's candidate looks like to `ast`, and what it must not miss
    "x = torch.zeros(3); x = x.to(device)", "x = torch.ones(2)\ny = 1\nprint(y)\nx = x.cuda()",
    "t = torch.empty(3).type(torch.float).cuda()", "t = torch.arange(4).view(1, -1).to(dev)",
    "t = torch.full((2,), 1.0).to(dtype=torch.half).to(dev)", "t = torch.zeros(3, device=d).to(dev)",
    "t = torch.zeros(3, **kw).to(dev)", "t = torch.zeros(*shape).to(dev)", "t = torch.ones(*i.shape, dtype=bool).to(device)",
    "t = torch.LongTensor(ids).to(dev)", "t = th.FloatTensor([1.0]).cuda()", "t = torch.Tensor().to(dev)",
    "ids = torch.LongTensor(ids)\nids = ids.to(dev)", "from torch import ByteTensor\nm = ByteTensor(3).cuda()",
    "t = torch.randn(3, generator=g).to(dev)", "g = torch.rand(2, generator=gen)\ng = g.cuda()", "t = torch.zeros_like(x).to(dev)",
    "def f():\n    from torch import ones as o\n    return o(3).to(dev)",
    "class A(nn.Module):\n    async def forward(self, x):\n        return torch.arange(3)",
    "class B(nn.Module):\n    @deco(torch.zeros(3))\n    def forward(self, x):\n        return x",
    "class C(nn.Module):\n    def forward(self, x): return x + torch.ones(2)",
    "class D(nn.Module):\n    def forward(self, x):\n        def inner():\n            return torch.eye(2)\n"
    "        return inner()",
    "def helper(n):\n    return torch.arange(n)\nclass E(nn.Module):\n    def forward(self, x):\n"
    "        return x + helper(3)",
    "class F(nn.Module):\n    def forward(self, x):\n        return self.a(x)\n    def a(self, x):\n"
    "        return self.b(x)\n    def b(self, x):\n        return x + torch.randn(3)",
    "def build():\n    class G(nn.Module):\n        def forward(self, x):\n            return torch.ones(3)\n"
    "    return G",
    "class H(nn.Module):\n    def __init__(self):\n        self.w = torch.zeros(3)\n    def forward(self, x):\n"
    "        return x * self.w",
    "class I(nn.Module):\n    def forward(self, x):\n        return (x + torch.tensor(0.5) + torch.tensor(-1)"
    " + torch.tensor(True) + torch.rand([]) + torch.zeros(()) + torch.tensor(self.eps) + torch.tensor([1]))",
    "class J(nn.Module):\n    def forward(self, x):\n        return x + torch.Tensor() + torch.LongTensor(size=3)",
    "class K(nn.Module):\n    def forward(self, x):\n        return torch.sparse_coo_tensor(i, v, device=x.device)",
    "from torch import load\nstate = load(path)", "state = th.load(f=path)", "m = torch.jit.load()",
    "d = 'cu' f'da'", "d = f'cuda'", "d = b'cuda'", "d = ' cuda:1 '", "d = 'cuda:x'", "x.cuda(0)",
    "x.to('cuda:%d' % i)", "torch.zeros(2, device=f'cuda:{rank}')", "d = torch.device('cuda:' + str(i))",
    "x.to('cuda:{}'.format(i))", "m = M.from_hparams(run_opts={'device': 'cuda'})", "opts = dict(device='cuda')",
    "def f(x: torch.Tensor):\n    return x.cpu().cumsum(0).cuda()",
    "if x.device != torch.device('cuda'):\n    x = x.to(torch.device('cuda'))",
    "y = torch.ones(2, **{'device': 'cuda'})", "dev: str = 'cuda'", "def g(device='cuda'):\n    return device",
    "from torch import nn as torch\nx = torch.zeros(3).to(d)", "import torch.nn\nx = torch.zeros(2).cuda()",
    # DEV001: receivers known from forward, buffers, loops and branches
    "class L(nn.Module):\n    def forward(self, inp, mask=None):\n        inp.to(self.device)\n        mask.cuda()",
    "class M(nn.Module):\n    def __init__(self):\n        self.register_buffer('g', torch.zeros(2))\n"
    "    def forward(self, f):\n        self.g.to(device=f.device)",
    "h = torch.zeros(2)\nif torch.cuda.is_available():\n    h.cuda()",
    "for step, (images, target) in enumerate(loader):\n    images.to(dev)",
    "for k, v in batch.items():\n    v.to(dev)", "for v in batch.values():\n    v.to(dev, non_blocking=True)",
    "v = torch.as_tensor(a)\nif w:\n    v = cls(v)\nelif d:\n    v.to(d)",
    # DEV001 and DEV007: parameter loops, parameters moved before they are stored
    "for p in model.parameters():\n    p.to(dev)\n    p.half()",
    "for n, b in enumerate(model.named_buffers()):\n    b.cuda()",
    "for k, v in model.state_dict().items():\n    v.float()",
    "class N(nn.Module):\n    def __init__(self):\n        self.w = nn.Parameter(torch.ones(2)).to(dev)",
    "from torch.nn import Parameter as Q\nclass O:\n    def __init__(self):\n        self.w = Q(torch.ones(2)).cuda()",
    # DEV007: each conversion, and what is not one
    "x = torch.zeros(3)\nx.float()\nx.half()\nx.double()\nx.bfloat16()\nx.long()\nx.int()\nx.bool()",
    "def f(x: torch.Tensor):\n    x.type(torch.half)\n    x.contiguous()\n    x.detach()\n    x.clone()\n    x.type()",
    "model = nn.Linear(2, 2)\nmodel.half()", "def g(m):\n    m.half()\n    m.long()",
    "for k, v in batch.items():\n    v.float()", "(x\n .float  # cast\n ())",
    # DEV006: conversions of placed tensors, NumPy however imported, device evidence of each kind
    "y = x.cuda()\nprint(y.numpy())", "print(np.asarray(x.to('cuda') * 2))", "from numpy import asarray as aa",
    "print(aa(x.cuda()))", "import numpy\nprint(numpy.array(x.cuda()))", "from numpy import *\nprint(array(x.cuda()))",
    "w = torch.zeros(3, device='cuda')\nprint(w.numpy())", "dev = torch.device('cuda' if ok else 'cpu')",
    "model.to(dev)\nout = model(x)\nprint(out.detach().numpy())", "print(x.to(\n  dev).numpy())",
    "print(x.  # c\n  cuda().numpy())", "z = torch.ones(2, device=dev).numpy(force=True)",
    "def h(x):\n    y = x.cpu().cuda()\n    return y[0].cpu().to('cuda').numpy(), x.cuda().cpu().numpy()",
    "def mv(x):\n    return x.cuda()\nz = np.asarray(mv(w))", "def k(x):\n    def inner():\n        return x.numpy()\n"
    "    x = x.cuda()\n    return inner",
    "class T:\n    def m(self, x):\n        y = x.to('cuda')\n        return [y.numpy()]",
    # DEV009: a distributed start and unindexed CUDA, spelled in several ways
    "import torch.distributed as dist\ndist.init_process_group('nccl')\nm = net.cuda()",
    "from torch.distributed import init_process_group as ipg\nipg('nccl')\nm = net.cuda()",
    "from torch.distributed import init_process_group\ninit_process_group('nccl')\nx.to('cuda')",
    "from torch.nn.parallel import DistributedDataParallel as DDP\nd = torch.device('cu' 'da')",
    "r = int(os.environ['LOCAL_' 'RANK'])\nx = y.to('cuda' if ok else 'cpu')",
    "r = int(os.getenv('\\x4cOCAL_RANK'))\ndef get_device():\n    return 'cuda'",
    # DEV005: what its screen must still see a meeting in, and the near misses it drops
    "class P(nn.Module):\n    def __init__(self, dim):\n        super().__init__()\n"
    "        self.w = nn.Parameter(torch.randn(6, dim) / dim ** 0.5)",
    "class Q(nn.Module):\n    def forward(self, x):\n        n = x.size(1)\n        pos = torch.arange(n) * n\n"
    "        return x + pos.to(x.device)",
    "class R(nn.Module):\n    def forward(self, x):\n        m = torch.tensor(cfg.mean).view(1, -1).to(x.device, x.dtype)\n"
    "        return x - m",
    "class W(nn.Module):\n    def forward(self, x):\n        p = torch.rand([])\n        if p < self.layerdrop:\n"
    "            return x\n        return x * 2",
    "def total(preds, targets):\n    out = torch.zeros(3)\n    for p, t in zip(preds, targets):\n"
    "        out = out + p.float()\n    return out",
    "class S(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.register_buffer('scale', torch.ones(3))\n    def forward(self, x):\n"
    "        return self.scale * torch.arange(3)",
    "class U(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.proj = nn.Linear(3, 3)\n"
    "    def forward(self, x):\n        return self.proj(torch.zeros(2, 3))",
    "class V(nn.Module):\n    def forward(self, x: Tensor):\n        return torch.stack([x.sum(), torch.tensor(0.5)])",
    "class X(nn.Linear):\n    def forward(self, x):\n        h = torch.ones(3).float()\n        return self.weight @ h",
    # DEV010: host reads of non-blocking copies
    "def h(x):\n    y = x.to('cpu', non_blocking=True)\n    return y.tolist()",
    "def h(x):\n    return x.to(th.device('cpu'), non_blocking=True).numpy()",
    "def h(x):\n    b = torch.empty(2, pin_memory=True)\n    b.copy_(x, non_blocking=True)\n    print(b)",
    "def h(x, d):\n    y = x.to(d, non_blocking=True)\n    z = x.to(device='cpu', non_blocking=True)\n"
    "    return y.tolist(), z.numpy()",
]


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_each_snippet_reports_the_same_with_and_without_the_prefilter(snippet, monkeypatch):
    source = "import torch\nimport torch as th\nfrom torch import nn\n" + snippet + "\n"
    filtered, unfiltered = _both_ways(source, monkeypatch)
    assert filtered == unfiltered


def _program(indices: list[int]) -> str:
    return "\n".join(SNIPPETS[i] for i in indices) + "\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, len(SNIPPETS) - 1), min_size=1, max_size=8))
def test_snippet_programs_report_the_same_with_and_without_the_prefilter(indices):
    source = _program(indices)
    with pytest.MonkeyPatch.context() as monkeypatch:
        filtered, unfiltered = _both_ways(source, monkeypatch)
    assert filtered == unfiltered, source


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_generated_programs_with_torch_spliced_in_report_the_same(data):
    program = data.draw(PROGRAMS)
    indices = data.draw(st.lists(st.integers(0, len(SNIPPETS) - 1), min_size=1, max_size=4))
    lines = program.splitlines(keepends=True)
    at = data.draw(st.integers(0, len(lines)))
    # Splice between top-level statements only where the program has none indented after `at`.
    if at < len(lines) and lines[at][:1] in (" ", "\t"):
        at = len(lines)
    source = "".join(lines[:at]) + ("\n" if lines[:at] and not lines[at - 1].endswith("\n") else "")
    source += _program(indices) + "".join(lines[at:])
    with pytest.MonkeyPatch.context() as monkeypatch:
        filtered, unfiltered = _both_ways(source, monkeypatch)
    assert filtered == unfiltered, source


def test_a_file_without_any_rule_tokens_is_not_parsed(monkeypatch):
    def no_parse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(cst_stage.cst, "parse_module", no_parse)
    assert analyze("import torch\nx = torch.relu(y)\n", "a.py", ALL).diagnostics == []


@pytest.mark.parametrize("source, code", [
    ('import torch\ndevice = "\\x63uda"\n', "DEV003"),
    ('import torch\ndevice = "cu" "da"\n', "DEV003"),
    ('import torch\ndevice = "cu\\\nda"\n', "DEV003"),
    ("import torch\nx = torch.randn(3)\n(x\n .to  # move\n (dev))\n", "DEV001"),
    ("import torch\nx = torch.randn(3)\nx.\\\nto(dev)\n", "DEV001"),
    ("from torch import load as ld\nld(p)\n", "DEV004"),
    ("import torch\nx = torch.randn(3)\n(x\n .half  # cast\n ())\n", "DEV007"),
    ("import torch\nx = torch.randn(3)\nx.\\\nlong()\n", "DEV007"),
    ("import torch\nfrom torch.nn import Parameter as Q\nclass O:\n    def __init__(self, d):\n"
     "        self.w = Q(torch.ones(2)).to(d)\n", "DEV001"),
    ("import torch\nx.to(f'cuda:{i}')\n", "DEV003"),
    ("import torch\nx.to('cuda:%d' % i)\n", "DEV003"),
    ("import torch\nx.to('cuda:' + str(i))\n", "DEV003"),
    ("import torch\nx.to('cuda:{}'.format(i))\n", "DEV003"),
    ("from torch.cuda import amp as a\nwith a.autocast():\n    pass\n", "DEV008"),
    ("import torch.cuda.amp as m\ns = m.GradScaler()\n", "DEV008"),
    ("from torch.cuda.amp import custom_fwd as cf\n@cf\ndef f(ctx, x):\n    pass\n", "DEV008"),
    ("import torch\nwith torch.cuda\\\n.amp.autocast():\n    pass\n", "DEV008"),
    ("import torch\nimport numpy as np\ny = np.asarray(x.\\\ncuda())\n", "DEV006"),
    ("import torch\nfrom numpy import array as a\ny = a(torch.ones(2, device='cuda'))\n", "DEV006"),
])
def test_tricky_spellings_keep_their_rule(source, code):
    assert code in _kept(source)
    assert code in [c for _, _, _, c, _ in _reports(source)]


@pytest.mark.parametrize("source, code", [
    ("import torch\nx.total()\n", "DEV001"),
    ("import torch\nx.floats()\nx.halfway()\n", "DEV007"),
    ("import torch\nmodel.load_state_dict(state)\n", "DEV004"),
    ("import torch\nclass M(nn.Module):\n    def forward(self, x):\n        return x\n", "DEV005"),
    ("import torch\ny = torch.zeros(3)\n", "DEV002"),
    ('x = torch.zeros(3, device="cpu")\n', "DEV003"),
    ('import torch\nwith torch.autocast("cuda"):\n    pass\n', "DEV008"),
])
def test_files_without_a_rules_tokens_drop_that_rule(source, code):
    assert code not in _kept(textwrap.dedent(source))


def test_a_file_whose_ast_holds_no_candidate_is_not_parsed(monkeypatch):
    source = textwrap.dedent('''
        """Example: `x.to(device)` is discarded; use torch.zeros(3, device=d) in forward."""
        import torch

        def forward(x, d):
            mask = torch.zeros(3, device=d)  # not x.cuda()
            return x.to(d) + mask
    ''')
    # the words are all there (for DEV009, `"""` may be a split "LOCAL_RANK")
    assert _kept(source) == ["DEV001", "DEV002", "DEV003", "DEV005", "DEV009"]
    assert _screened(source) == []

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(cst_stage.cst, "parse_module", no_parse)
    result = analyze(source, "a.py", ALL)
    assert result.diagnostics == [] and result.skipped


# DEV005's screen: a meeting needs the factory's tensor beside one that may come from the inputs.
_MODULE = "import torch\nfrom torch import nn, Tensor\n"


@pytest.mark.parametrize("body", [
    # built in `__init__` from sizes: the module's tensors do not exist yet, `dim` is a number
    "class P(nn.Module):\n    def __init__(self, dim):\n        super().__init__()\n"
    "        self.w = nn.Parameter(torch.randn(6, dim) / dim ** 0.5)\n",
    # sizes read from an input are numbers
    "class Q(nn.Module):\n    def forward(self, x):\n        n = x.size(1)\n        pos = torch.arange(n) * n\n"
    "        return x[:, :n], pos\n",
    # placed in the same chain it was made in
    "class R(nn.Module):\n    def forward(self, x):\n        m = torch.tensor(cfg.mean).view(1, -1).to(x.device)\n"
    "        return x - m\n",
    # the parameter or the factory's tensor: one name, either of the two, never both in one operation
    "def gaussian(sigma: Tensor, n: int):\n    if isinstance(sigma, float):\n        sigma = torch.tensor([[sigma]])\n"
    "    return 2 * sigma.pow(2.0)\n",
    # a 0-dim draw compared with a number the module holds
    "class W(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.layerdrop = 0.1\n"
    "    def forward(self, x):\n        p = torch.rand([])\n        if p < self.layerdrop:\n"
    "            return x\n        return x * 2\n",
])
def test_the_host_tensor_screen_drops_tensors_that_meet_no_input(body):
    source = _MODULE + body
    assert "DEV005" in _kept(source)
    assert "DEV005" not in _screened(source)


@pytest.mark.parametrize("body", [
    "def total(preds, targets):\n    out = torch.zeros(3)\n    for p, t in zip(preds, targets):\n"
    "        out = out + p.float()\n    return out\n",
    "class S(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.register_buffer('scale', torch.ones(3))\n    def forward(self, x):\n"
    "        return self.scale * torch.arange(3)\n",
    "class U(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.proj = nn.Linear(3, 3)\n"
    "    def forward(self, x):\n        return self.proj(torch.zeros(2, 3))\n",
    "class V(nn.Module):\n    def forward(self, x: Tensor):\n        return torch.stack([x.sum(), torch.tensor(0.5)])\n",
    "class Y(nn.Module):\n    def forward(self, x: Tensor):\n        return x + torch.FloatTensor([])\n",
    "class X(nn.Linear):\n    def forward(self, x):\n        h = torch.ones(3).float()\n        return self.weight @ h\n",
    # a method's host tensor met by the method that calls it
    "class Z(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.proj = nn.Linear(3, 3)\n"
    "    def start(self, n):\n        return torch.zeros(n, 3)\n"
    "    def forward(self, x):\n        return self.proj(x) + self.start(x.size(0))\n",
    # an optimizer's state, kept by key and updated from a parameter's gradient
    "class O(torch.optim.Optimizer):\n    def step(self):\n        for group in self.param_groups:\n"
    "            for p in group['params']:\n                state = self.state[p]\n"
    "                state['m'] = torch.zeros(p.grad.shape)\n                state['m'].add_(p.grad)\n",
])
def test_the_host_tensor_screen_keeps_each_kind_of_input(body):
    source = _MODULE + body
    assert "DEV005" in _screened(source)
    assert "DEV005" in [code for _, _, _, code, _ in _reports(source)]


def test_the_host_tensor_flow_is_read_only_in_the_functions_the_screen_kept(monkeypatch):
    from devlint.rules.dev005_host_tensor_meets_input import visitor

    source = _MODULE + textwrap.dedent("""
        class Net(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.w = nn.Parameter(torch.zeros(n))

            def forward(self, x: Tensor):
                def helper(k):
                    return torch.arange(k) * 2
                return x + torch.ones(3)

        def sizes(n):
            return torch.arange(n) + n
    """)
    read = []

    class CountingReader(visitor.FlowReader):
        def __init__(self, function, *args, **kwargs):
            read.append(function.name.value)
            super().__init__(function, *args, **kwargs)

    monkeypatch.setattr(visitor, "FlowReader", CountingReader)
    reports = _reports(source)
    assert read == ["forward", "forward"]  # once in each mode
    assert [(preview, line, code) for preview, line, _, code, _ in reports] == [(False, 12, "DEV005"), (True, 12, "DEV005")]


@pytest.mark.parametrize("source, kept", [
    ("import torch\ny = x.to('cpu', non_blocking=True)\nprint(y.tolist())\n", True),
    ("import torch\ny = x.to(torch.device('cpu'), non_blocking=True)\nprint(y.tolist())\n", True),
    ("import torch\ny = x.to(dtype=torch.half, device='cpu', non_blocking=True)\nprint(y.tolist())\n", True),
    # to a device held in a name: the rule never sees the host there
    ("import torch\ny = x.to(self.device, non_blocking=True)\nprint(y.tolist())\n", False),
    ("import torch\ny = x.to(device=dev, non_blocking=True)\nprint(y.tolist())\n", False),
])
def test_the_nonblocking_screen_keeps_only_copies_that_may_go_to_the_host(source, kept):
    assert ("DEV010" in _screened(source)) is kept


@pytest.mark.parametrize("source", [
    "import torch\nx.to(d)\nprint 'python 2'\n",  # neither parser accepts it: LibCST reports DEV999
    "import torch\nx.to(d)\ns = 'a\x00b'\n",  # CPython refuses null bytes
])
def test_what_ast_cannot_parse_is_not_screened(source):
    assert _screened(source) == _kept(source) != []


def test_invalid_escapes_print_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _screened('import torch\npattern = "\\d+"\nx.to(d)\n') == ["DEV001"]


def test_the_flake8_plugin_screens_with_the_tree_flake8_parsed(monkeypatch):
    import ast

    source = "import torch\nx = torch.zeros(3, device=d)\ny = x.to(d)\n"
    tree = ast.parse(source)

    def no_parse(text):
        raise AssertionError("parsed again")

    monkeypatch.setattr(screen_module, "parse", no_parse)
    monkeypatch.setattr(cst_stage.cst, "parse_module", no_parse)
    assert list(Plugin(tree, source.splitlines(keepends=True), "a.py").run()) == []


def test_the_numpy_screen_keeps_the_callers_signs_only_in_preview():
    source = "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def forward(self, x):\n        return x.numpy()\n"
    rules = prefilter(source, enabled_rules(ALL_PREVIEW, None))
    assert "DEV006" in [entry.rule.code for entry in screen(source, rules, preview=True)]
    assert "DEV006" not in [entry.rule.code for entry in screen(source, rules, preview=False)]
    assert [code for _, _, _, code, _ in _reports(source)] == ["DEV006"]  # reported in preview only


@pytest.mark.parametrize("source, kept", [
    # a parameter the function runs as a module, or asks a module's question of
    ("import torch\ndef place(model, device, x):\n    model.to(device)\n    return model(x)\n", False),
    ("import torch\ndef place(model, device):\n    model.cuda()\n    return torch.optim.SGD(model.parameters(), 0.1)\n",
     False),
    # `self` of a class, and a `self.<attr>` the class calls
    ("import torch\nclass Net:\n    def place(self, device):\n        self.to(device)\n", False),
    ("import torch\nclass Pipe:\n    def place(self, d):\n        self.vae.to(d)\n    def run(self, x):\n"
     "        return self.vae(x)\n", False),
    ("import torch\nclass Pipe:\n    def place(self, d):\n        self.vae.to(d)\n        s = self.vae.config.scale\n",
     False),
    # kept: a bare `model.eval()` says nothing; an `isinstance` test may make it a tensor; a tensor attribute
    ("import torch\ndef place(model, device):\n    model.eval()\n    model.to(device)\n", True),
    ("import torch\ndef place(x, device):\n    if isinstance(x, torch.Tensor):\n        x.to(device)\n    return x(1)\n",
     True),
    ("import torch\nclass Cache:\n    def place(self, d):\n        self.buf.to(d)\n    def size(self):\n"
     "        return self.buf.shape\n", True),
    ("import torch\ndef place(batch, device):\n    batch.to(device)\n", True),
    ("import torch\nclass T(torch.Tensor):\n    def place(self, d):\n        self.to(d)\n", True),
    # a local name the function calls; a loop variable over a module's parameters is reported whatever it is
    ("import torch\ndef place(cfg, device, x):\n    model = build(cfg)\n    model.to(device)\n    return model(x)\n",
     False),
    ("import torch\ndef place(model, device):\n    for p in model.parameters():\n        p.to(device)\n"
     "        kept = p.state_dict()\n", True),
    # a `self.<attr>` the class never binds nor uses as a tensor, an attribute of anything else: no evidence
    ("import torch\nclass Pipe:\n    def place(self, d):\n        self.safety_checker.to(d)\n", False),
    ("import torch\ndef place(components, d):\n    components.vae.to(d)\n", False),
    # kept: bound in the class, an attribute that is a tensor wherever it is read, a tensor test around it
    ("import torch\nclass Cache:\n    def __init__(self):\n        self.buf = torch.zeros(3)\n"
     "    def place(self, d):\n        self.buf.to(d)\n", True),
    ("import torch\nclass Cache:\n    buf: torch.Tensor\n    def place(self, d):\n        self.buf.to(d)\n", True),
    ("import torch\ndef place(layer, d):\n    layer.weight.to(d)\n", True),
    ("import torch\nclass Pipe:\n    def place(self, d):\n        if torch.is_tensor(self.vae):\n"
     "            self.vae.to(d)\n    def run(self, x):\n        return self.vae(x)\n", True),
])
def test_the_discarded_move_screen_drops_receivers_the_file_shows_are_modules(source, kept, monkeypatch):
    _assert_screen_keeps("DEV001", source, kept, monkeypatch)


@pytest.mark.parametrize("source, kept", [
    ("import torch\ndef f(width, device, dtype):\n    return torch.arange(end=width, device=device).to(dtype)\n", False),
    ("import torch\ndef f(n, x):\n    return torch.arange(n).to(x.dtype)\n", False),
    ("import torch\ndef f(n, cfg):\n    return torch.ones(n).to(dtype=cfg.torch_dtype)\n", False),
    ("import torch\ndef f(n, dtype):\n    m = torch.ones(n)\n    m = m.to(dtype)\n    return m\n", False),
    # kept: a device may be in there (`**kw`, a subscript's `.dtype` is no name, a dtype the rule must qualify)
    ("import torch\ndef f(n, kw):\n    return torch.ones(n).to(torch.float16, **kw)\n", True),
    ("import torch\ndef f(n, xs):\n    return torch.ones(n).to(xs[0].dtype)\n", True),
    ("import torch\ndef f(n):\n    return torch.ones(n).to(torch.float16)\n", True),
    ("import torch\ndef f(n, device):\n    return torch.ones(n).to(device)\n", True),
])
def test_the_factory_move_screen_skips_moves_to_a_dtype_only(source, kept, monkeypatch):
    _assert_screen_keeps("DEV002", source, kept, monkeypatch)


@pytest.mark.parametrize("source, kept_by", [
    # host data is DEV011's, an allocation DEV002's; a legacy constructor's arguments decide (both keep it)
    ("import torch\ndef f(xs, device):\n    return torch.tensor(xs).to(device)\n", ["DEV011"]),
    ("import torch\ndef f(xs, device):\n    t = torch.as_tensor(xs)\n    t = t.to(device)\n    return t\n", ["DEV011"]),
    ("import torch\ndef f(n, device):\n    return torch.zeros(n).to(device)\n", ["DEV002"]),
    ("import torch\ndef f(n, device):\n    t = torch.arange(n)\n    t = t.to(device)\n    return t\n", ["DEV002"]),
    ("import torch\ndef f(n, device):\n    return torch.LongTensor(n).to(device)\n", ["DEV002", "DEV011"]),
    ("import torch\ndef f(n, device):\n    return torch.LongTensor([n]).to(device)\n", ["DEV002", "DEV011"]),
])
def test_the_factory_move_screens_keep_only_their_own_kind_of_factory(source, kept_by, monkeypatch):
    rules = prefilter(source, enabled_rules(ALL_PREVIEW, None))
    assert [entry.rule.code for entry in screen(source, rules, preview=True)
            if entry.rule.code in ("DEV002", "DEV011")] == kept_by
    filtered, unfiltered = _both_ways(source, monkeypatch)  # (DEV011 runs in the preview half)
    assert filtered == unfiltered


@pytest.mark.parametrize("source, kept", [
    ("import numpy as np\nimport torch\ndef f(x, w, h):\n    y = x.cuda()\n    return np.array([w, h, w, h]), y\n", False),
    ("import numpy as np\nimport torch\ndef f(image, x):\n    y = x.cuda()\n    return np.array(image), y\n", False),
    # kept: the parameter rebound, a tensor made from it, `.numpy()` of it
    ("import numpy as np\nimport torch\ndef f(image):\n    image = image.cuda()\n    return np.array(image)\n", True),
    ("import numpy as np\nimport torch\ndef f(x):\n    return np.array(x.cuda() + 1)\n", True),
    ("import numpy as np\nimport torch\ndef f(x):\n    y = x.cuda()\n    return x.numpy(), y\n", True),
])
def test_the_numpy_screen_skips_arguments_that_are_never_one_tensor(source, kept, monkeypatch):
    _assert_screen_keeps("DEV006", source, kept, monkeypatch)


@pytest.mark.parametrize("source, kept", [
    # another tensor copied to the host anywhere down its chain: the rule reads the function's inputs as on a device
    ("import torch\ndef f(logits, labels):\n    p = logits.cpu().to(torch.float32).numpy()\n"
     "    return p, labels.numpy()\n", True),
    ("import torch\ndef f(logits, labels):\n    p = logits.cpu()[0].float().numpy()\n    return p, labels.numpy()\n",
     True),
    ("import torch\ndef f(logits, labels):\n    p = logits.float().numpy()\n    return p, labels.numpy()\n", False),
])
def test_the_numpy_screen_reads_a_copy_to_the_host_as_the_rule_does(source, kept, monkeypatch):
    _assert_screen_keeps("DEV006", source, kept, monkeypatch)


def _rule_tokens() -> list:
    from devlint.rules import all_rules

    return sorted({token for entry in all_rules() for token in entry.rule.tokens if not isinstance(token, str)},
                  key=lambda token: token.pattern)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["cuda", "mps", "xpu", "c", "cu", "cud", "m", "mp", "x", "xp", "'", '"', " ", "\\x63",
                                 "nccl", "LOCAL_", "RANK", "init_process_group", "numpy", "sklearn", "amp", "autocast",
                                 "GradScaler", ".", "to", "(", "#", "\n", "zeros", "Tensor", "non_blocking", "a", "_"]),
                max_size=24).map("".join))
def test_a_token_is_found_exactly_where_its_pattern_matches(text):
    """The substring tests before a pattern (`words()` of a few names, `any_of()` part by part) decide as the
    pattern's own search would."""
    from devlint.analysis.prefilter import token_found

    from devlint.analysis.prefilter import ACCELERATOR_STRING

    for token in _rule_tokens():
        assert token_found(token, (text,)) == (token.search(text) is not None), token.pattern
    # and the device-string token, looked for by a quote and what it follows, as the plain alternation it replaced
    plain = re.compile(r"""cuda|mps|xpu|\\[xuUN0-7]|(?:c(?:u|ud)?|mp?|xp?)["']""")
    assert token_found(ACCELERATOR_STRING, (text,)) == (plain.search(text) is not None)
