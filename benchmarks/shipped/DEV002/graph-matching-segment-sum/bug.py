# shipped: https://github.com/Lin-Yijie/Graph-Matching-Networks/pull/5
# A segment-sum helper made its accumulator with torch.zeros(...).cuda() (CPU allocation plus copy, every call); fixed by creating it with device=data.device.
import torch


def segment_sum(data, segment_ids, num_segments):
    if len(segment_ids.shape) == 1:
        s = torch.prod(torch.tensor(data.shape[1:])).long().cuda()
        segment_ids = segment_ids.repeat_interleave(s).view(segment_ids.shape[0], *data.shape[1:])

    shape = [num_segments] + list(data.shape[1:])
    out = torch.zeros(*shape).cuda().scatter_add(0, segment_ids, data)  # expect: DEV002
    return out.type(data.dtype)
