# shipped: https://github.com/pykeen/pykeen/pull/1076
# Macro rank evaluator turned the (possibly GPU) triple batch into numpy keys without .cpu(); fixed with .detach().cpu().numpy().
from collections import defaultdict

import numpy
import torch


class RankEvaluator:
    def __init__(self):
        self.ranks = defaultdict(list)

    def process_scores_(self, hrt_batch, target, scores, true_scores=None):
        batch_ranks = (scores > true_scores).sum(dim=1)
        self.ranks[target].append(batch_ranks.detach().cpu().numpy())


class MacroRankEvaluator(RankEvaluator):
    def __init__(self, triples: torch.Tensor):
        super().__init__()
        self.table = {tuple(row): 1.0 for row in triples.numpy().tolist()}
        self.weights = defaultdict(list)

    def process_scores_(self, hrt_batch, target, scores, true_scores=None):
        super().process_scores_(hrt_batch, target, scores, true_scores)
        cols = [0, 1] if target == "tail" else [1, 2]
        keys = hrt_batch[:, cols].detach().cpu().numpy().tolist()
        self.weights[target].append(numpy.asarray([self.table.get(tuple(k), 0.0) for k in keys]))
