"""Run DEV005's and DEV006's specification snippets for real on a device: every snippet the tests flag
must fail there, every snippet they leave alone must work.

    python benchmarks/cuda_snippets.py [--device cuda] [--json PATH] [--markdown PATH]

The snippets are read from tests/rules/test_dev005.py and test_dev006.py (their FLAGGED, NOT_FLAGGED and
PREVIEW_NOT_FLAGGED lists), so this always runs what the tests hold. Each snippet is executed in a fresh
namespace, then called as its recipe below says: with the tensors its caller would hand it on the
device (DEV005: the caller's tensors are on the device; DEV006: the code itself moves them). What
happens decides, nothing else:

- "fails": the rule's own error (DEV005: a device mismatch, an error naming both the host and the
  device; DEV006: torch's "can't convert ... device type tensor to numpy"), or, for a recipe marked
  so, a result left on the host where the caller's tensors are on the device;
- "works": the call returns;
- "error": any other exception (a snippet that cannot run as written, or a recipe gone wrong);
- "not run": what the snippet does depends on code it does not show (the reason is given).

Every DEV005 recipe is also run with the inputs on the CPU, the control: a device bug works there.
A snippet suppressed with `# noqa` is not flagged by the tests but is the bug: it must fail.
Needs torch and numpy (and jax for one DEV006 look-alike, scikit-learn for its metrics; without them those
cases are errors);
run by hand or by benchmarks/gpu_report.sh, never by the tests (tests/test_cuda_snippets.py checks
that every case has a recipe, and how outcomes are decided).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import sys
import textwrap
import time
from dataclasses import dataclass
from typing import Any, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = ("DEV005", "DEV006")
CONVERSION = r"can't convert [\w:]+ device type tensor to numpy"  # torch's message, as the DEV006 probe reads it
PREVIEW = "preview: the tests flag it only with preview on; "  # DEV006's signs from the caller (PREVIEW there)


# A model with methods besides `forward`, as DEV006's method cases are handed one.
EMBEDDER = ("class Embedder(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.lin = nn.Linear(4, 3)\n"
            "    def embed(self, x):\n"
            "        return self.lin(x)\n"
            "    def tokenize(self, texts):\n"
            "        return torch.tensor([[len(word) for word in text.split()] for text in texts])")


@dataclass(frozen=True)
class Recipe:
    """How a snippet is called: `setup` statements, then the `call` expression, in the snippet's namespace.

    Names there: `torch`, `nn`, `np`, `SimpleNamespace`, `dev` (the device), `D(*shape, dtype=...)` (ones on
    the device) and `H(...)` (ones on the host)."""

    call: str = ""
    setup: str = ""
    on_device: bool = False  # the bug shows as a result left on the host: a host result counts as failing
    not_run: str = ""  # why it is not run: what it does depends on code the snippet does not show
    note: str = ""  # what the inputs stand for, where the case's name does not say
    noqa: bool = False  # suppressed by `# noqa`: the tests see no report, but the bug is there: it must fail


RECIPES: dict[str, dict[str, Recipe]] = {"DEV005": {
    # flagged
    "host_tensor_kept_in_a_plain_attribute_of_a_module": Recipe(
        "(PositionalEncoding(4, 10).to(dev)(D(2, 5, 4)), Normalize().to(dev)(D(2, 3, 4, 4)))"),
    "in_a_one_line_suite_and_a_one_line_body": Recipe("(pad(D(3), 5, True), damp(D(3, 3), 0.5))"),
    "length_of_an_input_shown_to_be_a_tensor": Recipe("(pad(D(3), 5), damp(D(3, 3), 0.5))"),
    "zero_dim_host_accumulator_written_in_place_from_the_inputs": Recipe("error(D(4, 3), D(4, 3), 4)"),
    "result_moved_to_the_inputs_device_or_through_a_function": Recipe("pad(D(3, 2), lambda t: t, dev)"),
    "zero_dim_tensor_stacked_with_elements_of_the_callers_tensors": Recipe("total([D(3), D(0)], [D(3), D(0)])"),
    "cpu_index_for_index_select_in_a_plain_function": Recipe("pad_or_trim(D(6, 4), 3)"),
    "dtype_copied_device_forgotten_in_torch_cat": Recipe("autocorrelation(D(2, 5), 3)"),
    "viterbi_scores_meet_a_module_parameter": Recipe("CRF(3).to(dev).viterbi(D(2, 4, 3))"),
    "random_mask_from_a_comparison_in_torch_where": Recipe(
        "m(D(8, dtype=torch.long))", "m = LabelDrop()\nm.p, m.null_id = 0.5, 0"),
    "one_return_path_on_the_cpu": Recipe(
        "mean_iou(D(0, 3, dtype=torch.bool), D(0, 3, dtype=torch.bool))", on_device=True,
        note="empty inputs take the path that returns torch.tensor(0.0)"),
    "zero_dim_tensor_stacked_with_the_inputs_losses": Recipe("total(D(2, 3), D(2, 3), [None, 0])"),
    "zero_dim_tensor_stacked_with_a_tensor_method_of_the_inputs_arithmetic": Recipe(
        "total(D(2, 3), D(2, 3), [None, 0])"),
    "host_pad_concatenated_onto_a_tensor_method_of_an_input_times_a_number": Recipe("padded(D(3))"),
    "zero_dim_tensor_stacked_with_a_functional_loss_of_the_callers_elements": Recipe(
        "total([D(3), D(3)], [D(3), None])"),
    "ones_concatenated_onto_what_as_tensor_makes_of_a_parameter": Recipe("homogeneous(D(4, 2))"),
    "zeros_concatenated_onto_a_cast_of_what_as_tensor_makes_of_a_parameter": Recipe("pad(D(4, 2))"),
    "cast_to_a_torch_dtype_stays_on_the_host": Recipe("spread(D(3, 3).half())"),
    "host_tensor_beside_arithmetic_of_the_inputs_without_a_tensor_method": Recipe("spread(2.0, 0.5)",
                                                                                  note="the inputs are numbers"),
    "zero_dim_host_tensor_in_arithmetic_with_a_tensor_method_of_the_inputs": Recipe("total(D(3), D(3))"),
    "a_tensor_method_of_arithmetic_with_a_call_is_not_the_inputs_alone": Recipe(
        "total(2.0, lambda: torch.ones(3))", note="the tensor is the call's, made on the host; `preds` a number"),
    "submodule_called_on_a_host_state": Recipe("Encoder().to(dev)(D(2, 5, 8))"),
    "attribute_started_on_the_host_and_concatenated_with_an_input": Recipe(
        "b.add(D(3), D(3))", "b = LossBuffer(lambda out, y: (out - y) ** 2)\nb.reset()",
        note="the loss function keeps its inputs' device"),
    "attribute_started_in_an_annotated_assignment_and_concatenated_with_an_input": Recipe("Scores().add(D(2, 3))"),
    "attribute_of_a_module_started_empty_and_concatenated_in_forward": Recipe("Memory(4).to(dev)(D(2, 4))"),
    "output_of_a_function_given_a_forward_argument_used_as_a_torch_tensor": Recipe(
        not_run="to_dense_adj is torch_geometric's, which the snippet imports and does not show"),
    "output_of_a_callable_given_an_input_tensor_detached": Recipe(
        "losses(lambda out, y: (out - y) ** 2, D(3), D(3))", note="the loss function keeps its inputs' device"),
    "output_of_a_function_of_the_file_is_not_taken_on_trust": Recipe("paste_all(D(2, 3, 4))"),
    "output_of_a_callable_the_object_holds_given_an_input_tensor": Recipe(
        "Scorer(lambda out, y: (out - y) ** 2).score(D(3), D(3))", note="the loss function keeps its inputs' device"),
    "submodule_of_the_file_called_on_positions": Recipe("Encoder().to(dev)(D(2, 5, 4))"),
    "comparison_with_an_input_tensor": Recipe("masked_mean(D(2, 5, 3), D(2, dtype=torch.long))"),
    "matmul_with_an_input": Recipe("rotate(D(4, 2), 0.5)"),
    "masked_fill_method_with_a_cpu_mask": Recipe("causal(D(2, 4, 4))"),
    "gather_method_with_a_cpu_index": Recipe("pick(D(3, 5), 2)"),
    "legacy_constructor_of_data": Recipe("shift(D(3), [1, 2, 3])"),
    "augmented_assignment": Recipe("accumulate(D(4, 3))"),
    "derived_by_tensor_ops_before_it_meets": Recipe("bias(D(2, 5, 1))"),
    "subclass_of_a_layer_meets_its_own_weight": Recipe("Noisy(4, 3).to(dev)(D(2, 4))"),
    "buffer_read_through_self": Recipe("Norm().to(dev)(D(2, 3))"),
    "factory_imported_from_torch_with_an_alias": Recipe("pad(D(2, 3))"),
    "branches_merge_before_the_meeting": Recipe("weights(D(2, 3), True)"),
    "tensor_of_a_comparison_is_not_a_scalar": Recipe(
        "token_drop(D(4, dtype=torch.long), np.array([1, 0, 1, 0]), 7)",
        note="force_drop_ids is a NumPy array (a CUDA tensor would keep its device through torch.tensor)"),
    "tensor_of_a_sequence_parameter_is_not_a_scalar": Recipe("sample(D(2, 2), [4, 4])"),
    "default_mask_handed_to_a_model_with_the_inputs": Recipe(
        "Decoder(None).to(dev)(D(2, 3, 2, 4))",
        "class GPT2Model(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        super().__init__()\n"
        "        self.proj = nn.Linear(4, 4)\n"
        "    def forward(self, inputs_embeds, attention_mask):\n"
        "        return self.proj(inputs_embeds) * attention_mask.flatten(1)[..., None]",
        note="GPT2Model stands in as a model that masks its projected inputs"),
    "nested_function_is_its_own_unit": Recipe("outer(D(2, 3))"),
    "cpu_index_for_an_in_place_index_op": Recipe("clear(D(4, 3), 2)"),
    "cpu_index_for_scatter_": Recipe("one_hot(D(5), 3)"),
    "zero_dim_cpu_index_is_refused_by_index_select": Recipe("first(D(3, 2))"),
    "cpu_mask_for_masked_fill_": Recipe("causal(D(2, 4, 4), 4)"),
    "host_table_indexed_by_the_inputs_index": Recipe("relabel(D(5, dtype=torch.long))"),
    "host_values_into_an_input_through_a_mask": Recipe(
        "clamp_negatives(-D(4), 4)", note="every element negative, so the mask selects n of them"),
    "zero_dim_host_tensor_stacked_with_an_inputs": Recipe("pair(D(3))"),
    "list_of_factories_joined_with_the_input": Recipe("widen(D(2, 3), 2)"),
    "list_of_factories_meets_the_input_in_a_loop": Recipe("project(D(2, 3), 2)"),
    "host_targets_for_a_functional_loss": Recipe("loss(D(2, 3), [0, 2])"),
    "a_tensor_in_a_dict_parameter": Recipe("mask_padding({'mask': D(4)}, 4)"),
    "a_tensor_in_a_dict_parameter_through_a_name": Recipe("mask_ids({'input_ids': D(4, dtype=torch.long)}, 4)"),
    "a_tensor_attribute_of_a_parameter": Recipe(
        "propagate(SimpleNamespace(x=D(5, 3)), 2)", note="data is a graph batch whose x is on the device"),
    "closure_parameter_meets_the_enclosing_host_tensor": Recipe("make_projection(3)(D(2, 3))"),
    "module_by_its_shape_with_a_base_from_another_file": Recipe(
        not_run="Backbone2 comes from .base, which is not shown"),
    "starred_sizes_are_a_factory": Recipe("like(D(2, 3))"),
    "legacy_constructor_of_a_numpy_array": Recipe("shift(D(3))"),
    "cycles_in_the_bindings_end": Recipe(
        "step(D(3), 0)", "g = lambda t: t * 2",
        note="g, not shown, stands in as doubling; what it returns is written into x, which stays on the device"),
    "meets_what_a_method_returns_of_the_modules_parameters": Recipe("LULinear(3).to(dev).inverse()"),
    "an_input_made_a_tensor_only_where_it_is_an_array_keeps_the_callers_device": Recipe(
        "mean_error(D(3, 2), D(3, 2))"),
    "a_class_that_binds_a_parameter_is_a_module_whatever_its_base": Recipe(
        not_run="its base class is another file's (a Module there), which the snippet does not show"),
    "a_class_that_binds_a_parameter_under_another_name_is_a_module": Recipe(
        not_run="its base class is another file's (a Module there), which the snippet does not show"),
    "host_state_made_by_a_method_and_met_by_its_caller": Recipe("Cell(3, 4).to(dev)(D(2, 3))"),
    "hidden_state_pair_returned_by_a_method_and_given_to_a_layer": Recipe("Tagger(3, 4).to(dev)(D(5, 2, 3))"),
    "empty_start_value_concatenated_with_the_inputs": Recipe("collect(D(3, 2), 3)"),
    "optimizer_state_made_on_the_host_and_updated_from_the_gradient": Recipe(
        "opt.step()", "w = nn.Parameter(D(2, 3))\nw.grad = D(2, 3)\nopt = Factored([w], {})",
        note="one parameter of a model on the device, with its gradient"),
    "a_gradient_is_where_its_tensor_is": Recipe("clip(w, 0.5)", "w = nn.Parameter(D(3))\nw.grad = D(3)"),
    "host_tensor_kept_in_a_dict_by_key_and_read_back": Recipe("pos_embed(D(2, 5), 5)"),
    "graph_convolution_layer_called_on_a_host_state": Recipe(
        not_run="GCNConv is torch_geometric's, which the snippet imports and does not show"),
    # not flagged
    "zero_dim_tensor_stacked_with_what_a_plain_function_makes_of_the_callers_elements": Recipe(
        "total([D(3), D(3)], [D(3), None], lambda out, t: torch.tensor(float(out.shape[0] == t.shape[0])))",
        note="the loss function may give its value on the host: the rule cannot tell where it is"),
    "as_tensor_of_a_parameter_every_caller_gives_a_tensor_made_on_the_host": Recipe("run(dev)"),
    "as_tensor_of_a_parameter_every_caller_gives_host_data": Recipe("run()"),
    "as_tensor_of_a_parameter_also_given_to_numpy": Recipe(
        "homogeneous(np.zeros((4, 2)))", note="an array: as_tensor makes a CPU tensor of it"),
    "as_tensor_of_a_parameter_iterated_as_a_list": Recipe("homogeneous([[0.0, 1.0], [2.0, 3.0]])"),
    "as_tensor_of_a_parameter_bound_again_first": Recipe("homogeneous([[0.0, 1.0]])", note="a list"),
    "tensor_of_a_parameter_is_data": Recipe("homogeneous([[0.0, 1.0], [2.0, 3.0]])", note="a list: data"),
    "as_tensor_given_a_device": Recipe("homogeneous(D(4, 2), dev)"),
    "given_a_type_the_code_holds_which_may_name_a_device": Recipe("sqrt_newton_schulz(D(2, 3, 3), 2)"),
    "a_method_returns_what_its_caller_gave_it_or_a_host_tensor": Recipe(
        "(Layer(3).to(dev).first(), Layer(3).to(dev).second())",
        note="both methods meet only host tensors: the module's device is never involved"),
    "a_method_init_calls_builds_the_module_on_the_cpu": Recipe("MarginLoss(1.2, 3).to(dev).scale"),
    "methods_that_call_each_other_are_read_once": Recipe(
        not_run="its methods call each other without end (a RecursionError whatever the device)"),
    "module_attributes_that_move_or_are_only_numbers": Recipe(
        "(Registered(3).to(dev)(D(3, 3)), MovesItsOwn(3).to(dev)(D(3)), Rebound(3).to(dev)(D(3)),"
        " NotAModule(3).apply(H(3)))", note="the plain class is given host tensors (it is no module to move)"),
    "a_parameter_made_a_tensor_here_is_data": Recipe("accuracy([1, 2], [4, 5, 6, 7])", note="lists, as its caller gives"),
    "length_of_a_list_of_host_rows": Recipe("pad([[1.0], [2.0]], 4)", note="rows of numbers"),
    "zero_dim_host_tensor_added_not_in_place_or_added_into_an_input": Recipe("error(D(4, 3), D(4, 3), 4)"),
    "elements_of_a_sequence_not_shown_to_be_tensors": Recipe("total([D(3, 2)])"),
    "host_coin_flips_from_one_draw": Recipe(
        "m(D(2, 3))", "m = LayerDrop()\nm.layers = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 3)]).to(dev)\n"
        "m.p = 0.5"),
    "random_draw_used_as_a_number": Recipe("crop(D(2, 5))"),
    "coin_flip_in_an_if": Recipe("flip(D(2, 3), 0.5)"),
    "as_tensor_of_what_is_already_a_tensor": Recipe("m(D(2, 3))", "m = Wrap()\nm.module = nn.Linear(3, 3).to(dev)"),
    "kernel_kept_on_the_host_for_a_plain_function": Recipe(not_run="filter1d is not shown"),
    "index_tensor_after_an_explicit_cpu": Recipe("sample(D(4, 3))"),
    "generator_factories": Recipe("noisy(D(3), torch.Generator())", note="g is a CPU generator"),
    "cpu_index_used_as_a_subscript": Recipe("take(D(4, 3), 2)"),
    "zero_dim_tensors_in_arithmetic": Recipe("scale(D(3), 2)"),
    "moved_later": Recipe("bias(D(2, 3))"),
    "sent_to_the_host_on_purpose": Recipe("stats(D(10))"),
    "like_and_new_factories_follow_the_input": Recipe("mix(D(2, 3))"),
    "passed_to_a_plain_function": Recipe(not_run="apply_mask is not shown"),
    "truth_tests_and_host_values": Recipe("check(D(3))"),
    "under_with_torch_device": Recipe("make(D(3))"),
    "after_set_default_device": Recipe("make(D(3))"),
    "parameters_not_shown_to_be_tensors": Recipe("add(D(3), D(3))", note="a and b are tensors on the device"),
    "a_list_parameter_is_not_a_tensor": Recipe("stack([D(3)], 3)", note="labels is a list of tensors on the device"),
    "host_tensors_meeting_each_other": Recipe("grid(D(3), 4)"),
    "tensor_attribute_set_outside_a_module_is_not_an_input": Recipe("Box().scaled(3)"),
    "parameterless_submodule": Recipe("M().to(dev)(D(3))"),
    "returns_of_host_values_only": Recipe("table(D(3))"),
    "in_init_the_module_is_still_on_the_cpu": Recipe("Codes(3).to(dev)"),
    "empty_placeholder_replaced_later": Recipe("chain(D(2, 3), [nn.Linear(3, 3).to(dev), nn.Linear(3, 3).to(dev)])"),
    "numpy_data_converted_on_the_host": Recipe("poses(np.eye(4))"),
    "every_caller_passes_a_host_tensor": Recipe("Pipeline()(3.0, 2, dev)"),
    "a_parameter_no_caller_passes": Recipe("Pipeline()(D(2, 5))"),
    "module_of_the_file_without_parameters": Recipe("Net().to(dev)(D(2, 5))"),
    "a_module_of_the_file_that_places_its_inputs": Recipe("Net().to(dev)(D(2, 5))"),
    "callers_pass_a_host_tensor_through_an_attribute": Recipe(
        "Block()(state)", "state = SimpleNamespace(guidance=3.0, n=2, device=dev)"),
    "callers_send_it_to_the_host_first": Recipe("align(D(20))"),
    "noqa_on_the_line": Recipe("pad(D(3))", noqa=True),
    "file_without_torch_import": Recipe(not_run="the snippet names torch without importing it"),
    "given_another_tensors_type_string_which_names_its_device": Recipe("f(D(3, 3))"),
    "cpu_index_in_a_python_subscript": Recipe(
        "take(D(4, 3), 2)", note="x[:n] is a view of x: index_put_ may refuse the overlap on any device"),
    "values_placed_by_device_written_through_a_host_index": Recipe(
        "relabel(D(16).long(), 0.5, 5)", note="a host index into a device tensor, with values made on it"),
    "zero_dim_host_values_through_a_mask": Recipe("clamp_negatives(-D(4, 3))"),
    "zero_dim_host_scalar_in_arithmetic": Recipe("scale(D(3))"),
    "host_buffer_written_from_the_input_and_moved_before_it_leaves": Recipe("pad(D(2, 3), 4)"),
    "result_of_the_meeting_moved_to_a_device": Recipe(
        "batch(H(5, 3), [0, 2], dev)", note="the data is on the host, as the code that moves the results shows"),
    "factory_called_without_a_size": Recipe(
        not_run="torch.rand() raises TypeError on every device: no host tensor is made, so none meets the input"),
    "host_data_built_in_a_dataset": Recipe(
        "d[0]", "d = Pairs()\nd.items = [[1.0, 2.0]]", note="a dataset's items are made on the host, where a"
        " DataLoader asks for them"),
    "the_branch_that_runs_only_without_cuda": Recipe(
        "weights(D(3))", note="on a machine without CUDA the else branches run, and the inputs are not on CUDA there"),
    "placed_by_the_call_it_goes_into": Recipe(
        "sparse(D(5), i)", "i = torch.arange(5, device=dev)[None]",
        note="i: the indices of 5 values, on the device; torch has no add(sparse, dense) on any device"),
    "moved_after_the_operation_that_made_it": Recipe("scaled(D(3))"),
    "empty_placeholder_for_an_unused_functional_argument": Recipe(
        "attend(D(4, 1, 8), D(8, 8), D(8, 8), D(8, 8), D(8, 8))",
        note="x: (length, batch, embedding 8), 2 heads; w: the output projection; q, k, v: separate"
        " projections, so the empty in_proj_weight placeholder is never read"),
    "handed_to_a_function_of_the_file_that_places_it": Recipe("weigh(D(3))"),
    "loaded_onto_the_host_by_every_caller": Recipe(
        "load(path)", "import os, tempfile\npath = os.path.join(tempfile.mkdtemp(), 'state.pt')\n"
        "torch.save({'x': D(3)}, path)", note="a checkpoint saved from the device"),
    "after_set_default_device_factories_follow_it": Recipe("pad(D(3))"),
    "met_only_after_a_host_copy_replaced_the_input": Recipe("stats(D(3))"),
    "met_only_in_a_branch_that_never_runs": Recipe("score(D(3))"),
    "collators_make_host_data": Recipe(
        "DataCollatorForMasking().mask(H(2, 4, dtype=torch.long))",
        note="a collator gets host tensors: it runs where the DataLoader batches, before the move"),
    "host_state_a_method_returns_is_moved_by_its_caller": Recipe("Cell(3, 4).to(dev)(D(2, 3))"),
    "host_indices_returned_beside_the_inputs_tensor": Recipe("Masker(4).to(dev)(D(2, 5, 4))"),
    "empty_start_value_concatenated_with_host_copies_or_replaced_first": Recipe(
        "(collect(D(3, 2), 3), chain(D(4), [nn.Identity(), nn.Identity()]))"),
    "optimizer_state_made_beside_its_parameter": Recipe(
        "opt.step()", "w = nn.Parameter(D(2, 3))\nw.grad = D(2, 3)\nopt = Factored([w], {})"),
    "attribute_concatenated_onto_but_started_on_the_device": Recipe(
        "b.add(D(3))", "b = LossBuffer(dev)\nb.reset()"),
    "attribute_concatenated_onto_and_moved_elsewhere": Recipe(
        "(b.add(D(3)), s.add(D(3)))", "b = LossBuffer().to(dev)\ns = Scores()\ns.place(dev)"),
    "attribute_concatenated_onto_that_is_a_registered_buffer": Recipe("Memory(4).to(dev)(D(2, 4))"),
    "attribute_bound_in_a_tuple_target_and_concatenated_onto": Recipe(
        not_run="what reaches the concatenation depends on callers the snippet does not show (reset alone puts "
                "both on the host)"),
    "attribute_collecting_host_values": Recipe("Collector().add(D(3), [1, 2])"),
    "output_of_a_function_not_used_as_a_torch_tensor": Recipe(
        "Degree()(D(4), D(2, 5))", setup="count_nodes = lambda e: 4; to_numpy_adj = lambda e: np.ones(16)",
        note="a count and a NumPy array: the host factory meets host values"),
    "output_of_a_function_given_a_plain_functions_unshown_parameter": Recipe(
        not_run="nothing shows edge_index to be a tensor, nor where to_dense_adj (not shown) puts its result"),
    "output_of_a_function_given_only_host_values": Recipe(
        "Grid()(D(1))", setup="make_grid = lambda h, w: torch.zeros(h, w)",
        note="a grid made from numbers alone, on the host like the factory it meets"),
    "a_params_key_outside_an_optimizer_is_not_a_parameter": Recipe(
        "total({'params': [1.0, 2.0]})", note="a configuration's numbers: no optimizer steps them"),
    "a_dict_bound_again_forgets_its_keys": Recipe("pos_embed(D(2, 5), 5, {'pos': D(5)})"),
    "callers_pass_host_tensors_and_numbers": Recipe(
        "Rope(8).to(dev).freqs", note="the only caller is __init__, with a host tensor and a number"),
}, "DEV006": {
    # flagged
    "numpy_ufunc_of_a_model_output_on_a_moved_input": Recipe("has_nan(nn.Linear(3, 3).to(dev), H(2, 3))"),
    "input_of_a_function_that_copies_another_to_the_host": Recipe(
        "log(0, D(3), D(3))", note="the caller's tensors on the device, as the copy of `targets` expects"),
    "input_of_an_override_whose_base_copies_to_the_host": Recipe(
        "MacroRankEvaluator().process_scores_(D(4, 3), D(4, 2))", note="a batch and scores on the device"),
    "metric_of_a_model_output": Recipe("evaluate(nn.Linear(3, 2).to(dev), H(4, 3), H(4))",
                                       note="scikit-learn's confusion_matrix (without scikit-learn: an error)"),
    "metric_imported_by_name_second_argument": Recipe(
        "list(evaluate(nn.Linear(3, 2), [(H(4, 3), H(4))]))", note="scikit-learn's f1_score"),
    "output_of_a_held_net_on_an_input_moved_here": Recipe(
        "e(np.ones((2, 3), dtype=np.float32))", setup="e = Estimator(); e.net = nn.Linear(3, 3).to(dev)"),
    "cuda_then_numpy": Recipe("f(H(3))"),
    "moved_to_a_cuda_string": Recipe("f(H(3))"),
    "device_chosen_by_availability_at_module_level": Recipe("f(H(3))"),
    "device_chosen_in_the_function": Recipe("f(H(3), True)"),
    "device_parameter_whose_default_is_an_accelerator": Recipe("f(H(3))"),
    "device_keyword_and_dtype": Recipe("f(H(3))"),
    "self_device_bound_to_an_accelerator": Recipe("Runner().run(H(3))"),
    "factory_made_on_the_device": Recipe("noise(3)"),
    "output_of_a_moved_model": Recipe("predict(H(2, 4))", "Net = lambda: nn.Linear(4, 3)",
                                      note="Net stands in as a linear layer"),
    "model_moved_in_place_by_a_statement": Recipe("embed(nn.Linear(4, 3), H(2, 4))"),
    "numpy_function_of_the_output_of_a_module_class_of_the_file": Recipe("predict(H(2, 4))"),
    "attribute_of_a_moved_models_output": Recipe(
        "embed(Tagger(), D(2, 4))",
        "class Tagger(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.head = nn.Linear(4, 3)\n"
        "    def forward(self, batch):\n"
        "        return SimpleNamespace(logits=self.head(batch).detach())",
        note="a model whose output has .logits; the batch is on the device, as the moved model needs"),
    "element_of_a_moved_batch": Recipe("show([H(3), H(2)])"),
    "unpacked_pairwise": Recipe("show(H(3), H(3))"),
    "np_asarray": Recipe("f(H(3))"),
    "np_array_through_numpy_imported_plainly": Recipe("f(H(3))"),
    "asarray_imported_from_numpy": Recipe("f(H(3))"),
    "torch_functions_and_methods_keep_the_device": Recipe("f(H(2, 3))"),
    "moved_on_one_branch_only": Recipe("f(H(3))"),
    "moved_in_a_loop": Recipe("f([H(3)])"),
    "moved_to_another_placed_tensor": Recipe("f(H(3), H(3))"),
    "module_level_script": Recipe(note="the module itself is the run"),
    "element_of_an_input_of_a_function_that_copies_another": Recipe(
        "log(D(2, 3), D(3))", note="the caller's tensors on the device, as the copy of `targets` expects"),
    "private_method_handed_its_callers_inputs": Recipe(
        "Logger().step(D(3), D(3))", note="the caller's tensors on the device, as the copy of `targets` expects"),
    "method_of_a_model_moved_to_a_device_given_a_tensor_there": Recipe(
        "embed(Embedder(), H(2, 4))", EMBEDDER, note="a model with an `embed` method, as a caller hands it"),
    "method_of_a_model_a_call_returns_given_a_device_tensor": Recipe(
        "answer(H(2), H(2, 4))",
        EMBEDDER + "\nload_pretrained_model = lambda path: (None, Embedder().to(path.device))\n"
        "Embedder.generate = Embedder.embed", note="a loader that returns a model where its input is"),
    "method_of_a_module_the_file_makes_and_moves": Recipe("encode(H(2, 4))"),
    "moved_to_a_device_the_caller_chooses": Recipe("f(H(3), dev)", note=PREVIEW + "called with the accelerator"),
    "input_of_a_function_that_asks_where_its_inputs_are": Recipe(
        "summarize(D(2, 3), D(2))", note=PREVIEW + "the caller's tensors are on the device"),
    "value_of_a_batch_dict_in_a_step_of_a_module": Recipe(
        "Classifier().to(dev).validation_step({'labels': D(3)}, 0)",
        note=PREVIEW + "Lightning hands a step its batch on the module's device (needs lightning)"),
    "attribute_of_an_input_used_as_a_tensor": Recipe(
        "ClassifierHead().process_output(SimpleNamespace(probs=D(2, 3), logits=D(2, 3)))",
        note=PREVIEW + "a model's output object, its tensors on the device"),
    "attribute_of_an_input_not_used_as_a_tensor": Recipe(
        "Spacing()(SimpleNamespace(meta={'pixdim': H(3)}, affine=H(4, 4)))",
        note="metadata an image carries, kept on the host"),
    "parameter_of_a_submodule": Recipe(
        "Tagger(3).to(dev).transitions()",
        "class CRF(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.transitions = nn.Parameter(torch.zeros(n, n))",
        note=PREVIEW + "CRF stands in as a layer holding a transitions parameter; the module moved to the device"),
    "buffer_of_the_module_itself": Recipe("Scaler().to(dev).stats()", note=PREVIEW + "the module moved to the device"),
    "accumulated_state_of_a_metric": Recipe(
        "m.compute()",
        "score = np.mean\n"
        "class Collecting(AUROC):\n"
        "    def update(self, preds):\n"
        "        self.preds.append(preds)\n"
        "m = Collecting().to(dev)\n"
        "m.update(D(3))",
        note=PREVIEW + "score, not shown and reached only after .numpy(), stands in as np.mean; update, left out of"
        " the snippet, appends the device's predictions (needs torchmetrics)"),
    "output_of_a_model_handed_in": Recipe(
        "predict(nn.Linear(4, 3).to(dev), D(2, 4))", note=PREVIEW + "a model on the device, with its inputs"),
    "output_of_a_layer_the_module_holds": Recipe(
        "Head().to(dev).scores(D(2, 4))", note=PREVIEW + "the module on the device, with its inputs"),
    "output_of_a_submodule": Recipe(
        "Wrapper(nn.Linear(4, 3)).to(dev).embed(D(2, 4))", note=PREVIEW + "the module on the device, with its inputs"),
    # not flagged
    "numpy_ufunc_of_a_copy_on_the_host": Recipe("has_nan(nn.Linear(3, 3).to(dev), H(2, 3))"),
    "output_of_a_held_callable_not_named_as_a_module_or_copied_first": Recipe(
        "e(np.ones((2, 3), dtype=np.float32))",
        setup="e = Estimator(); e.net = nn.Linear(3, 3).to(dev); e.postprocess = lambda t: t.cpu()"),
    "brought_back_with_cpu": Recipe("f(H(3))"),
    "entry_by_key_of_an_input_of_a_function_that_copies_another": Recipe(
        "debug({'meta': {'gt_det': H(2)}}, {'hm': D(2)})",
        note="a trainer that moves every key of the batch but 'meta', as CenterNet's does"),
    "private_method_handed_a_value_its_caller_makes": Recipe(
        "i.visualize(H(1, 2, 2))",
        "i = Interpretation(); i.after_item = lambda t: t; i.after_batch = lambda t: t * 2\n"
        "i.attribute = lambda t: t + 1",
        note="item transforms on the host, the batch moved to the device, as fastai's interpretation runs"),
    "method_of_a_moved_model_given_nothing_on_the_device": Recipe(
        "encode(Embedder(), ['a b'], H(2, 4))", EMBEDDER, note="`tokenize` makes its ids on the host"),
    "tensor_method_of_a_moved_tensor_named_like_a_model": Recipe("f(H(3, 3), H(3, 3))"),
    "brought_back_with_to_cpu": Recipe("f(H(3))"),
    "device_from_the_command_line": Recipe("f(H(3), SimpleNamespace(device=dev))", note="--device cuda"),
    "device_variable_that_is_the_cpu": Recipe("f(H(3))"),
    "dtype_only_is_not_a_move": Recipe("f(H(3))"),
    "numpy_with_force_copies_to_the_host": Recipe("f(H(3))"),
    "rebound_by_a_plain_function": Recipe(not_run="postprocess is not shown"),
    "brought_back_on_a_path_where_it_was_on_the_device": Recipe("f(H(3))"),
    "converted_in_a_branch_that_asks_where_it_is": Recipe("f(H(3))"),
    "branch_that_moves_returns": Recipe("f(H(3), False)", note="gpu=False: the branch with gpu=True calls run(),"
                                        " which is not shown"),
    "moved_in_another_function": Recipe("show(H(3))"),
    "asarray_of_a_models_output_object": Recipe(
        "f(Tagger(), D(2, 4))",
        "class Tagger(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.head = nn.Linear(4, 3)\n"
        "    def forward(self, x):\n"
        "        return {'logits': self.head(x)}",
        note="a model returning a dict of outputs; its input on the device, as the moved model needs"),
    "host_values_of_a_placed_tensor": Recipe("f(H(1))"),
    "bare_move_of_a_tensor_does_nothing": Recipe("f()"),
    "asarray_of_another_library": Recipe("f(H(3))", note="jax.numpy.asarray of a CUDA tensor"),
    "a_name_array_not_from_numpy": Recipe("f(H(3))"),
    "factory_on_the_host": Recipe("f(3)"),
    "class_body_is_not_a_function": Recipe(note="the module itself is the run"),
    "noqa_on_the_line": Recipe("f(H(3))", noqa=True),
    "input_rebuilt_on_the_host_in_this_function": Recipe("f(D(3))", note="the caller's tensor on the device"),
    "input_copied_to_the_host_first": Recipe("f(D(3))", note="the caller's tensor on the device"),
    "input_of_a_function_that_asks_nothing_about_devices": Recipe(
        "to_array(H(3))", note="nothing here moves the input or asks where it is: a host tensor"),
    "a_function_that_moves_its_inputs_is_handed_host_tensors": Recipe("evaluate(H(2), H(2), dev)"),
    "inputs_of_a_function_that_copies_nothing_to_the_host": Recipe(
        "keys(H(2, 2), H(2, 3))", note="nothing here copies to the host or asks where it is: host tensors"),
    "inputs_of_init_beside_a_copy_to_the_host": Recipe(
        "Ranks(H(2, 3), D(3))", note="a table of triples built on the host; scores from the device"),
    "an_override_whose_base_copies_nothing": Recipe(
        "Derived().process(H(2, 2), H(2))", note="neither method copies to the host: host tensors"),
    "a_dataset_that_copies_to_the_host": Recipe(
        "Pairs().pair(D(2), H(2))", note="a dataset's own tensors on the host; one handed in from the device"),
    "input_annotated_as_an_array_beside_a_copy_to_the_host": Recipe(
        "add(SimpleNamespace(), np.ones(3), D(3))", note="an array, as annotated, and a value from the device"),
    "an_arrays_method_does_not_show_a_tensor": Recipe(
        "add(SimpleNamespace(), np.ones(4), D(3))", note="an array action, as stable-baselines3's buffers get"),
    "input_moved_here_beside_a_copy_to_the_host": Recipe(
        "d.evaluating_forward(H(2, 3))", "d = Detector()\nd.device = dev\nd.model = nn.Linear(3, 3).to(dev)\n"
        "distances = lambda a, b: a - b", note="a batch from a DataLoader, on the host, as pyod's detectors get"),
    "metric_of_values_copied_to_the_host": Recipe(
        "score(nn.Linear(3, 2).to(dev), H(4, 3), D(4))", note="scikit-learn's f1_score of copies on the host"),
    "metric_of_host_tensors": Recipe("score(H(4))", note="scikit-learn's accuracy_score of host tensors"),
    "item_of_a_dataset": Recipe("d[0]", "d = Frames()\nd.frames = [H(3)]",
                                note="a dataset's items are on the host, where a DataLoader asks for them"),
    "made_from_numpy_in_the_function": Recipe("f(D(3), np.ones(3))"),
    "loaded_with_map_location_cpu": Recipe(
        "restore(None, path)", "import os, tempfile\npath = os.path.join(tempfile.mkdtemp(), 'state.pt')\n"
        "torch.save({'weight': D(3)}, path)", note="a checkpoint saved from the device"),
    "a_module_under_construction_is_on_the_host": Recipe("Layer().to(dev)"),
    "private_helper_of_a_module_called_after_a_copy": Recipe(
        "Codec().to(dev)(D(2, 3))", "encode = lambda array: array",
        note="encode, not shown and reached only after .numpy(), stands in as the identity"),
    "what_a_tokenizer_or_a_helper_returns": Recipe(not_run="self.tokenizer, fn and self.config are not shown"),
    "output_of_a_model_given_an_input_made_on_the_host": Recipe(
        "export(nn.Linear(224, 2))", note="the model on the host, where the example input is made"),
    "numpy_function_of_a_module_whose_forward_returns_a_dict": Recipe(
        "predict(H(3))", note="NumPy makes an object array of the dict: no error"),
    "numpy_function_of_a_module_whose_forward_may_return_a_tuple": Recipe(
        not_run="the default path returns one tensor: it raises on a GPU, and the rule cannot tell which path runs"),
    "numpy_function_of_a_module_of_another_file": Recipe(not_run="models.Net is not shown"),
    "numpy_function_of_a_name_bound_to_modules_of_two_classes": Recipe(
        "predict(H(3), True)", note="the large model's output, a dict"),
    "an_object_held_by_an_input": Recipe(
        "Spacing().to(dev)(SimpleNamespace(meta={'pixdim': H(3)}))",
        note="a MONAI-like input whose meta dict holds host tensors"),
}}


def test_cases(rule: str) -> list[tuple[str, str, bool]]:
    """(case id, snippet, flagged by the tests) for every case of tests/rules/test_<rule>.py, in order."""
    import importlib

    tests = os.path.join(ROOT, "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    module = importlib.import_module(f"rules.test_{rule.lower()}")
    return [(param.id, textwrap.dedent(param.values[0]), bool(param.values[1]))
            for param in module.FLAGGED + module.NOT_FLAGGED + getattr(module, "PREVIEW_NOT_FLAGGED", [])]


def device_error(message: str, rule: str, device: str) -> bool:
    """Is this the rule's error? DEV005: a device mismatch; DEV006: NumPy refused a tensor off the host."""
    if rule == "DEV006":
        return re.search(CONVERSION, message, re.IGNORECASE) is not None
    from devlint.frontends.runtime.probes.dev005 import MISMATCH

    if any(re.search(pattern, message, re.IGNORECASE) for pattern in MISMATCH):
        return True
    return device != "cpu" and "cpu" in message.lower() and device in message.lower()


