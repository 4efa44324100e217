import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs 3D Average Pooling.
    """

    def __init__(self, kernel_size: int, stride: int, padding: int):
        """
        Initializes the 3D Average Pooling layer.

        Args:
            kernel_size (int): Size of the cubic pooling window.
            stride (int): Stride of the pooling window.
            padding (int): Zero padding on every side (counted in the average).
        """
        super(Model, self).__init__()
        self.avg_pool = nn.AvgPool3d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies 3D Average Pooling to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, channels, depth, height, width).

        Returns:
            torch.Tensor: Output tensor with Average Pooling applied.
        """
        return self.avg_pool(x)


batch_size = 16
channels = 16
depth = 128
height = 128
width = 128
kernel_size = 3
stride = 2
padding = 1
REDUCED_SIZES = {"batch_size": 2, "channels": 4, "depth": 16, "height": 16, "width": 16}  # CPU-size variant


def get_inputs():
    x = torch.randn(batch_size, channels, depth, height, width)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding]
