import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Self-attention over the pixels of a feature map: (B, C, H, W) is flattened to a sequence of
    H*W tokens of size C, passed through nn.MultiheadAttention (query = key = value), added to
    its input, layer-normalised, and reshaped back to (B, C, H, W).
    """

    def __init__(self, embed_dim, num_heads):
        """
        :param embed_dim: Embedding dimension (the number of channels C)
        :param num_heads: Number of attention heads (divides embed_dim)
        """
        super(Model, self).__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x):
        """
        :param x: Input tensor, shape (B, C, H, W)
        :return: Output tensor, shape (B, C, H, W)
        """
        B, C, H, W = x.shape
        x = x.view(B, C, H * W).permute(2, 0, 1)  # (seq_len, B, C)
        attn_output, _ = self.attn(x, x, x)
        x = self.norm(attn_output + x)
        return x.permute(1, 2, 0).view(B, C, H, W)


batch_size = 8
embed_dim = 128
num_heads = 4
image_height = 64
image_width = 64
REDUCED_SIZES = {"batch_size": 2, "embed_dim": 32, "image_height": 8, "image_width": 8}  # CPU size
# No x100 input variant: at x100 the fp32 reference is itself up to 0.00131 from a float64 run, more than
# half the fp32 tolerance, so a kernel that only rounds differently could fail against it (catalogue check,
# ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, embed_dim, image_height, image_width)]


def get_init_inputs():
    return [embed_dim, num_heads]