def _namespace(torch: Any, device: str, name: str) -> dict[str, Any]:
    import numpy
    from types import SimpleNamespace

    def on(where: str):
        def make(*shape: int, dtype: Any = None) -> Any:
            return torch.ones(*shape, dtype=dtype or torch.float32, device=where)
        return make
    return {"__name__": name, "torch": torch, "nn": torch.nn, "np": numpy, "SimpleNamespace": SimpleNamespace,
            "dev": device, "D": on(device), "H": on("cpu")}


def _host_tensors(torch: Any, value: Any) -> list[str]:
    from torch.utils._pytree import tree_leaves

    return sorted({str(t.device) for t in tree_leaves(value) if isinstance(t, torch.Tensor) and t.device.type == "cpu"})


def run_one(torch: Any, rule: str, case: str, snippet: str, recipe: Recipe, device: str) -> dict[str, Any]:
    """Execute one snippet and call it as its recipe says, on `device`: the outcome and what was seen."""
    if recipe.not_run:
        return {"outcome": "not run", "detail": recipe.not_run}
    namespace = _namespace(torch, device, f"snippet_{case}")
    try:
        exec(compile(snippet, f"<{rule} {case}>", "exec"), namespace)
        if recipe.setup:
            exec(compile(recipe.setup, f"<{rule} {case} setup>", "exec"), namespace)
        value = eval(compile(recipe.call, f"<{rule} {case} call>", "eval"), namespace) if recipe.call else None
        if device == "cuda":
            torch.cuda.synchronize()
    except Exception as error:  # the snippet's own failure is the evidence
        message = f"{type(error).__name__}: {error}".strip().splitlines()[0]
        if device_error(str(error), rule, device):
            return {"outcome": "fails", "detail": message}
        return {"outcome": "error", "detail": message}
    finally:
        if hasattr(torch, "set_default_device"):  # a snippet may set it (after_set_default_device)
            torch.set_default_device(None)
    if recipe.on_device and device != "cpu":
        host = _host_tensors(torch, value)
        if host:
            return {"outcome": "fails", "detail": f"returns a tensor on {', '.join(host)}; the inputs are on {device}"}
    return {"outcome": "works", "detail": _describe(torch, value)}


