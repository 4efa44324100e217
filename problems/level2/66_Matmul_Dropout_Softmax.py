import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a matrix multiplication (Linear), applies dropout, and then softmax over the
    features.

    The dropout probability is 0.0, so dropout is the identity in training and in evaluation mode
    and the output is deterministic.
    """

    def __init__(self, in_features, out_features, dropout_p):
        super(Model, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_features).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_features).
        """
        x = self.matmul(x)
        x = self.dropout(x)
        x = torch.softmax(x, dim=1)
        return x


batch_size = 16384
in_features = 8192
out_features = 512  # softmax values ~1/out_features must stay well above the 1e-4 tolerance
dropout_p = 0.0
REDUCED_SIZES = {"batch_size": 32, "in_features": 256, "out_features": 64}  # CPU-size variant
# No x100 input variant: at x100 the fp32 reference is itself up to 0.000246 from a float64 run, more than
# half the fp32 tolerance, so a kernel that only rounds differently could fail against it (catalogue check,
# ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, dropout_p]
