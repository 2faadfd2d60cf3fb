"""DEV006 fix: `.cpu()` before the conversion (`.detach().cpu()` where the tensor may require grad); safe."""

from __future__ import annotations

from fixing import check, unchanged


def test_cpu_is_inserted_before_numpy():
    check(
        """
        import torch
        def f(x):
            y = x.cuda()
            return y.numpy()
        """,
        """
        import torch
        def f(x):
            y = x.cuda()
            return y.cpu().numpy()
        """,
    )


def test_a_chain_keeps_its_methods():
    check(
        """
        import torch
        def f(x):
            return x.to("cuda").argmax(1).numpy()
        """,
        """
        import torch
        def f(x):
            return x.to("cuda").argmax(1).cpu().numpy()
        """,
    )


def test_model_output_outside_no_grad_is_detached():
    check(
        """
        import torch
        def embed(model, images):
            model.cuda()
            features = model(images.cuda())
            return features.numpy()
        """,
        """
        import torch
        def embed(model, images):
            model.cuda()
            features = model(images.cuda())
            return features.detach().cpu().numpy()
        """,
    )


def test_model_output_under_no_grad_is_not_detached():
    check(
        """
        import torch
        def embed(model, images):
            model.cuda()
            with torch.no_grad():
                features = model(images.cuda())
            return features.numpy()
        """,
        """
        import torch
        def embed(model, images):
            model.cuda()
            with torch.no_grad():
                features = model(images.cuda())
            return features.cpu().numpy()
        """,
    )


def test_inference_mode_decorator_turns_grad_off():
    check(
        """
        import torch
        @torch.inference_mode()
        def embed(model, images):
            model.cuda()
            return model(images.cuda()).numpy()
        """,
        """
        import torch
        @torch.inference_mode()
        def embed(model, images):
            model.cuda()
            return model(images.cuda()).cpu().numpy()
        """,
    )


def test_an_existing_detach_is_kept_once():
    check(
        """
        import torch
        def embed(model, images):
            model.cuda()
            return model(images.cuda()).detach().numpy()
        """,
        """
        import torch
        def embed(model, images):
            model.cuda()
            return model(images.cuda()).detach().cpu().numpy()
        """,
    )


def test_requires_grad_factory_is_detached():
    check(
        """
        import torch
        def f(n):
            w = torch.zeros(n, device="cuda", requires_grad=True)
            return (w * 2).numpy()
        """,
        """
        import torch
        def f(n):
            w = torch.zeros(n, device="cuda", requires_grad=True)
            return (w * 2).detach().cpu().numpy()
        """,
    )


def test_asarray_gets_cpu_inside():
    check(
        """
        import numpy as np
        import torch
        def f(x):
            y = x.cuda()
            return np.asarray(y, dtype=np.float32)
        """,
        """
        import numpy as np
        import torch
        def f(x):
            y = x.cuda()
            return np.asarray(y.cpu(), dtype=np.float32)
        """,
    )


def test_asarray_of_an_operation_is_parenthesised():
    check(
        """
        import numpy as np
        import torch
        def f(x):
            return np.array(x.cuda() * 2)
        """,
        """
        import numpy as np
        import torch
        def f(x):
            return np.array((x.cuda() * 2).cpu())
        """,
    )


def test_asarray_of_a_list_of_placed_tensors_is_not_reported():
    unchanged(
        """
        import numpy as np
        import torch
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        def f(x):
            return np.asarray([t.to(device) for t in x])
        """
    )


def test_numpy_of_a_models_output_object_attribute_is_fixed():
    check(
        """
        import torch
        def f(model, batch):
            model.cuda()
            with torch.no_grad():
                return model(batch).logits.numpy()
        """,
        """
        import torch
        def f(model, batch):
            model.cuda()
            with torch.no_grad():
                return model(batch).logits.cpu().numpy()
        """,
    )


def test_set_grad_enabled_false_turns_grad_off():
    check(
        """
        import torch
        def embed(model, images):
            model.cuda()
            with torch.set_grad_enabled(False):
                out = model(images)
            return out.numpy()
        """,
        """
        import torch
        def embed(model, images):
            model.cuda()
            with torch.set_grad_enabled(False):
                out = model(images)
            return out.cpu().numpy()
        """,
    )
