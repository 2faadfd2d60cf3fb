"""DEV002 fix: create the tensor on the device (safe for a plain device and a non-random factory)."""

from __future__ import annotations

import textwrap

from fixing import check, fixed, unchanged
from rules.cases import reports as _reports


def reports_of(code: str) -> list[tuple[int, int, str]]:
    return _reports("DEV002", textwrap.dedent(code).lstrip("\n"))


def test_plain_device_name_is_moved_into_the_factory():
    check(
        """
        import torch
        def f(n, device):
            return torch.zeros(n).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.zeros(n, device=device)
        """,
    )


def test_alias_and_attribute_target():
    check(
        """
        import torch as th
        def f(n, x):
            return th.ones(n).to(x.device)
        """,
        """
        import torch as th
        def f(n, x):
            return th.ones(n, device=x.device)
        """,
    )


def test_from_import_and_device_keyword():
    check(
        """
        from torch import zeros
        def f(n, device):
            return zeros(n).to(device=device)
        """,
        """
        from torch import zeros
        def f(n, device):
            return zeros(n, device=device)
        """,
    )


def test_casts_between_factory_and_move_stay():
    check(
        """
        import torch
        def f(n, device):
            return torch.ones(n).float().to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.ones(n, device=device).float()
        """,
    )


def test_random_factory_is_unsafe():
    code = """
        import torch
        def f(n, device):
            return torch.randn(n).to(device)
        """
    unchanged(code, unsafe=False)
    check(code, """
        import torch
        def f(n, device):
            return torch.randn(n, device=device)
        """, unsafe=True)


def test_name_that_only_looks_like_a_device_is_unsafe():
    code = """
        import torch
        def f(n, dev):
            return torch.zeros(n).to(dev)
        """
    unchanged(code, unsafe=False)
    assert "torch.zeros(n, device=dev)" in fixed(code, unsafe=True)


def test_target_that_may_be_a_tensor_gets_no_fix():
    unchanged(
        """
        import torch
        def f(n, other):
            return torch.zeros(n).to(other)
        """
    )


