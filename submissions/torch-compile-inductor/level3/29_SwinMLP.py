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


class Mlp(nn.Module):
    """Linear -> GELU -> Linear."""

    def __init__(self, in_features, hidden_features):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden_features, in_features)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class SwinMLPBlock(nn.Module):
    """
    Pre-norm block: LayerNorm -> per-head spatial MLP inside (shifted, zero-padded) windows
    (a grouped 1x1 Conv1d over window positions) -> residual; LayerNorm -> MLP -> residual.
    """

    def __init__(self, dim, input_resolution, num_heads, window_size, shift_size, mlp_ratio):
        super().__init__()
        self.dim = dim
        self.input_resolution = input_resolution
        self.num_heads = num_heads
        self.window_size = window_size
        self.shift_size = shift_size
        if min(input_resolution) <= window_size:
            # the window covers the whole feature map: no shift
            self.shift_size = 0
            self.window_size = min(input_resolution)
        ws, s = self.window_size, self.shift_size
        self.padding = [ws - s, s, ws - s, s]  # left, right, top, bottom
        self.norm1 = nn.LayerNorm(dim)
        self.spatial_mlp = nn.Conv1d(num_heads * ws ** 2, num_heads * ws ** 2, kernel_size=1, groups=num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio))

    def forward(self, x):
        H, W = self.input_resolution
        B, L, C = x.shape
        ws, nh = self.window_size, self.num_heads
        shortcut = x
        x = self.norm1(x).view(B, H, W, C)
        if self.shift_size > 0:
            P_l, P_r, P_t, P_b = self.padding
            shifted_x = F.pad(x, [0, 0, P_l, P_r, P_t, P_b], "constant", 0)
        else:
            shifted_x = x
        _, _H, _W, _ = shifted_x.shape
        x_windows = window_partition(shifted_x, ws).view(-1, ws * ws, C)
        heads = x_windows.view(-1, ws * ws, nh, C // nh).transpose(1, 2).reshape(-1, nh * ws * ws, C // nh)
        mixed = self.spatial_mlp(heads)
        mixed = mixed.view(-1, nh, ws * ws, C // nh).transpose(1, 2).reshape(-1, ws * ws, C)
        shifted_x = window_reverse(mixed.reshape(-1, ws, ws, C), ws, _H, _W)
        if self.shift_size > 0:
            P_l, P_r, P_t, P_b = self.padding
            x = shifted_x[:, P_t:-P_b, P_l:-P_r, :].contiguous()
        else:
            x = shifted_x
        x = shortcut + x.view(B, H * W, C)
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    """Concatenate each 2x2 neighbourhood (4C), LayerNorm, Linear to 2C: halves H and W."""

    def __init__(self, input_resolution, dim):
        super().__init__()
        self.input_resolution = input_resolution
        self.norm = nn.LayerNorm(4 * dim)
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x):
        H, W = self.input_resolution
        B, L, C = x.shape
        x = x.view(B, H, W, C)
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1)
        return self.reduction(self.norm(x.view(B, -1, 4 * C)))


class Model(nn.Module):
    """
    Swin-MLP: patch embedding (strided conv + LayerNorm), four stages of SwinMLPBlocks (window
    spatial MLPs, alternating shifted windows) with patch merging between stages, LayerNorm,
    global average pooling over tokens and a Linear classifier. Dropout / drop-path are 0
    (deterministic).
    """

    def __init__(self, img_size, patch_size, in_chans, num_classes, embed_dim, depths, num_heads, window_size, mlp_ratio):
        """
        :param img_size: Height and width of the (square) input image
        :param patch_size: Patch size of the embedding conv
        :param in_chans: Number of input channels
        :param num_classes: The number of output classes
        :param embed_dim: Token dimension of the first stage (doubles every stage)
        :param depths: Number of blocks in each stage
        :param num_heads: Number of spatial-MLP heads in each stage
        :param window_size: Window size
        :param mlp_ratio: MLP hidden size as a multiple of the token dimension
        """
        super().__init__()
        self.num_layers = len(depths)
        self.num_features = int(embed_dim * 2 ** (self.num_layers - 1))
        self.patch_size = patch_size
        res = img_size // patch_size
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.patch_norm = nn.LayerNorm(embed_dim)
        self.layers = nn.ModuleList()
        for i, depth in enumerate(depths):
            dim = int(embed_dim * 2 ** i)
            resolution = (res // 2 ** i, res // 2 ** i)
            blocks = [
                SwinMLPBlock(dim, resolution, num_heads[i], window_size, 0 if j % 2 == 0 else window_size // 2, mlp_ratio)
                for j in range(depth)
            ]
            if i < self.num_layers - 1:
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
        x = self.norm(x)
        x = x.mean(dim=1)
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
REDUCED_SIZES = {"batch_size": 2, "img_size": 32, "num_classes": 100, "embed_dim": 24, "window_size": 2}  # CPU size


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
