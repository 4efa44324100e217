import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs 2D Batch Normalization with batch statistics.

    track_running_stats=False makes the layer normalize with the statistics of the current batch in
    both train and eval mode and leaves no running-statistics buffers to update, so the output is a
    pure function of the input and the affine parameters.
    """

    def __init__(self, num_features: int):
        """
        Initializes the BatchNorm layer.

        Args:
            num_features (int): Number of features (channels) in the input tensor.
        """
        super(Model, self).__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features, track_running_stats=False)
        # Random affine parameters (the defaults are ones and zeros): a kernel that skipped the affine
        # step would otherwise still match.
        nn.init.uniform_(self.bn.weight, 0.5, 1.5)
        nn.init.uniform_(self.bn.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies Batch Normalization to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, num_features, *).

        Returns:
            torch.Tensor: Output tensor with Batch Normalization applied, same shape as input.
        """
        return self.bn(x)


batch_size = 128
features = 64
dim1 = 256
dim2 = 256
REDUCED_SIZES = {"batch_size": 4, "features": 8, "dim1": 32, "dim2": 32}  # CPU-size variant


def get_inputs():
    x = torch.randn(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [features]