def test_split_move_on_the_next_line_is_folded():
    check(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)
            x = x.to(device)
            return x
        """,
        """
        import torch
        def f(n, device):
            x = torch.zeros(n, device=device)
            return x
        """,
    )


def test_multiline_call_gets_the_keyword_on_its_own_line_with_trailing_comma():
    check(
        """
        import torch
        def f(n, device):
            return torch.zeros(
                n,
                n,  # square
            ).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.zeros(
                n,
                n,  # square
                device=device,
            )
        """,
    )


def test_multiline_call_without_trailing_comma_keeps_the_comment_on_its_argument():
    check(
        """
        import torch
        def f(n, device):
            return torch.zeros(
                n,
                n  # square
            ).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.zeros(
                n,
                n,  # square
                device=device
            )
        """,
    )


def test_crlf_and_tabs():
    source = "import torch\r\ndef f(n, device):\r\n\treturn torch.zeros(\r\n\t\tn,\r\n\t).to(device)\r\n"
    assert fixed(source, dedent=False) == (
        "import torch\r\ndef f(n, device):\r\n\treturn torch.zeros(\r\n\t\tn,\r\n\t\tdevice=device,\r\n\t)\r\n"
    )


def test_line_continuation_in_the_arguments_survives():
    check(
        """
        import torch
        def f(n, device):
            return torch.full((n,), \\
                              0.5).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.full((n,), \\
                              0.5, device=device)
        """,
    )


def test_cuda_call_composes_with_dev003():
    # DEV002 alone would write device="cuda"; with DEV003 the literal becomes the guarded choice
    check(
        """
        import torch
        x = torch.zeros(3).cuda()
        """,
        """
        import torch
        x = torch.zeros(3, device="cuda" if torch.cuda.is_available() else "cpu")
        """,
        unsafe=True,
    )


def test_cuda_call_alone_is_safe():
    check(
        """
        import torch
        x = torch.zeros(3).cuda()
        """,
        """
        import torch
        x = torch.zeros(3, device="cuda")
        """,
    )


def test_nested_factories_in_one_expression():
    check(
        """
        import torch
        def f(n, device):
            return torch.cat([torch.zeros(n).to(device), torch.ones(n).to(device)])
        """,
        """
        import torch
        def f(n, device):
            return torch.cat([torch.zeros(n, device=device), torch.ones(n, device=device)])
        """,
    )


def test_several_fixes_in_one_file():
    check(
        """
        import torch
        def f(n, device):
            a = torch.zeros(n).to(device)
            b = torch.arange(n).to(device)
            return a, b
        def g(n, device):
            return torch.eye(n).to(device)
        """,
        """
        import torch
        def f(n, device):
            a = torch.zeros(n, device=device)
            b = torch.arange(n, device=device)
            return a, b
        def g(n, device):
            return torch.eye(n, device=device)
        """,
    )


def test_comment_after_the_opening_paren_is_not_copied():
    check(
        """
        import torch
        def f(n, device):
            return torch.zeros(  # the shape
                n,
            ).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.zeros(  # the shape
                n,
                device=device,
            )
        """,
    )


def test_arguments_sharing_a_line_take_the_keyword_on_that_line():
    check(
        """
        import torch
        def f(n, device):
            return torch.tensor(
                [[1]] * n, dtype=torch.int
            ).to(device)
        """,
        """
        import torch
        def f(n, device):
            return torch.tensor(
                [[1]] * n, dtype=torch.int, device=device
            )
        """,
    )


# -- issue 15: a fix never drops an argument of the move; no fix where it cannot keep one --------


def test_random_factory_with_generator_is_neither_reported_nor_fixed():
    # the generator may be a CPU one: `device=` of another device would raise
    unchanged(
        """
        import torch
        def f(shape, g, device):
            return torch.randn(shape, generator=g).to(device)
        """
    )


def test_move_with_non_blocking_gets_no_fix():
    # a factory has no `non_blocking`; for `torch.tensor(data)` the device form would copy blocking
    unchanged(
        """
        import torch
        def f(n, device):
            scale = torch.ones(n).to(device=device, non_blocking=True)
            data = torch.tensor([1, 2]).to(device, non_blocking=True)
            return scale, data
        """
    )


def test_move_with_copy_or_memory_format_gets_no_fix():
    unchanged(
        """
        import torch
        def f(n, device):
            a = torch.zeros(n).to(device, copy=True)
            b = torch.empty(1, 3, n, n).to(device, memory_format=torch.channels_last)
            return a, b
        """
    )


def test_dtype_of_the_move_is_folded_where_values_are_the_same_in_every_dtype():
    check(
        """
        import torch
        def f(n, device):
            a = torch.zeros(n).to(device, torch.half)
            b = torch.ones(n).to(device=device, dtype=torch.bool)
            c = torch.eye(n).to(torch.half, device=device)
            return a, b, c
        """,
        """
        import torch
        def f(n, device):
            a = torch.zeros(n, dtype=torch.half, device=device)
            b = torch.ones(n, dtype=torch.bool, device=device)
            c = torch.eye(n, dtype=torch.half, device=device)
            return a, b, c
        """,
    )


def test_dtype_of_the_move_that_may_round_otherwise_gets_no_fix():
    # `full` of 0.1, `arange` steps, data and random draws may round differently when made in the
    # target dtype; a cast between would come after the folded dtype; the factory's own dtype stays
    unchanged(
        """
        import torch
        def f(n, device):
            a = torch.full((n,), 0.1).to(device, torch.half)
            b = torch.arange(0, 1, 0.1).to(device, dtype=torch.half)
            c = torch.tensor([0.1]).to(device, torch.half)
            d = torch.zeros(n).long().to(device, torch.half)
            e = torch.zeros(n, dtype=torch.long).to(device, torch.half)
            return a, b, c, d, e
        """
    )


def test_cuda_with_arguments_gets_no_fix():
    unchanged(
        """
        import torch
        if torch.cuda.is_available():  # DEV003 is silent here: only DEV002 could fix
            x = torch.zeros(3).cuda(1)
            y = torch.zeros(3).cuda(non_blocking=True)
        """
    )


def test_zero_dim_value_keeps_its_device_where_it_meets_a_cpu_tensor():
    # the value is used on the CPU before the move: the device stays where the file has it
    unchanged(
        """
        import torch
        def f(j_list, groups, k, device):
            j = torch.tensor(j_list)
            total = j + groups[k]
            j = j.to(device)
            return j, total
        """
    )


def test_fixed_value_has_the_device_it_had_at_every_use():
    # the split fix only applies when nothing reads the value between creation and move
    check(
        """
        import torch
        def f(j_list, groups, k, device):
            j = torch.tensor(j_list)
            j = j.to(device)
            return j + groups[k].to(device)
        """,
        """
        import torch
        def f(j_list, groups, k, device):
            j = torch.tensor(j_list, device=device)
            return j + groups[k].to(device)
        """,
    )


# -- issue 14: legacy constructors: the fix only where the file shows data or sizes ---------------


def test_typed_legacy_constructor_of_a_list_becomes_tensor_with_its_dtype():
    check(
        """
        import torch
        def f(device):
            return torch.LongTensor([1, 2, 3]).to(device)
        """,
        """
        import torch
        def f(device):
            return torch.tensor([1, 2, 3], dtype=torch.long, device=device)
        """,
    )


def test_typed_legacy_constructor_of_a_comprehension_on_cuda():
    check(
        """
        import torch
        x = torch.FloatTensor([len(w) for w in words]).cuda()
        """,
        """
        import torch
        x = torch.tensor([len(w) for w in words], dtype=torch.float, device="cuda")
        """,
    )


def test_typed_legacy_constructor_of_int_literals_is_an_uninitialised_tensor_of_that_size():
    check(
        """
        import torch
        def f(device):
            return torch.FloatTensor(2, 3).to(device)
        """,
        """
        import torch
        def f(device):
            return torch.empty(2, 3, dtype=torch.float, device=device)
        """,
    )


def test_legacy_constructor_of_a_name_is_not_reported():
    # `ids` may be a list (data that must cross anyway) or an int (a size): the file does not say which
    unchanged(
        """
        import torch
        def f(ids, device):
            return torch.LongTensor(ids).to(device)
        """
    )
    assert reports_of("""
        import torch
        def f(ids, device):
            return torch.LongTensor(ids).to(device)
        """) == []


def test_untyped_legacy_constructor_gets_no_fix():
    # `torch.Tensor` follows the default dtype, which the file may change
    unchanged(
        """
        import torch
        def f(device):
            return torch.Tensor([1.0, 2.0]).to(device)
        """
    )


def test_legacy_constructor_imported_by_name_gets_no_fix():
    unchanged(
        """
        from torch import LongTensor
        def f(device):
            return LongTensor([1, 2]).to(device)
        """
    )


def test_legacy_constructor_moved_on_the_next_statement():
    check(
        """
        import torch
        def f(tokens, device):
            ids = torch.LongTensor([t.id for t in tokens])
            ids = ids.to(device)
            return ids
        """,
        """
        import torch
        def f(tokens, device):
            ids = torch.tensor([t.id for t in tokens], dtype=torch.long, device=device)
            return ids
        """,
    )


# -- issue 15: the two-statement form gets the one-line form's fix, layout kept -------------------


def test_split_random_factory_is_unsafe():
    code = """
        import torch
        def f(device):
            x = torch.randn(4, 4)
            x = x.to(device)
            return x
        """
    unchanged(code, unsafe=False)
    check(code, """
        import torch
        def f(device):
            x = torch.randn(4, 4, device=device)
            return x
        """, unsafe=True)


def test_split_with_unrelated_lines_between():
    check(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)
            k = n + 1
            x = x.to(device)
            return x, k
        """,
        """
        import torch
        def f(n, device):
            x = torch.zeros(n, device=device)
            k = n + 1
            return x, k
        """,
    )


