"""DEV004 fix: add `map_location=`; safe only straight into `load_state_dict(...)`."""

from __future__ import annotations

from fixing import check, fixed, unchanged


def test_straight_into_load_state_dict_is_safe():
    check(
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(path))
        """,
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(path, map_location="cpu"))
        """,
    )


def test_a_download_into_load_state_dict_gets_map_location_after_what_it_is_given_wrapped_as_black_would():
    check(
        """
        import torch
        def build(model, url):
            model.load_state_dict(torch.hub.load_state_dict_from_url(url, "weights/"))
        """,
        """
        import torch
        def build(model, url):
            model.load_state_dict(
                torch.hub.load_state_dict_from_url(url, "weights/", map_location="cpu")
            )
        """,
    )


def test_elsewhere_is_unsafe():
    code = """
        import torch
        def restore(model, path):
            checkpoint = torch.load(path)
            model.load_state_dict(checkpoint["model"])
        """
    unchanged(code, unsafe=False)
    check(code, """
        import torch
        def restore(model, path):
            checkpoint = torch.load(path, map_location="cpu")
            model.load_state_dict(checkpoint["model"])
        """, unsafe=True)


def test_returned_through_a_name_gets_no_fix():
    unchanged(
        """
        import torch
        def cached(path):
            data = torch.load(path)
            return data
        """
    )


def test_returned_as_it_is_gets_no_fix():
    # the caller may use the tensors on the GPU they were saved from: "cpu" could break it
    unchanged(
        """
        import torch
        def cached(path):
            return torch.load(path)
        """
    )


def test_device_variable_shown_to_be_a_device_is_used_where_unsafe():
    check(
        """
        import torch
        def restore(path, device: torch.device):
            return torch.load(path)
        """,
        """
        import torch
        def restore(path, device: torch.device):
            return torch.load(path, map_location=device)
        """,
        unsafe=True,
    )


def test_device_the_function_resolved_is_used():
    check(
        """
        import torch
        def restore(path, device=None):
            device = device or torch.device("cpu")
            return torch.load(path)
        """,
        """
        import torch
        def restore(path, device=None):
            device = device or torch.device("cpu")
            return torch.load(path, map_location=device)
        """,
        unsafe=True,
    )


def test_device_parameter_of_unknown_kind_gets_no_fix():
    # an unannotated `device` may be an int GPU index, which map_location rejects
    unchanged(
        """
        import torch
        def restore(path, device):
            return torch.load(path)
        """
    )


def test_attribute_holding_an_int_gpu_index_gets_no_fix():
    unchanged(
        """
        import torch
        class Runner:
            def __init__(self, rank: int):
                self.device = rank
            def restore(self, path):
                return torch.load(path)
        """
    )


def test_attribute_holding_a_torch_device_is_used():
    check(
        """
        import torch
        class Runner:
            def __init__(self, rank: int):
                self.device = torch.device("cuda", rank)
            def restore(self, path):
                return torch.load(path)
        """,
        """
        import torch
        class Runner:
            def __init__(self, rank: int):
                self.device = torch.device("cuda", rank)
            def restore(self, path):
                return torch.load(path, map_location=self.device)
        """,
        unsafe=True,
    )


def test_device_deleted_before_the_line_gets_no_fix():
    unchanged(
        """
        import torch
        def restore(path):
            device = torch.device("cpu")
            del device
            return torch.load(path)
        """
    )


def test_raw_device_argument_resolved_into_another_name_uses_that_name():
    check(
        """
        import torch
        def restore(path, device=None):
            device_ = torch.device(device or "cpu")
            return torch.load(path)
        """,
        """
        import torch
        def restore(path, device=None):
            device_ = torch.device(device or "cpu")
            return torch.load(path, map_location=device_)
        """,
        unsafe=True,
    )


def test_current_device_index_is_not_a_map_location():
    unchanged(
        """
        import torch
        def restore(path):
            device = torch.cuda.current_device()
            return torch.load(path)
        """
    )


def test_into_load_state_dict_uses_cpu_even_with_a_device_variable():
    # `device` may be an int rank here, which map_location rejects: "cpu" always loads
    check(
        """
        import torch
        def restore(model, path, device):
            model.load_state_dict(torch.load(path))
        """,
        """
        import torch
        def restore(model, path, device):
            model.load_state_dict(torch.load(path, map_location="cpu"))
        """,
    )