def _describe(torch: Any, value: Any) -> str:
    from torch.utils._pytree import tree_leaves

    tensors = [t for t in tree_leaves(value) if isinstance(t, torch.Tensor)]
    if tensors:
        return "returns tensors on " + ", ".join(sorted({str(t.device) for t in tensors}))
    return f"returns {type(value).__name__}"


def expected(flagged: bool, recipe: Recipe) -> str:
    return "fails" if flagged or recipe.noqa else "works"


def run_all(device: str, progress: Any = None) -> list[dict[str, Any]]:
    import torch

    rows = []
    for rule in RULES:
        for case, snippet, flagged in test_cases(rule):
            recipe = RECIPES[rule][case]
            seen = run_one(torch, rule, case, snippet, recipe, device)
            row = {"rule": rule, "case": case, "flagged": flagged, "expected": expected(flagged, recipe),
                   "call": recipe.call or "(the module)", "setup": recipe.setup, "note": recipe.note, **seen}
            if rule == "DEV005" and device != "cpu":
                control = run_one(torch, rule, case, snippet, recipe, "cpu")
                row["control_cpu"] = control
            row["agrees"] = None if seen["outcome"] == "not run" else seen["outcome"] == row["expected"]
            rows.append(row)
            if progress:
                progress(f"{rule} {case}: {seen['outcome']} ({'flagged' if flagged else 'not flagged'})")
    return rows


