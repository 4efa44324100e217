import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Convolutional vision transformer (as in KernelBench): a patch_size-stride conv embeds the
    image, the flattened feature map is projected by a Linear to one token, a class token is
    prepended, `num_layers` nn.TransformerEncoderLayer blocks run over the two tokens, and a
    Linear classifies the class token. Dropout uses p=0.0 (deterministic).
    """

    def __init__(self, num_classes, embed_dim=512, num_heads=8, num_layers=6, mlp_ratio=4.0, patch_size=4, in_channels=3, image_size=32):
        """
        :param num_classes: The number of output classes
        :param embed_dim: Token embedding dimension
        :param num_heads: Number of attention heads
        :param num_layers: Number of transformer encoder layers
        :param mlp_ratio: Encoder MLP hidden size as a multiple of embed_dim
        :param patch_size: Kernel size and stride of the patch-embedding conv
        :param in_channels: Number of input channels
        :param image_size: Height and width of the (square) input image
        """
        super(Model, self).__init__()
        self.patch_size = patch_size
        self.conv1 = nn.Conv2d(in_channels, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.flatten = nn.Flatten()
        self.linear_proj = nn.Linear(embed_dim * (image_size // patch_size) ** 2, embed_dim)
        self.transformer_layers = nn.ModuleList([
            nn.TransformerEncoderLayer(
                d_model=embed_dim, nhead=num_heads, dim_feedforward=int(embed_dim * mlp_ratio), dropout=0.0, batch_first=True
            )
            for _ in range(num_layers)
        ])
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.fc_out = nn.Linear(embed_dim, num_classes)

    def forward(self, x):
        """
        :param x: Input tensor, shape (B, in_channels, image_size, image_size)
        :return: Output tensor, shape (B, num_classes)
        """
        B = x.shape[0]
        x = self.conv1(x)  # (B, embed_dim, H/p, W/p)
        x = self.linear_proj(self.flatten(x))  # (B, embed_dim)
        cls_tokens = self.cls_token.expand(B, -1, -1)
        x = torch.cat((cls_tokens, x.unsqueeze(1)), dim=1)  # (B, 2, embed_dim)
        for layer in self.transformer_layers:
            x = layer(x)
        return self.fc_out(x[:, 0])


# SIZE NOTE: each image is only two tokens, so a large batch is what makes this measurable.
batch_size = 1024
image_size = 32
embed_dim = 512
in_channels = 3
num_heads = 8
num_layers = 6
mlp_ratio = 4.0
patch_size = 4
num_classes = 1000
REDUCED_SIZES = {"batch_size": 4, "image_size": 16, "embed_dim": 64, "num_heads": 4, "num_layers": 2, "num_classes": 100}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, in_channels, image_size, image_size)]


def get_init_inputs():
    return [num_classes, embed_dim, num_heads, num_layers, mlp_ratio, patch_size, in_channels, image_size]
