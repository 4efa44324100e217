import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs 2D Average Pooling.
    """

    def __init__(self, kernel_size: int, stride: int, padding: int):
        """
        Initializes the 2D Average Pooling layer.

        Args:
            kernel_size (int): Size of the square pooling window.
            stride (int): Stride of the pooling window.
            padding (int): Zero padding on every side (counted in the average).
        """
        super(Model, self).__init__()
        self.avg_pool = nn.AvgPool2d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies 2D Average Pooling to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, channels, height, width).

        Returns:
            torch.Tensor: Output tensor with Average Pooling applied.
        """
        return self.avg_pool(x)


batch_size = 48
channels = 64
height = 512
width = 512
kernel_size = 3
stride = 3
padding = 0
REDUCED_SIZES = {"batch_size": 2, "channels": 8, "height": 64, "width": 64}  # CPU-size variant


def get_inputs():
    x = torch.randn(batch_size, channels, height, width)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding]
