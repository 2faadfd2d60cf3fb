"""DEV006 — `.numpy()` / `np.asarray(...)` of a tensor the code put on a device.

Each case is a snippet and the exact `(line, col, code)` reports DEV006 gives on it; the report
points at the conversion call. Evidence must be positive: a move or a factory whose target the code
shows may be an accelerator, a moved model's output, and nothing that brings the value back between.
"""

from __future__ import annotations

import pytest

from conftest import lint
from rules.cases import cases_for, reports

case = cases_for("DEV006")

FLAGGED = [
    case("element_of_an_input_of_a_function_that_copies_another", """
        import numpy as np
        import torch
        def log(predictions, targets):
            expected = targets.detach().cpu().numpy()
            return np.mean(predictions[0].numpy() == expected)
    """, [(5, 20)]),
    case("private_method_handed_its_callers_inputs", """
        import numpy as np
        import torch
        class Logger:
            def step(self, predictions, targets):
                self._log(predictions, targets)
            def _log(self, predictions, targets):
                return np.mean(predictions.numpy() == targets.detach().cpu().numpy())
    """, [(7, 24)]),
    case("input_of_a_function_that_copies_another_to_the_host", """
        import numpy as np
        import torch
        def log(step, predictions, targets):
            expected = targets.detach().cpu().numpy()
            return np.mean(predictions.numpy() == expected)
    """, [(5, 20)]),
    case("input_of_an_override_whose_base_copies_to_the_host", """
        import torch
        class RankEvaluator:
            def process_scores_(self, batch, scores):
                self.ranks = scores.detach().cpu().numpy()
        class MacroRankEvaluator(RankEvaluator):
            def process_scores_(self, batch, scores):
                super().process_scores_(batch, scores)
                return batch[:, [0, 1]].detach().numpy().tolist()
    """, [(8, 16)]),
    case("metric_of_a_model_output", """
        import numpy as np
        import torch
        from sklearn import metrics
        def evaluate(net, images, labels):
            probs = torch.softmax(net(images.cuda()), 1)
            return metrics.confusion_matrix(labels.numpy(), probs.max(1)[1])
    """, [(6, 12)]),
    case("metric_imported_by_name_second_argument", """
        import torch
        from sklearn.metrics import f1_score
        def evaluate(model, loader):
            model = model.cuda()
            for images, labels in loader:
                predictions = model(images.cuda()).argmax(1)
                yield f1_score(labels.numpy(), predictions)
    """, [(7, 15)]),
    case("numpy_ufunc_of_a_model_output_on_a_moved_input", """
        import numpy as np
        import torch
        def has_nan(model, images):
            x = images.cuda()
            logit = model.forward(x)
            return np.isnan(logit.data.max())
    """, [(6, 12)]),
    case("output_of_a_held_net_on_an_input_moved_here", """
        import numpy as np
        import torch
        class Estimator(object):
            def __call__(self, image):
                x = torch.from_numpy(image).float()
                if torch.cuda.is_available():
                    x = x.cuda()
                with torch.no_grad():
                    return self.net(x).numpy()
    """, [(9, 20)]),
    case("cuda_then_numpy", """
        import torch
        def f(x):
            y = x.cuda()
            return y.numpy()
    """, [(4, 12)]),
    case("moved_to_a_cuda_string", """
        import torch
        def f(x):
            return x.to("cuda:0").numpy()
    """, [(3, 12)]),
    case("device_chosen_by_availability_at_module_level", """
        import torch
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        def f(x):
            y = x.to(device)
            return y.numpy()
    """, [(5, 12)]),
    case("device_chosen_in_the_function", """
        import torch
        def f(x, use_cuda):
            device = "cuda" if use_cuda else "cpu"
            return x.to(device).numpy()
    """, [(4, 12)]),
    case("device_parameter_whose_default_is_an_accelerator", """
        import torch
        def f(x, device="cuda"):
            return x.to(device).numpy()
    """, [(3, 12)]),
    case("device_keyword_and_dtype", """
        import torch
        DEVICE = torch.device("cuda")
        def f(x):
            return x.to(device=DEVICE, dtype=torch.float32).numpy()
    """, [(4, 12)]),
    case("self_device_bound_to_an_accelerator", """
        import torch
        class Runner:
            def __init__(self):
                self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            def run(self, x):
                return x.to(self.device).numpy()
    """, [(6, 16)]),
    case("factory_made_on_the_device", """
        import torch
        def noise(n):
            return torch.randn(n, device="cuda").numpy()
    """, [(3, 12)]),
    case("output_of_a_moved_model", """
        import torch
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        def predict(images):
            model = Net().to(device)
            with torch.no_grad():
                logits = model(images.to(device))
            return logits.argmax(1).numpy()
    """, [(7, 12)]),
    # issue 52: a module class of the file whose `forward` returns a tensor on every path: its output is one tensor
    case("numpy_function_of_the_output_of_a_module_class_of_the_file", """
        import numpy as np
        import torch
        from torch import nn
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)
            def forward(self, x):
                if x.dim() == 1:
                    return torch.sigmoid(self.fc(x))
                return self.fc(x).softmax(-1)
        def predict(images):
            model = Net().to(device)
            with torch.no_grad():
                return np.asarray(model(images.to(device)))
    """, [(16, 16)]),
    case("model_moved_in_place_by_a_statement", """
        import torch
        def embed(model, images):
            model.cuda()
            features = model(images.cuda())
            return features.numpy()
    """, [(5, 12)]),
    case("attribute_of_a_moved_models_output", """
        import torch
        def embed(model, batch):
            model.cuda()
            return model(batch).logits.numpy()
    """, [(4, 12)]),
    case("element_of_a_moved_batch", """
        import torch
        def show(batch):
            batch = [t.cuda() for t in batch]
            return batch[0].numpy()
    """, [(4, 12)]),
    case("unpacked_pairwise", """
        import torch
        def show(x, y):
            x, y = x.cuda(), y
            return x.numpy(), y.numpy()
    """, [(4, 12)]),
    case("np_asarray", """
        import numpy as np
        import torch
        def f(x):
            return np.asarray(x.cuda() * 2)
    """, [(4, 12)]),
    case("np_array_through_numpy_imported_plainly", """
        import numpy
        import torch
        def f(x):
            y = x.cuda()
            return numpy.array(y)
    """, [(5, 12)]),
    case("asarray_imported_from_numpy", """
        from numpy import asarray as to_array
        import torch
        def f(x):
            y = x.cuda()
            return to_array(y)
    """, [(5, 12)]),
    case("torch_functions_and_methods_keep_the_device", """
        import torch
        import torch.nn.functional as F
        def f(x):
            y = x.cuda()
            probs = F.softmax(torch.relu(y), dim=1).float()
            return probs.numpy()
    """, [(6, 12)]),
    case("moved_on_one_branch_only", """
        import torch
        def f(x):
            if torch.cuda.is_available():
                x = x.cuda()
            return x.numpy()
    """, [(5, 12)]),
    case("moved_in_a_loop", """
        import torch
        def f(loader):
            device = torch.device("cuda")
            outs = []
            for images in loader:
                images = images.to(device)
                outs.append(images.numpy())
            return outs
    """, [(7, 21)]),
    case("moved_to_another_placed_tensor", """
        import torch
        def f(x, y):
            ref = y.cuda()
            return x.to(ref).numpy(), x.to(ref.device).numpy()
    """, [(4, 12), (4, 31)]),
    case("moved_to_a_device_the_caller_chooses", """
        import torch
        def f(x, device):
            return x.to(device).numpy()
    """, [(3, 12)]),
    case("input_of_a_function_that_asks_where_its_inputs_are", """
        import torch
        def summarize(logits, labels):
            weights = torch.ones(labels.shape[0], device=labels.device)
            predictions = logits.argmax(-1).numpy()
            return predictions, weights
    """, [(4, 19)]),
    case("value_of_a_batch_dict_in_a_step_of_a_module", """
        import lightning as L
        import torch
        class Classifier(L.LightningModule):
            def validation_step(self, batch, batch_idx):
                labels = batch["labels"].numpy()
                return labels
    """, [(5, 18)]),
    case("attribute_of_an_input_used_as_a_tensor", """
        import numpy
        import torch
        class ClassifierHead(torch.nn.Module):
            def process_output(self, output):
                probs = output.probs
                if not isinstance(probs, numpy.ndarray):
                    probs = probs.data.numpy()
                return output.logits.detach().numpy(), probs
    """, [(7, 21), (8, 16)]),
    case("parameter_of_a_submodule", """
        import torch
        from torch import nn
        class Tagger(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.crf = CRF(n)
            def transitions(self):
                return self.crf.transitions.detach().numpy()
    """, [(8, 16)]),
    case("buffer_of_the_module_itself", """
        import torch
        from torch import nn
        class Scaler(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("mean", torch.zeros(3))
            def stats(self):
                return self.mean.numpy()
    """, [(8, 16)]),
    case("accumulated_state_of_a_metric", """
        import torch
        from torchmetrics import Metric
        class AUROC(Metric):
            def __init__(self):
                super().__init__()
                self.add_state("preds", default=[], dist_reduce_fx="cat")
            def compute(self):
                return score(torch.cat(self.preds).numpy())
    """, [(8, 22)]),
    case("output_of_a_model_handed_in", """
        import torch
        def predict(model, images):
            with torch.no_grad():
                return model(images).argmax(1).numpy()
    """, [(4, 16)]),
    case("output_of_a_layer_the_module_holds", """
        import torch
        from torch import nn
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 2)
            def scores(self, x):
                with torch.no_grad():
                    return self.proj(x).numpy()
    """, [(9, 20)]),
    case("output_of_a_submodule", """
        import torch
        from torch import nn
        class Wrapper(nn.Module):
            def __init__(self, encoder):
                super().__init__()
                self.encoder = encoder
            def embed(self, x):
                return self.encoder(x).numpy()
    """, [(8, 16)]),
    case("module_level_script", """
        import torch
        x = torch.ones(3).cuda()
        print(x.numpy())
    """, [(3, 7)]),
    case("method_of_a_model_moved_to_a_device_given_a_tensor_there", """
        import torch
        def embed(model, x):
            model = model.cuda()
            return model.embed(x.cuda()).detach().numpy()
    """, [(4, 12)]),
    case("method_of_a_model_a_call_returns_given_a_device_tensor", """
        import torch
        def answer(path, ids):
            tokenizer, model = load_pretrained_model(path.cuda())
            return model.generate(ids.cuda()).numpy()
    """, [(4, 12)]),
    case("method_of_a_module_the_file_makes_and_moves", """
        import torch
        from torch import nn
        class Clip(nn.Module):
            def __init__(self):
                super().__init__()
                self.visual = nn.Linear(4, 2)
            def encode_image(self, images):
                return self.visual(images).detach()
        def encode(images):
            clip = Clip().cuda()
            features = clip.encode_image(images.cuda())
            return features.numpy()
    """, [(12, 12)]),
]

