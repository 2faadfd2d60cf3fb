# shipped: https://github.com/idiap/coqui-ai-TTS/pull/144
# Bark loader bound autocast = functools.partial(torch.cuda.amp.autocast, dtype=bfloat16) (hasattr-guarded, no-op fallback otherwise); replaced by functools.partial(torch.autocast, device_type="cuda", ...).
import contextlib
import functools

import torch

from TTS.tts.layers.bark.model import GPT, GPTConfig

if (
    torch.cuda.is_available()
    and hasattr(torch.cuda, "amp")
    and hasattr(torch.cuda.amp, "autocast")
    and torch.cuda.is_bf16_supported()
):
    autocast = functools.partial(torch.cuda.amp.autocast, dtype=torch.bfloat16)  # expect: DEV008
else:

    @contextlib.contextmanager
    def autocast():
        yield


def generate_tokens(model: GPT, tokens, steps=64):
    out = tokens
    with autocast():
        for _ in range(steps):
            logits = model(out)[:, -1]
            out = torch.cat([out, logits.argmax(-1, keepdim=True)], dim=1)
    return out