def markdown(rows: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = ["## DEV005 and DEV006: the tests' snippets run on " + meta["device_name"], "",
             "Written by `benchmarks/cuda_snippets.py` from one run; nothing here was written by hand. The command:",
             "", f"    {meta['command']}", "",
             f"- date: {meta['date']} (UTC); torch {meta['torch']}; device {meta['device']} ({meta['device_name']})",
             "- each snippet of tests/rules/test_dev005.py and test_dev006.py is executed and called with its"
             " recipe (benchmarks/cuda_snippets.py); flagged (and `# noqa`-suppressed) snippets must fail with the"
             " rule's error, the others must work; DEV005's are also run with their inputs on the CPU (control)", ""]
    for rule in RULES:
        mine = [r for r in rows if r["rule"] == rule]
        agree = sum(1 for r in mine if r["agrees"])
        differ = [r for r in mine if r["agrees"] is False]
        skipped = [r for r in mine if r["agrees"] is None]
        lines.append(f"- {rule}: {len(mine)} snippets, {agree} as the tests say, {len(differ)} differ,"
                     f" {len(skipped)} not run")
    lines.append("")
    differ = [r for r in rows if r["agrees"] is False]
    lines += ["### Snippets that differ from what the tests say", ""]
    if not differ:
        lines += ["None.", ""]
    for r in differ:
        extra = f" ({r['note']})" if r["note"] else ""
        lines.append(f"- {r['rule']} `{r['case']}` ({'flagged' if r['flagged'] else 'not flagged'}, must"
                     f" {'fail' if r['expected'] == 'fails' else 'work'}): {r['outcome']}: {r['detail']};"
                     f" called as `{r['call']}`{extra}")
    lines += ["", "### Every snippet", "",
              "| rule | case | tests | must | on the device | what happened | inputs on the CPU (control) |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        control = r.get("control_cpu")
        shown = f"{control['outcome']}: {control['detail']}" if control else ""
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in (
            r["rule"], r["case"], "flagged" if r["flagged"] else "not flagged", r["expected"][:-1],
            r["outcome"], r["detail"], shown)) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda (default), or meta/cpu to try the recipes here")
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--markdown", metavar="PATH")
    options = parser.parse_args(argv)
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # jax (one case) must not take the GPU's memory
    import torch

    if options.device == "cuda" and not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 2
    started = time.monotonic()
    rows = run_all(options.device, lambda line: print(line, file=sys.stderr, flush=True))
    name = torch.cuda.get_device_name(0) if options.device == "cuda" else options.device
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": "python benchmarks/cuda_snippets.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "device": options.device, "device_name": name, "torch": torch.__version__,
            "platform": platform.platform(), "seconds": round(time.monotonic() - started, 1)}
    if options.json:
        with open(options.json, "w", encoding="utf-8") as handle:
            json.dump({**meta, "snippets": rows}, handle, indent=2, default=str)
            handle.write("\n")
    page = markdown(rows, meta)
    if options.markdown:
        with open(options.markdown, "w", encoding="utf-8") as handle:
            handle.write(page)
    differ = [r for r in rows if r["agrees"] is False]
    print(f"{len(rows)} snippets, {len(differ)} differ from the tests", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
