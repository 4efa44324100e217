import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a matrix multiplication (Linear), 1D max pooling over the features, a sum
    over the pooled features, and scaling.
    """

    def __init__(self, in_features, out_features, kernel_size, scale_factor):
        super(Model, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.max_pool = nn.MaxPool1d(kernel_size)
        self.scale_factor = scale_factor

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_features).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size,).
        """
        x = self.matmul(x)
        x = self.max_pool(x.unsqueeze(1)).squeeze(1)
        x = torch.sum(x, dim=1)
        x = x * self.scale_factor
        return x


batch_size = 1024
in_features = 8192
out_features = 8192
kernel_size = 2
scale_factor = 0.5
REDUCED_SIZES = {"batch_size": 32, "in_features": 256, "out_features": 128}  # CPU-size variant


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, kernel_size, scale_factor]
