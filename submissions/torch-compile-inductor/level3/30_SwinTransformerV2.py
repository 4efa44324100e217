import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def window_partition(x, window_size):
    """(B, H, W, C) -> (num_windows * B, window_size, window_size, C)."""
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)


def window_reverse(windows, window_size, H, W):
    """(num_windows * B, window_size, window_size, C) -> (B, H, W, C)."""
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)


class WindowAttention(nn.Module):
    """
    Swin V2 window attention: scaled cosine attention (learned, clamped per-head logit scale)
    plus a continuous relative position bias (16 * sigmoid of a small MLP over log-spaced
    relative coordinates), optional shift mask, softmax, output projection.
    """

    def __init__(self, dim, window_size, num_heads):
        super().__init__()
        self.window_size = window_size
        self.num_heads = num_heads
        self.logit_scale = nn.Parameter(torch.log(10 * torch.ones((num_heads, 1, 1))))
        self.cpb_mlp = nn.Sequential(nn.Linear(2, 512, bias=True), nn.ReLU(inplace=True), nn.Linear(512, num_heads, bias=False))
        ws = window_size
        rel = torch.arange(-(ws - 1), ws, dtype=torch.float32)
        table = torch.stack(torch.meshgrid([rel, rel], indexing="ij")).permute(1, 2, 0).contiguous().unsqueeze(0)
        table = table / (ws - 1) * 8  # normalise to [-8, 8]
        table = torch.sign(table) * torch.log2(torch.abs(table) + 1.0) / math.log2(8)
        self.register_buffer("relative_coords_table", table)
        coords = torch.stack(torch.meshgrid([torch.arange(ws), torch.arange(ws)], indexing="ij")).flatten(1)
        relative = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0).contiguous()
        relative[:, :, 0] += ws - 1
        relative[:, :, 1] += ws - 1
        relative[:, :, 0] *= 2 * ws - 1
        self.register_buffer("relative_position_index", relative.sum(-1))
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.q_bias = nn.Parameter(torch.zeros(dim))
        self.v_bias = nn.Parameter(torch.zeros(dim))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        B_, N, C = x.shape
        qkv_bias = torch.cat((self.q_bias, torch.zeros_like(self.v_bias), self.v_bias))
        qkv = F.linear(x, self.qkv.weight, qkv_bias).reshape(B_, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        logit_scale = torch.clamp(self.logit_scale, max=math.log(1.0 / 0.01)).exp()
        attn = attn * logit_scale
        bias_table = self.cpb_mlp(self.relative_coords_table).view(-1, self.num_heads)
        bias = bias_table[self.relative_position_index.view(-1)].view(N, N, -1).permute(2, 0, 1).contiguous()
        attn = attn + 16 * torch.sigmoid(bias).unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            attn = attn.view(B_ // nW, nW, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        attn = F.softmax(attn, dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B_, N, C)
        return self.proj(x)


class SwinTransformerBlock(nn.Module):
    """Post-norm block: x + norm1(W-MSA(x)) with cyclic shift + mask; then x + norm2(MLP(x))."""

    def __init__(self, dim, input_resolution, num_heads, window_size, shift_size, mlp_ratio):
        super().__init__()
        self.input_resolution = input_resolution
        self.window_size = window_size
        self.shift_size = shift_size
        if min(input_resolution) <= window_size:
            # the window covers the whole feature map: no shift
            self.shift_size = 0
            self.window_size = min(input_resolution)
        self.attn = WindowAttention(dim, self.window_size, num_heads)
        self.norm1 = nn.LayerNorm(dim)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        self.norm2 = nn.LayerNorm(dim)
        self.register_buffer("attn_mask", self._shift_mask() if self.shift_size > 0 else None)

    def _shift_mask(self):
        H, W = self.input_resolution
        ws, s = self.window_size, self.shift_size
        img_mask = torch.zeros((1, H, W, 1))
        cnt = 0
        for h in (slice(0, -ws), slice(-ws, -s), slice(-s, None)):
            for w in (slice(0, -ws), slice(-ws, -s), slice(-s, None)):
                img_mask[:, h, w, :] = cnt
                cnt += 1
        mask_windows = window_partition(img_mask, ws).view(-1, ws * ws)
        attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
        return attn_mask.masked_fill(attn_mask != 0, -100.0).masked_fill(attn_mask == 0, 0.0)

    def forward(self, x):
        H, W = self.input_resolution
        B, L, C = x.shape
        ws, s = self.window_size, self.shift_size
        shortcut = x
        x = x.view(B, H, W, C)
        shifted_x = torch.roll(x, shifts=(-s, -s), dims=(1, 2)) if s > 0 else x
        x_windows = window_partition(shifted_x, ws).view(-1, ws * ws, C)
        attn_windows = self.attn(x_windows, mask=self.attn_mask).view(-1, ws, ws, C)
        shifted_x = window_reverse(attn_windows, ws, H, W)
        x = torch.roll(shifted_x, shifts=(s, s), dims=(1, 2)) if s > 0 else shifted_x
        x = shortcut + self.norm1(x.reshape(B, H * W, C))
        return x + self.norm2(self.mlp(x))


class PatchMerging(nn.Module):
    """Concatenate each 2x2 neighbourhood (4C), Linear to 2C, then LayerNorm: halves H and W."""

    def __init__(self, input_resolution, dim):
        super().__init__()
        self.input_resolution = input_resolution
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = nn.LayerNorm(2 * dim)

    def forward(self, x):
        H, W = self.input_resolution
        B, L, C = x.shape
        x = x.view(B, H, W, C)
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1)
        return self.norm(self.reduction(x.view(B, -1, 4 * C)))


class Model(nn.Module):
    """
    Swin Transformer V2: patch embedding (strided conv + LayerNorm), four stages of post-norm
    Swin blocks (scaled cosine window attention with continuous position bias, alternating
    shifted windows) with patch merging between stages, LayerNorm, global average pooling over
    tokens, and a Linear classifier. Dropout / drop-path are 0 (deterministic).
    """

    def __init__(self, img_size, patch_size, in_chans, num_classes, embed_dim, depths, num_heads, window_size, mlp_ratio):
        """
        :param img_size: Height and width of the (square) input image
        :param patch_size: Patch size of the embedding conv
        :param in_chans: Number of input channels
        :param num_classes: The number of output classes
        :param embed_dim: Token dimension of the first stage (doubles every stage)
        :param depths: Number of blocks in each stage
        :param num_heads: Number of attention heads in each stage
        :param window_size: Window size (at least 2)
        :param mlp_ratio: MLP hidden size as a multiple of the token dimension
        """
        super().__init__()
        num_layers = len(depths)
        self.num_features = int(embed_dim * 2 ** (num_layers - 1))
        res = img_size // patch_size
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.patch_norm = nn.LayerNorm(embed_dim)
        self.layers = nn.ModuleList()
        for i, depth in enumerate(depths):
            dim = int(embed_dim * 2 ** i)
            resolution = (res // 2 ** i, res // 2 ** i)
            blocks = [
                SwinTransformerBlock(dim, resolution, num_heads[i], window_size, 0 if j % 2 == 0 else window_size // 2, mlp_ratio)
                for j in range(depth)
            ]
            if i < num_layers - 1:
                blocks.append(PatchMerging(resolution, dim))
            self.layers.append(nn.Sequential(*blocks))
        self.norm = nn.LayerNorm(self.num_features)
        self.head = nn.Linear(self.num_features, num_classes)

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, in_chans, img_size, img_size)
        :return: Output tensor, shape (batch_size, num_classes)
        """
        x = self.patch_norm(self.proj(x).flatten(2).transpose(1, 2))  # (B, tokens, embed_dim)
        for layer in self.layers:
            x = layer(x)
        x = self.norm(x).mean(dim=1)
        return self.head(x)


batch_size = 10
img_size = 224
patch_size = 4
in_chans = 3
num_classes = 1000
embed_dim = 96
depths = [2, 2, 6, 2]
num_heads = [3, 6, 12, 24]
window_size = 7
mlp_ratio = 4.0
# CPU size: 64x64 keeps the last stage at 2x2 tokens (a 1x1 window would divide by zero in
# the position-bias coordinate normalisation).
REDUCED_SIZES = {"batch_size": 2, "img_size": 64, "num_classes": 100, "embed_dim": 24, "window_size": 2}


def get_inputs():
    return [torch.randn(batch_size, in_chans, img_size, img_size)]


def get_init_inputs():
    return [img_size, patch_size, in_chans, num_classes, embed_dim, depths, num_heads, window_size, mlp_ratio]


# kb-validate: the torch.compile baseline (generated by `kb-validate catalogue baseline --write`)
class ModelNew(Model):
    """The reference Model with its forward compiled by torch.compile (inductor, default mode)."""

    def __init__(self, *args):
        super().__init__(*args)
        self._compiled_forward = torch.compile(super().forward)

    def forward(self, *inputs):
        return self._compiled_forward(*inputs)