NOT_FLAGGED = [
    case("entry_by_key_of_an_input_of_a_function_that_copies_another", """
        import numpy as np
        import torch
        def debug(batch, output):
            dets = output["hm"].detach().cpu().numpy()
            return dets, batch["meta"]["gt_det"].numpy()  # the trainer moves every key but "meta"
    """, []),
    case("private_method_handed_a_value_its_caller_makes", """
        import numpy as np
        import torch
        class Interpretation:
            def visualize(self, items):
                decoded = self.after_item(items)
                encoded = self.after_batch(decoded).cuda()
                self._show(self.attribute(encoded), decoded)
            def _show(self, attributions, decoded):
                return attributions.cpu().detach().numpy(), np.transpose(decoded[0].numpy())
    """, []),
    case("method_of_a_moved_model_given_nothing_on_the_device", """
        import torch
        def encode(model, texts, x):
            model = model.cuda()
            ids = model.tokenize(texts).numpy()  # given host data: a tokenizer's ids, made on the host
            return ids, model.embed(x.cuda()).cpu().numpy()
    """, []),
    case("tensor_method_of_a_moved_tensor_named_like_a_model", """
        import torch
        def f(model_scores, weights):
            model_scores = model_scores.cuda()
            return model_scores.numel(), model_scores.cpu().matmul(weights).numpy()
    """, []),
    case("numpy_ufunc_of_a_copy_on_the_host", """
        import numpy as np
        import torch
        def has_nan(model, images):
            logit = model(images.cuda())
            return np.isnan(logit.detach().cpu()).any(), np.isnan(images.numpy()).any()
    """, []),
    case("output_of_a_held_callable_not_named_as_a_module_or_copied_first", """
        import torch
        class Estimator(object):
            def __call__(self, image):
                x = torch.from_numpy(image).float().cuda()
                boxes = self.postprocess(x).numpy()
                return self.net(x).cpu().numpy(), boxes
    """, []),
    case("brought_back_with_cpu", """
        import torch
        def f(x):
            return x.cuda().cpu().numpy()
    """, []),
    case("brought_back_with_to_cpu", """
        import numpy as np
        import torch
        def f(x):
            y = x.cuda() * 2
            y = y.to("cpu")
            return np.asarray(y)
    """, []),
    case("device_from_the_command_line", """
        import torch
        def f(x, args):
            return x.to(args.device).numpy()
    """, []),
    case("device_variable_that_is_the_cpu", """
        import torch
        device = torch.device("cpu")
        def f(x):
            return x.to(device).numpy()
    """, []),
    case("dtype_only_is_not_a_move", """
        import torch
        def f(x):
            return x.to(torch.float64).numpy()
    """, []),
    case("numpy_with_force_copies_to_the_host", """
        import torch
        def f(x):
            return x.cuda().numpy(force=True)
    """, []),
    case("rebound_by_a_plain_function", """
        import torch
        def f(x):
            y = x.cuda()
            y = postprocess(y)
            return y.numpy()
    """, []),
    case("brought_back_on_a_path_where_it_was_on_the_device", """
        import torch
        def f(x, device="cuda"):
            y = x.to(device)
            if device != "cpu":
                y = y.detach().cpu()
            return y.numpy()
    """, []),
    case("converted_in_a_branch_that_asks_where_it_is", """
        import torch
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        def f(x):
            y = x.to(device)
            if y.device.type == "cpu":
                return y.numpy()
            return y.numpy() if not y.is_cuda else y.cpu().numpy()
    """, []),
    case("branch_that_moves_returns", """
        import torch
        def f(x, gpu):
            if gpu:
                x = x.cuda()
                return run(x)
            return x.numpy()
    """, []),
    case("moved_in_another_function", """
        import torch
        def move(x):
            return x.cuda()
        def show(x):
            return x.numpy()
    """, []),
    case("asarray_of_a_models_output_object", """
        import numpy as np
        import torch
        def f(model, x):
            model.cuda()
            return np.asarray(model(x))
    """, []),
    case("host_values_of_a_placed_tensor", """
        import numpy as np
        import torch
        def f(x):
            y = x.cuda()
            return np.asarray(y.tolist()), np.array(y.shape), np.asarray([y.item()])
    """, []),
    case("bare_move_of_a_tensor_does_nothing", """
        import torch
        def f():
            x = torch.zeros(3)
            x.cuda()
            return x.numpy()
    """, []),
    case("asarray_of_another_library", """
        import jax.numpy as jnp
        import torch
        def f(x):
            return jnp.asarray(x.cuda())
    """, []),
    case("a_name_array_not_from_numpy", """
        import torch
        from array import array
        def f(x):
            return array("f", x.cuda())
    """, []),
    case("factory_on_the_host", """
        import torch
        def f(n):
            return torch.zeros(n).numpy(), torch.ones(n, device="cpu").numpy()
    """, []),
    case("class_body_is_not_a_function", """
        import torch
        class Table:
            values = torch.ones(3).cuda()
            host = values.cpu().numpy()
    """, []),
    case("input_rebuilt_on_the_host_in_this_function", """
        import torch
        def f(x):
            mask = torch.ones(3, device=x.device)
            x = torch.tensor([1, 2, 3])
            return x.numpy(), mask
    """, []),
    case("input_copied_to_the_host_first", """
        import torch
        def f(x):
            mask = torch.ones(3, device=x.device)
            x = x.detach().cpu()
            return x.numpy(), mask
    """, []),
    case("input_of_a_function_that_asks_nothing_about_devices", """
        import torch
        def to_array(t):
            return t.numpy()
    """, []),
    case("a_function_that_moves_its_inputs_is_handed_host_tensors", """
        import torch
        def evaluate(images, labels, device):
            images = images.to(device)
            mask = torch.ones(2, device=images.device)
            return labels.numpy(), mask
    """, []),
    case("item_of_a_dataset", """
        import torch
        from torch.utils.data import Dataset
        class Frames(Dataset):
            def __getitem__(self, index):
                frame = self.frames[index]
                return frame.numpy()
    """, []),
    case("made_from_numpy_in_the_function", """
        import torch
        def f(x, array):
            device = x.device
            t = torch.from_numpy(array)
            return t.numpy()
    """, []),
    case("loaded_with_map_location_cpu", """
        import torch
        def restore(model, path):
            state = torch.load(path, map_location="cpu")
            return state["weight"].numpy()
    """, []),
    case("a_module_under_construction_is_on_the_host", """
        import torch
        from torch import nn
        class Layer(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = nn.Parameter(torch.randn(3))
                self.initial = self.weight.detach().numpy()
    """, []),
    case("private_helper_of_a_module_called_after_a_copy", """
        import torch
        from torch import nn
        class Codec(nn.Module):
            def _encode(self, waveform):
                return encode(waveform.numpy())
            def forward(self, waveform):
                return self._encode(waveform.detach().cpu())
    """, []),
    case("what_a_tokenizer_or_a_helper_returns", """
        import torch
        from torch import nn
        class Encoder(nn.Module):
            def encode(self, text, fn):
                ids = self.tokenizer(text, return_tensors="pt")["input_ids"].numpy()
                return ids, fn(text).numpy(), torch.arange(self.config.size).numpy()
    """, []),
    case("output_of_a_model_given_an_input_made_on_the_host", """
        import torch
        def export(model, example=None):
            if example is None:
                example = torch.randn(1, 3, 224, 224)
            with torch.inference_mode():
                reference = model(example)
            return reference.numpy()
    """, []),
    # the look-alikes: `forward` may return a dict or a tuple (NumPy makes an object array of a dict, and no
    # error), the class is another module's, the name is bound to objects of two classes
    case("numpy_function_of_a_module_whose_forward_returns_a_dict", """
        import numpy as np
        import torch
        from torch import nn
        class Net(nn.Module):
            def forward(self, x):
                return {"logits": x * 2}
        def predict(images):
            model = Net().cuda()
            return np.asarray(model(images.cuda()))
    """, []),
    case("numpy_function_of_a_module_whose_forward_may_return_a_tuple", """
        import numpy as np
        import torch
        from torch import nn
        class Net(nn.Module):
            def forward(self, x, both=False):
                if both:
                    return x * 2, x
                return x * 2
        def predict(images):
            model = Net().cuda()
            return np.asarray(model(images.cuda()))
    """, []),
    case("numpy_function_of_a_module_of_another_file", """
        import numpy as np
        import torch
        from models import Net
        def predict(images):
            model = Net().cuda()
            return np.asarray(model(images.cuda()))
    """, []),
    case("numpy_function_of_a_name_bound_to_modules_of_two_classes", """
        import numpy as np
        import torch
        from torch import nn
        class Small(nn.Module):
            def forward(self, x):
                return x * 2
        class Large(nn.Module):
            def forward(self, x):
                return {"out": x}
        def predict(images, large):
            model = Small().cuda()
            if large:
                model = Large().cuda()
            return np.asarray(model(images.cuda()))
    """, []),
    case("an_object_held_by_an_input", """
        import torch
        from torch import nn
        class Spacing(nn.Module):
            def forward(self, x):
                return x.meta["pixdim"].numpy()
    """, []),
    case("noqa_on_the_line", """
        import torch
        def f(x):
            return x.cuda().numpy()  # noqa: DEV006
    """, []),
    case("inputs_of_a_function_that_copies_nothing_to_the_host", """
        import numpy as np
        import torch
        def keys(batch, scores):
            ranks = (scores > 0).sum(dim=1).numpy()
            return batch[:, 0].numpy(), ranks
    """, []),
    case("inputs_of_init_beside_a_copy_to_the_host", """
        import torch
        class Ranks:
            def __init__(self, triples, scores):
                self.table = triples.numpy()
                self.best = scores.detach().cpu().numpy()
    """, []),
    case("an_override_whose_base_copies_nothing", """
        import torch
        class Base:
            def process(self, batch, scores):
                self.seen = scores.numpy()
        class Derived(Base):
            def process(self, batch, scores):
                super().process(batch, scores)
                return batch[:, 0].numpy()
    """, []),
    case("a_dataset_that_copies_to_the_host", """
        import torch
        from torch.utils.data import Dataset
        class Pairs(Dataset):
            def pair(self, left, right):
                return left.cpu().numpy(), right.numpy()
    """, []),
    case("input_annotated_as_an_array_beside_a_copy_to_the_host", """
        import numpy as np
        import torch
        def add(self, action: np.ndarray, value: torch.Tensor) -> None:
            self.actions = action.numpy() if hasattr(action, "numpy") else action
            self.values = value.clone().cpu().numpy()
    """, []),
    case("an_arrays_method_does_not_show_a_tensor", """
        import numpy as np
        import torch
        def add(self, action, value):
            action = action.reshape((2, -1))
            self.actions = np.array(action)
            self.values = value.clone().cpu().numpy()
    """, []),
    case("input_moved_here_beside_a_copy_to_the_host", """
        import torch
        class Detector:
            def evaluating_forward(self, batch_data):
                x = batch_data
                x_gpu = x.to(self.device)
                x_recon = self.model(x_gpu)
                return distances(x.numpy(), x_recon.cpu().numpy())
    """, []),
    case("metric_of_values_copied_to_the_host", """
        import torch
        from sklearn import metrics
        def score(model, images, labels):
            predictions = model(images.cuda()).argmax(1)
            return metrics.f1_score(labels.cpu(), predictions.cpu())
    """, []),
    case("metric_of_host_tensors", """
        import torch
        from sklearn.metrics import accuracy_score
        def score(labels):
            predictions = torch.zeros(len(labels))
            return accuracy_score(labels, predictions)
    """, []),
]