def test_star_args_get_no_fix():
    unchanged(
        """
        import torch
        def restore(model, args):
            model.load_state_dict(torch.load(*args))
        """
    )


def test_from_import_alias():
    check(
        """
        from torch import load
        def restore(model, path):
            model.load_state_dict(load(path))
        """,
        """
        from torch import load
        def restore(model, path):
            model.load_state_dict(load(path, map_location="cpu"))
        """,
    )


def test_attribute_and_subscript_arguments():
    check(
        """
        import torch as th
        def restore(self, paths):
            self.model.load_state_dict(th.load(paths["best"]))
        """,
        """
        import torch as th
        def restore(self, paths):
            self.model.load_state_dict(th.load(paths["best"], map_location="cpu"))
        """,
    )


def test_multiline_call_with_comment_and_trailing_comma():
    check(
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(
                path,  # the best checkpoint
                weights_only=True,
            ))
        """,
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(
                path,  # the best checkpoint
                weights_only=True,
                map_location="cpu",
            ))
        """,
    )


def test_one_argument_per_line_without_trailing_comma():
    check(
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(
                path
            ))
        """,
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(
                path,
                map_location="cpu"
            ))
        """,
    )


def test_crlf_bom_free_text_and_tabs():
    source = "import torch\r\ndef restore(model, path):\r\n\tmodel.load_state_dict(torch.load(path))\r\n"
    assert fixed(source, dedent=False) == (
        'import torch\r\ndef restore(model, path):\r\n\tmodel.load_state_dict(torch.load(path, map_location="cpu"))\r\n'
    )


def test_device_of_an_inner_function_bound_later_is_not_used():
    check(
        """
        import torch
        def outer(device):
            def inner(path):
                sd = torch.load(path)
                device = 3
                return sd, device
            return inner
        """,
        """
        import torch
        def outer(device):
            def inner(path):
                sd = torch.load(path, map_location="cpu")
                device = 3
                return sd, device
            return inner
        """,
        unsafe=True,
    )


def test_jit_load_and_composition_with_dev003():
    check(
        """
        import torch
        def f(path, model):
            model.load_state_dict(torch.load(path))
            return torch.jit.load(path), torch.load(path, map_location="cuda")
        """,
        """
        import torch
        def f(path, model):
            model.load_state_dict(torch.load(path, map_location="cpu"))
            return torch.jit.load(path, map_location="cpu"), torch.load(
                path,
                map_location="cuda" if torch.cuda.is_available() else "cpu",
            )
        """,
        unsafe=True,
    )


# Issue 28's two broken fixes: `map_location="cpu"` on a value kept and used where it was saved from.
def test_a_save_and_reload_in_the_same_test_is_not_reported_nor_moved_to_the_cpu():
    # the file was written moments earlier on this machine: every device it names exists here, and
    # "cpu" would make the reloaded module meet `x` on another device
    unchanged(
        """
        import torch
        def test_roundtrip(model, x, tmp_path):
            path = tmp_path / "model.pt"
            torch.save(model, path)
            loaded = torch.load(path)
            assert torch.equal(loaded(x), model(x))
        """,
        unsafe=True,
    )


def test_a_loaded_module_that_is_then_called_gets_no_cpu_fix():
    unchanged(
        """
        import torch
        def check_export(path, x, expected):
            scripted = torch.jit.load(path)
            y = scripted(x)
            assert torch.allclose(y, expected)
        """,
        unsafe=True,
    )


def test_a_loaded_value_compared_with_tensors_gets_no_cpu_fix():
    unchanged(
        """
        import torch
        def check_outputs(path, outputs):
            reference = torch.load(path)
            torch.testing.assert_close(outputs, reference)
        """,
        unsafe=True,
    )


def test_a_loaded_value_called_gets_the_functions_device_variable():
    check(
        """
        import torch
        def run(path, x):
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            scripted = torch.jit.load(path)
            return scripted(x)
        """,
        """
        import torch
        def run(path, x):
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            scripted = torch.jit.load(path, map_location=device)
            return scripted(x)
        """,
        unsafe=True,
    )
