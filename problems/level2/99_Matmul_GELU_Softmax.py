import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Simple model that performs a matrix multiplication (Linear), applies GELU, and then softmax over
    the features.
    """

    def __init__(self, in_features, out_features):
        super(Model, self).__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_features).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_features).
        """
        x = self.linear(x)
        x = F.gelu(x)
        x = F.softmax(x, dim=1)
        return x


batch_size = 8192
in_features = 16384
out_features = 512  # softmax values ~1/out_features must stay well above the 1e-4 tolerance
REDUCED_SIZES = {"batch_size": 32, "in_features": 256, "out_features": 64}  # CPU-size variant
# No x100 input variant: at x100 the fp32 reference is itself up to 0.000295 from a float64 run, more than
# half the fp32 tolerance, so a kernel that only rounds differently could fail against it (catalogue check,
# ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
