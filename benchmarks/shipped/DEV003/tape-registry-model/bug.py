# shipped: https://github.com/songlab-cal/tape/pull/3
# The model factory ended with an unconditional `model = model.cuda()`, so --no_cuda / CPU-only runs failed; fixed by dropping it and moving the model with `.to(device)` in the callers.
from typing import Optional

from .models.base import ProteinModel


class Registry:
    @classmethod
    def get_task_model(cls, model_name: str, task_name: str,
                       config_file: Optional[str] = None,
                       load_dir: Optional[str] = None) -> ProteinModel:
        spec = registry.get_task_spec(task_name)
        model_cls = spec.get_model(model_name)

        if load_dir is not None:
            model = model_cls.from_pretrained(load_dir, num_labels=spec.num_labels)
        else:
            config = model_cls.config_class()
            config.num_labels = spec.num_labels
            model = model_cls(config)
        model = model.cuda()  # expect: DEV003
        return model


registry = Registry()
