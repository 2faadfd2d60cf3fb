# shipped: https://github.com/idiap/coqui-ai-TTS/pull/144
# TTS model imported autocast from torch.cuda.amp.autocast_mode and used `with autocast(enabled=...)` around its losses; replaced by torch.autocast("cuda", enabled=...).
import torch
from torch import nn

from TTS.tts.utils.helpers import segment


class DelightfulLikeTTS(nn.Module):
    def __init__(self, args, disc):
        super().__init__()
        self.args = args
        self.disc = disc
        self.cache = None

    def train_step(self, batch, criterion, optimizer_idx):
        if optimizer_idx == 0:
            outputs = self.forward(batch["tokens"], batch["mel_input"])
            self.cache = outputs
            fake, _, real, _ = self.disc(outputs["model_outputs"].detach(), outputs["waveform_seg"])
            with torch.autocast("cuda", enabled=False):
                loss = criterion[0](scores_disc_fake=fake, scores_disc_real=real)
            return outputs, loss
        mel = batch["mel_input"]
        with torch.autocast("cuda", enabled=False):
            mel_slice = segment(mel.float(), self.cache["slice_ids"], self.args.spec_segment_size)
        with torch.autocast("cuda", enabled=True):
            loss = criterion[1](mel_output=self.cache["acoustic"], mel_target=mel_slice)
        return None, loss