def test_split_device_rebound_in_between_gets_no_fix():
    unchanged(
        """
        import torch
        def f(n, device, other):
            x = torch.zeros(n)
            device = other.device
            x = x.to(device)
            return x
        """
    )


def test_split_comment_at_the_end_of_the_move_goes_to_the_factory_line():
    check(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)
            x = x.to(device)  # the model's device
            return x
        """,
        """
        import torch
        def f(n, device):
            x = torch.zeros(n, device=device)  # the model's device
            return x
        """,
    )


def test_split_comments_on_both_lines_get_no_fix():
    unchanged(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)  # scratch
            x = x.to(device)  # the model's device
            return x
        """
    )


def test_split_comment_above_the_move_goes_above_the_factory():
    check(
        """
        import torch
        def f(n, device):
            # scratch space
            x = torch.zeros(n)
            # on the model's device
            x = x.to(device)
            return x
        """,
        """
        import torch
        def f(n, device):
            # scratch space
            # on the model's device
            x = torch.zeros(n, device=device)
            return x
        """,
    )


def test_split_comment_above_the_move_with_lines_between_gets_no_fix():
    unchanged(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)
            k = n + 1
            # on the model's device
            x = x.to(device)
            return x, k
        """
    )


def test_split_blank_line_before_the_move_stays_before_what_follows():
    check(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)
            k = n + 1

            x = x.to(device)
            return x, k
        """,
        """
        import torch
        def f(n, device):
            x = torch.zeros(n, device=device)
            k = n + 1

            return x, k
        """,
    )


