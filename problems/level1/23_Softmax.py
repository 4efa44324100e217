import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a Softmax activation.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies Softmax activation to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, num_features).

        Returns:
            torch.Tensor: Output tensor with Softmax applied, same shape as input.
        """
        return torch.softmax(x, dim=1)


# Rows of 2048 keep every probability (about 1/2048) well above the 1e-4 tolerance, so a kernel that
# writes zeros or skips small entries fails; 262144 rows make the pass memory-bound at about 1 ms.
batch_size = 262144
dim = 2048
REDUCED_SIZES = {"batch_size": 16, "dim": 2048}  # CPU-size variant for the catalogue check


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []  # No special initialization inputs needed
