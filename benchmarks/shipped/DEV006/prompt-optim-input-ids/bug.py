# shipped: https://github.com/vaibkumr/prompt-optimizer/pull/4
# Token ids moved to the model's device were iterated via .detach().numpy(); fixed with .detach().cpu().numpy().
import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer


class EntropyScorer:
    def __init__(self, name="bert-base-cased"):
        self.tok = AutoTokenizer.from_pretrained(name)
        self.mlm = AutoModelForMaskedLM.from_pretrained(name)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.mlm.to(self.device)

    def token_entropies(self, text):
        enc = self.tok.encode_plus(text, return_tensors="pt", add_special_tokens=False)
        ids = enc["input_ids"].to(self.device)
        mask = enc["attention_mask"].to(self.device)
        with torch.no_grad():
            logits = self.mlm(ids, attention_mask=mask).logits[0]
        probs = torch.softmax(logits, dim=-1)
        scores = []
        for pos, tok_id in enumerate(ids[0].detach().numpy()):  # expect: DEV006
            scores.append((tok_id, -torch.log2(probs[pos, tok_id]).detach().item()))
        return scores