def test_split_blank_lines_are_not_doubled():
    check(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)

            x = x.to(device)

            return x
        """,
        """
        import torch
        def f(n, device):
            x = torch.zeros(n, device=device)

            return x
        """,
    )


def test_split_move_as_the_last_statement_of_its_block():
    check(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)

            x = x.to(device)
        def g():
            pass
        """,
        """
        import torch
        def f(n, device):
            x = torch.zeros(n, device=device)
        def g():
            pass
        """,
    )


def test_split_with_dtype_folded():
    check(
        """
        import torch
        def f(n, device):
            mask = torch.ones(n)
            mask = mask.to(device, torch.bool)
            return mask
        """,
        """
        import torch
        def f(n, device):
            mask = torch.ones(n, dtype=torch.bool, device=device)
            return mask
        """,
    )


def test_split_with_non_blocking_gets_no_fix():
    unchanged(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)
            x = x.to(device, non_blocking=True)
            return x
        """
    )


def test_split_fix_and_discarded_move_fix_leave_no_report_in_one_run():
    # DEV001 turns `x.to(device)` into `x = x.to(device)`; the fix loop then folds the pair
    check(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)
            x.to(device)
            return x
        """,
        """
        import torch
        def f(n, device):
            x = torch.zeros(n, device=device)
            return x
        """,
        unsafe=True,
    )


def test_typed_legacy_constructor_of_several_sizes_and_of_a_list_sum():
    # the data form takes one argument: two are sizes; `[a] + rest` is a list (or an error)
    check(
        """
        import torch
        def f(rows, cols, first, rest, device):
            padded = torch.LongTensor(rows, cols).to(device)
            ids = torch.LongTensor([first] + rest).to(device)
            return padded, ids
        """,
        """
        import torch
        def f(rows, cols, first, rest, device):
            padded = torch.empty(rows, cols, dtype=torch.long, device=device)
            ids = torch.tensor([first] + rest, dtype=torch.long, device=device)
            return padded, ids
        """,
    )


def test_type_cast_that_may_name_a_device_gets_no_fix():
    # `.type("torch.FloatTensor")` is a CPU type: without the move after it the tensor would end there
    unchanged(
        """
        import torch
        def f(x, device):
            a = torch.zeros(3).type("torch.FloatTensor").to(device)
            b = torch.tensor(0).type(x.type()).to(x.device)
            return a, b
        """
    )
    check(
        """
        import torch
        def f(device):
            return torch.zeros(3).type(torch.float16).to(device)
        """,
        """
        import torch
        def f(device):
            return torch.zeros(3, device=device).type(torch.float16)
        """,
    )


def test_what_is_computed_from_a_factory_with_numbers_is_made_on_the_device_unsafely():
    # issue 29's shipped timestep embedding: the device kernels compute the values, so unsafe
    code = """
        import math
        import torch
        def embed(t, dim, max_period=10000):
            half = dim // 2
            return torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32) / half).to(t.device)
        """
    unchanged(code, unsafe=False)
    check(code, """
        import math
        import torch
        def embed(t, dim, max_period=10000):
            half = dim // 2
            return torch.exp(
                -math.log(max_period) * torch.arange(half, dtype=torch.float32, device=t.device) / half,
            )
        """, unsafe=True)


def test_what_is_computed_from_a_factory_and_moved_to_a_dtype_too_gets_no_fix():
    unchanged("""
        import torch
        def f(n, device):
            return (torch.arange(n) * 2).to(device, torch.float16)
        """)
