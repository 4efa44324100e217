import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs 1D Max Pooling.
    """

    def __init__(self, kernel_size: int, stride: int, padding: int, dilation: int):
        """
        Initializes the Max Pooling 1D layer.

        Args:
            kernel_size (int): Size of the window to take a max over.
            stride (int): Stride of the window.
            padding (int): Implicit negative-infinity padding on both sides.
            dilation (int): Spacing between kernel elements.
        """
        super(Model, self).__init__()
        self.maxpool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies Max Pooling 1D to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, num_features, sequence_length).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, num_features, output_sequence_length).
        """
        return self.maxpool(x)


batch_size = 64
features = 128
sequence_length = 65536
kernel_size = 4
stride = 2
padding = 2
dilation = 3
REDUCED_SIZES = {"batch_size": 4, "features": 16, "sequence_length": 1024}  # CPU-size variant


def get_inputs():
    x = torch.randn(batch_size, features, sequence_length)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding, dilation]
