import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a GEMM (Linear), adds a per-feature bias, applies Hardtanh, Mish, and group
    normalization over the features.
    """

    def __init__(self, in_features, out_features, bias_shape, num_groups):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.hardtanh = nn.Hardtanh()
        self.mish = nn.Mish()
        self.groupnorm = nn.GroupNorm(num_groups=num_groups, num_channels=out_features)

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_features).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_features).
        """
        x = self.gemm(x)
        x = x + self.bias
        x = self.hardtanh(x)
        x = self.mish(x)
        x = self.groupnorm(x)
        return x


batch_size = 1024
in_features = 8192
out_features = 8192
bias_shape = (out_features,)
num_groups = 256
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 32,
    "in_features": 256,
    "out_features": 128,
    "bias_shape": (128,),
    "num_groups": 16,
}
# No x100 input variant: at x100 the fp32 reference is itself up to 0.000617 from a float64 run, more than
# half the fp32 tolerance, so a kernel that only rounds differently could fail against it (catalogue check,
# ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, bias_shape, num_groups]
