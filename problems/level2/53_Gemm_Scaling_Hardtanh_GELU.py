import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a GEMM (Linear), scales the result, applies Hardtanh, and then GELU.
    """

    def __init__(self, in_features, out_features, scaling_factor, hardtanh_min, hardtanh_max):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)
        self.gelu = nn.GELU()

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_features).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_features).
        """
        x = self.gemm(x)
        x = x * self.scaling_factor
        x = self.hardtanh(x)
        x = self.gelu(x)
        return x


batch_size = 2048
in_features = 8192
out_features = 8192
scaling_factor = 2.0
hardtanh_min = -2.0
hardtanh_max = 2.0
REDUCED_SIZES = {"batch_size": 32, "in_features": 256, "out_features": 128}  # CPU-size variant
# No x100 input variant: at x100 the fp32 reference is itself up to 0.00123 from a float64 run (tolerance
# scaled x1.38 here), more than half the fp32 tolerance, so a kernel that only rounds differently could fail
# against it (catalogue check, ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor, hardtanh_min, hardtanh_max]
