import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs 3D Max Pooling.
    """

    def __init__(self, kernel_size: int, stride: int, padding: int, dilation: int):
        """
        Initializes the Max Pooling 3D layer.

        Args:
            kernel_size (int): Size of the cubic pooling window.
            stride (int): Stride of the pooling window.
            padding (int): Implicit negative-infinity padding on every side.
            dilation (int): Spacing between kernel elements.
        """
        super(Model, self).__init__()
        self.maxpool = nn.MaxPool3d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies Max Pooling 3D to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, channels, dim1, dim2, dim3).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, channels, out_dim1, out_dim2, out_dim3).
        """
        return self.maxpool(x)


batch_size = 16
channels = 16
dim1 = 128
dim2 = 128
dim3 = 128
kernel_size = 3
stride = 2
padding = 1
dilation = 3
REDUCED_SIZES = {"batch_size": 2, "channels": 4, "dim1": 16, "dim2": 16, "dim3": 16}  # CPU-size variant


def get_inputs():
    x = torch.randn(batch_size, channels, dim1, dim2, dim3)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding, dilation]
