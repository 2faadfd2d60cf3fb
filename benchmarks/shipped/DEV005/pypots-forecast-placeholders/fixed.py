# shipped: https://github.com/WenjieDu/PyPOTS/pull/626
# At inference the placeholder future values and mask were made with torch.zeros/ones on the CPU and fed to the decoder embedding with the batch's encoder output; fixed with device=X.device.
import torch
import torch.nn as nn

from ...nn.modules.saits import SaitsEmbedding
from ...nn.modules.transformer import TransformerDecoder, TransformerEncoder


class _TransformerForecaster(nn.Module):
    def __init__(self, n_steps, n_features, n_pred_steps, n_pred_features, n_layers, d_model, n_heads, d_ffn, dropout):
        super().__init__()
        self.n_pred_steps = n_pred_steps
        self.n_pred_features = n_pred_features
        self.encoder_embedding = SaitsEmbedding(n_features * 2, d_model, dropout=dropout)
        self.decoder_embedding = SaitsEmbedding(n_pred_features * 2, d_model, dropout=dropout)
        self.encoder = TransformerEncoder(n_layers, d_model, n_heads, d_ffn, dropout)
        self.decoder = TransformerDecoder(n_layers, d_model, n_heads, d_ffn, dropout)
        self.output_projection = nn.Linear(d_model, n_pred_features)

    def forward(self, inputs: dict) -> dict:
        X, missing_mask = inputs["X"], inputs["missing_mask"]

        if self.training:
            X_pred, X_pred_missing_mask = inputs["X_pred"], inputs["X_pred_missing_mask"]
        else:
            batch_size = X.shape[0]
            device = X.device
            X_pred, X_pred_missing_mask = (
                torch.zeros(batch_size, self.n_pred_steps, self.n_pred_features, device=device),
                torch.ones(batch_size, self.n_pred_steps, self.n_pred_features, device=device),
            )

        enc_output, _ = self.encoder(self.encoder_embedding(X, missing_mask))
        dec_input = self.decoder_embedding(X_pred, X_pred_missing_mask)
        dec_output, _, _ = self.decoder(dec_input, enc_output)
        forecast = self.output_projection(dec_output)

        results = {"forecasting_data": forecast}
        if self.training:
            results["loss"] = self.training_loss(X_pred, forecast, X_pred_missing_mask)
        return results
