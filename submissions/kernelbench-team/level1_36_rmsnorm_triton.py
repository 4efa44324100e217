"""RMSNorm over dim 1 of a (batch, features, *spatial) tensor, fused into one Triton pass.

The reduced axis (64 features at full size) is strided by the spatial size, while spatial positions are
contiguous. Each program owns one batch item and a block of consecutive spatial positions, loads the
whole [features, block] tile (coalesced along the spatial axis), reduces the sum of squares over the
feature axis, and writes x / sqrt(mean + eps) from the same registers. One read and one write of the
tensor, against about five memory passes for the eager x**2 / mean / + eps / sqrt / divide chain:
expect roughly 2.5-4x. Feature counts too large for one tile fall back to a loop that re-reads x.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

SPATIAL_BLOCK = 64
MAX_TILE_FEATURES = 256


@triton.jit
def rms_norm_dim1(x_ptr, y_ptr, n_feat, n_spatial, eps, FEAT_BLOCK: tl.constexpr,
                  SPATIAL_BLOCK: tl.constexpr, ONE_TILE: tl.constexpr):
    batch = tl.program_id(0).to(tl.int64)
    pos = tl.program_id(1) * SPATIAL_BLOCK + tl.arange(0, SPATIAL_BLOCK)
    pos_mask = pos < n_spatial
    base = batch * n_feat * n_spatial
    feats = tl.arange(0, FEAT_BLOCK)
    if ONE_TILE:
        mask = (feats[:, None] < n_feat) & pos_mask[None, :]
        offs = base + feats[:, None].to(tl.int64) * n_spatial + pos[None, :]
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        inv_rms = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_feat + eps)
        tl.store(y_ptr + offs, x * inv_rms[None, :], mask=mask)
    else:
        acc = tl.zeros([FEAT_BLOCK, SPATIAL_BLOCK], tl.float32)
        for f0 in range(0, n_feat, FEAT_BLOCK):
            f = f0 + feats
            mask = (f[:, None] < n_feat) & pos_mask[None, :]
            offs = base + f[:, None].to(tl.int64) * n_spatial + pos[None, :]
            x = tl.load(x_ptr + offs, mask=mask, other=0.0)
            acc += x * x
        inv_rms = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_feat + eps)
        for f0 in range(0, n_feat, FEAT_BLOCK):
            f = f0 + feats
            mask = (f[:, None] < n_feat) & pos_mask[None, :]
            offs = base + f[:, None].to(tl.int64) * n_spatial + pos[None, :]
            x = tl.load(x_ptr + offs, mask=mask, other=0.0)
            tl.store(y_ptr + offs, x * inv_rms[None, :], mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        batch, n_feat = x.shape[0], x.shape[1]
        n_spatial = x[0, 0].numel()
        y = torch.empty_like(x)
        if x.numel() == 0:
            return y
        one_tile = triton.next_power_of_2(n_feat) <= MAX_TILE_FEATURES
        feat_block = triton.next_power_of_2(n_feat) if one_tile else 32
        spatial_block = min(SPATIAL_BLOCK, triton.next_power_of_2(n_spatial))
        grid = (batch, triton.cdiv(n_spatial, spatial_block))
        rms_norm_dim1[grid](x, y, n_feat, n_spatial, self.eps, FEAT_BLOCK=feat_block,
                            SPATIAL_BLOCK=spatial_block, ONE_TILE=one_tile, num_warps=4)
        return y
