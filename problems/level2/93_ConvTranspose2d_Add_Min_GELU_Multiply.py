import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Model that performs a 2D transposed convolution, adds a constant, takes the elementwise minimum
    with 0, applies GELU, and multiplies by a constant.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, add_value, multiply_value):
        super(Model, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride)
        self.add_value = add_value
        self.multiply_value = multiply_value

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height', width').
        """
        x = self.conv_transpose(x)
        x = x + self.add_value
        x = torch.min(x, torch.tensor(0.0, device=x.device))
        x = F.gelu(x)
        x = x * self.multiply_value
        return x


batch_size = 128
in_channels = 128
out_channels = 64
height, width = 64, 64
kernel_size = 4
stride = 2
add_value = -0.2  # most values stay below 0, so the minimum does not zero out the output
multiply_value = 2.0
REDUCED_SIZES = {"batch_size": 2, "in_channels": 16, "out_channels": 8, "height": 16, "width": 16}  # CPU size
# No x100 input variant: at x100 the fp32 reference is itself up to 5.86e-05 from a float64 run, more than
# half the fp32 tolerance, so a kernel that only rounds differently could fail against it (catalogue check,
# ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, add_value, multiply_value]
