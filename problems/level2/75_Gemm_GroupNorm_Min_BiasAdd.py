import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a GEMM (Linear), group normalization over the features, takes the minimum
    over the features, and adds a per-feature bias (broadcasting the row minimum over the features).
    """

    def __init__(self, in_features, out_features, num_groups, bias_shape):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_features).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_features).
        """
        x = self.gemm(x)
        x = self.group_norm(x)
        x = torch.min(x, dim=1, keepdim=True)[0]  # (batch_size, 1)
        x = x + self.bias
        return x


batch_size = 1024
in_features = 8192
out_features = 8192
num_groups = 512
bias_shape = (1, out_features)
REDUCED_SIZES = {  # CPU-size variant
    "batch_size": 32,
    "in_features": 256,
    "out_features": 128,
    "num_groups": 16,
    "bias_shape": (1, 128),
}


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, num_groups, bias_shape]
