import torch
import torch.nn as nn


class DoubleConv(nn.Module):
    """(3x3 conv -> BatchNorm -> softmax over the width axis) twice."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1),
            nn.BatchNorm2d(out_channels),
            nn.Softmax(dim=-1),
            nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1),
            nn.BatchNorm2d(out_channels),
            nn.Softmax(dim=-1),
        )

    def forward(self, x):
        return self.double_conv(x)


class Model(nn.Module):
    """
    U-Net whose activations are softmax over the last (width) axis: four encoder levels
    (DoubleConv + 2x2 max-pool), a bottleneck, four decoder levels (2x2 transposed conv,
    concatenation with the matching encoder output, DoubleConv), and a final 1x1 conv.
    BatchNorm runs in training mode (batch statistics).
    """

    def __init__(self, in_channels, out_channels, features):
        """
        :param in_channels: Number of input channels
        :param out_channels: Number of output channels
        :param features: Channels at the first level (doubled at each level down)
        """
        super(Model, self).__init__()
        f = features
        self.encoder1 = DoubleConv(in_channels, f)
        self.pool1 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.encoder2 = DoubleConv(f, f * 2)
        self.pool2 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.encoder3 = DoubleConv(f * 2, f * 4)
        self.pool3 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.encoder4 = DoubleConv(f * 4, f * 8)
        self.pool4 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.bottleneck = DoubleConv(f * 8, f * 16)
        self.upconv4 = nn.ConvTranspose2d(f * 16, f * 8, kernel_size=2, stride=2)
        self.decoder4 = DoubleConv(f * 16, f * 8)
        self.upconv3 = nn.ConvTranspose2d(f * 8, f * 4, kernel_size=2, stride=2)
        self.decoder3 = DoubleConv(f * 8, f * 4)
        self.upconv2 = nn.ConvTranspose2d(f * 4, f * 2, kernel_size=2, stride=2)
        self.decoder2 = DoubleConv(f * 4, f * 2)
        self.upconv1 = nn.ConvTranspose2d(f * 2, f, kernel_size=2, stride=2)
        self.decoder1 = DoubleConv(f * 2, f)
        self.final_conv = nn.Conv2d(f, out_channels, kernel_size=1)

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, in_channels, height, width)
        :return: Output tensor, shape (batch_size, out_channels, height, width)
        """
        enc1 = self.encoder1(x)
        enc2 = self.encoder2(self.pool1(enc1))
        enc3 = self.encoder3(self.pool2(enc2))
        enc4 = self.encoder4(self.pool3(enc3))
        bottleneck = self.bottleneck(self.pool4(enc4))
        dec4 = self.decoder4(torch.cat((self.upconv4(bottleneck), enc4), dim=1))
        dec3 = self.decoder3(torch.cat((self.upconv3(dec4), enc3), dim=1))
        dec2 = self.decoder2(torch.cat((self.upconv2(dec3), enc2), dim=1))
        dec1 = self.decoder1(torch.cat((self.upconv1(dec2), enc1), dim=1))
        return self.final_conv(dec1)


batch_size = 8
in_channels = 8
out_channels = 4
# The softmax axis is 64 wide (it was height 64, width 512: the same work, transposed). Over 512 values
# each softmax -> conv -> BatchNorm stage amplifies rounding about twofold, and after twenty of them the
# fp32 reference was itself up to 6e-2 from a float64 run (norm-wise 5e-3), so no kernel that rounds
# differently could pass; over 64 values it is within 1e-5 (catalogue check, ill-conditioned filter, and
# bench/compile_disagreement.py, 2026-11-24).
height = 512
width = 64
features = 64
REDUCED_SIZES = {"batch_size": 2, "in_channels": 4, "out_channels": 2, "height": 16, "width": 32, "features": 8}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, features]
