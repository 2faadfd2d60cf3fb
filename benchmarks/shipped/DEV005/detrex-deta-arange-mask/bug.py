# shipped: https://github.com/IDEA-Research/detrex/pull/295
# A CPU torch.arange over the anchors was indexed with a mask computed on the anchors' device; fixed with device=anchors.device.
import torch
import torch.nn as nn
from detectron2.modeling.matcher import Matcher
from detectron2.modeling.sampling import subsample_labels

from detrex.layers.box_ops import box_cxcywh_to_xyxy, box_iou


class FirstStageAssigner(nn.Module):
    def __init__(self, t_low=0.3, t_high=0.7, max_k=4):
        super().__init__()
        self.k = max_k
        self.anchor_matcher = Matcher(thresholds=[t_low, t_high], labels=[0, -1, 1], allow_low_quality_matches=True)

    def _subsample_labels(self, label):
        pos_idx, neg_idx = subsample_labels(label, 256, 0.5, 0)
        label.fill_(-1)
        label.scatter_(0, pos_idx, 1)
        label.scatter_(0, neg_idx, 0)
        return label

    def forward(self, outputs, targets):
        indices = []
        for b in range(len(targets)):
            anchors = outputs["anchors"][b]
            if len(targets[b]["boxes"]) == 0:
                empty = torch.tensor([], dtype=torch.long, device=anchors.device)
                indices.append((empty, empty))
                continue
            iou, _ = box_iou(box_cxcywh_to_xyxy(targets[b]["boxes"]), box_cxcywh_to_xyxy(anchors))
            matched_idxs, matched_labels = self.anchor_matcher(iou)
            matched_labels = self._subsample_labels(matched_labels)

            all_pr_inds = torch.arange(len(anchors))  # expect: DEV005
            pos_pr_inds = all_pr_inds[matched_labels == 1]
            pos_gt_inds = matched_idxs[pos_pr_inds]
            pos_pr_inds, pos_gt_inds = pos_pr_inds.to(anchors.device), pos_gt_inds.to(anchors.device)
            indices.append((pos_pr_inds, pos_gt_inds))
        return indices