# Signs from the caller (an input, what a module holds, a module's output, `.to(device)` of the caller's
# device): reported only with preview on, until measured blind on unseen code.
PREVIEW = {"moved_to_a_device_the_caller_chooses", "input_of_a_function_that_asks_where_its_inputs_are",
           "value_of_a_batch_dict_in_a_step_of_a_module", "parameter_of_a_submodule", "buffer_of_the_module_itself",
           "accumulated_state_of_a_metric", "output_of_a_model_handed_in", "output_of_a_layer_the_module_holds",
           "output_of_a_submodule", "attribute_of_an_input_used_as_a_tensor"}


@pytest.mark.parametrize("code, expected", [c for c in FLAGGED if c.id in PREVIEW])
def test_dev006_signs_from_the_caller_need_preview(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert [r for r in lint(code, preview=True) if r[2] == "DEV006"] == expected
    assert reports("DEV006", code) == []


# With preview on too: an attribute of an input that nothing uses as a tensor may be any object (an array, a
# list, a dict of metadata): its `.numpy()` is not reported.
PREVIEW_NOT_FLAGGED = [
    case("attribute_of_an_input_not_used_as_a_tensor", """
        import torch
        class Spacing(torch.nn.Module):
            def forward(self, x):
                spacing = x.meta["pixdim"].numpy()
                return x.affine.numpy(), spacing
    """, []),
]


@pytest.mark.parametrize("code, expected", PREVIEW_NOT_FLAGGED)
def test_dev006_preview_leaves_alone(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert [r for r in lint(code, preview=True) if r[2] == "DEV006"] == expected


@pytest.mark.parametrize("code, expected", [c for c in FLAGGED if c.id not in PREVIEW] + NOT_FLAGGED)
def test_dev006(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert reports("DEV006", code) == expected


FIXES = [
    ("""
        import torch
        from sklearn import metrics
        def evaluate(net, images, labels):
            probs = torch.softmax(net(images.cuda()), 1)
            return metrics.confusion_matrix(labels.numpy(), probs.max(1)[1])
    """, """
        import torch
        from sklearn import metrics
        def evaluate(net, images, labels):
            probs = torch.softmax(net(images.cuda()), 1)
            return metrics.confusion_matrix(labels.numpy(), probs.max(1)[1].detach().cpu())
    """),
    ("""
        import numpy as np
        import torch
        from torch import nn
        class Net(nn.Module):
            def forward(self, x):
                return x.relu()
        def embed(images):
            model = Net().cuda()
            return np.asarray(model(images.cuda()))
    """, """
        import numpy as np
        import torch
        from torch import nn
        class Net(nn.Module):
            def forward(self, x):
                return x.relu()
        def embed(images):
            model = Net().cuda()
            return np.asarray(model(images.cuda()).detach().cpu())
    """),
    ("""
        import torch
        def log(predictions, targets):
            return predictions.numpy(), targets.detach().cpu().numpy()
    """, """
        import torch
        def log(predictions, targets):
            return predictions.cpu().numpy(), targets.detach().cpu().numpy()
    """),
]


@pytest.mark.parametrize("code, fixed", FIXES)
def test_dev006_fix_of_a_metric_and_of_a_sibling(code: str, fixed: str) -> None:
    import textwrap

    from devlint import fix_source

    result = fix_source(textwrap.dedent(code).removeprefix("\n"), "m.py")
    assert result.source == textwrap.dedent(fixed).removeprefix("\n")


def _nest(depth: int) -> str:
    """A function whose `.numpy()` sits in `depth` nested loops, of a tensor moved at the end of the innermost body:
    the move reaches the conversion only in the next iteration."""
    lines = ["import torch", "def run(batches, device):", "    x = torch.zeros(2)"]
    indent = "    "
    for level in range(depth):
        lines.append(f"{indent}for b{level} in batches:")
        indent += "    "
    lines += [f"{indent}y = x.numpy()", f"{indent}x = x.to(device)"]
    return "\n".join(lines) + "\n"


def test_a_loop_carries_a_move_to_the_next_iteration_and_a_deep_nest_is_read_in_bounded_walks(monkeypatch):
    """Each loop's body is read twice (what one iteration binds, the next one reads) down to
    `LOOP_NESTING_WALKED_TWICE` loops deep, once below: 2**depth walks of a 10-deep nest cost 32 s."""
    from devlint.rules.dev006_tensor_numpy_on_device.placement import Placement
    from devlint.analysis.terminating import LOOP_NESTING_WALKED_TWICE
    from rules.cases import counted_calls

    def converted(code: str) -> list:
        return [report for report in lint(code, preview=True) if report[2] == "DEV006"]  # a device argument: preview

    assert converted(_nest(2)) == [(6, 17, "DEV006")]
    walks = counted_calls(monkeypatch, Placement, "statement")
    converted(_nest(12))
    assert walks() < 20 * 2 ** LOOP_NESTING_WALKED_TWICE
