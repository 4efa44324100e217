import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    minGPT multi-head causal self-attention: a fused QKV projection, scaled dot-product scores
    with a causal mask, softmax, weighted sum of values, and an output projection.
    Dropout uses p=0.0, so the forward pass is deterministic.
    """

    def __init__(self, n_embd, n_head, attn_pdrop, resid_pdrop, max_seqlen):
        """
        :param n_embd: Embedding dimension
        :param n_head: Number of attention heads (divides n_embd)
        :param attn_pdrop: Dropout probability on attention weights (0.0 here)
        :param resid_pdrop: Dropout probability on the output (0.0 here)
        :param max_seqlen: Largest sequence length the causal mask supports
        """
        super().__init__()
        assert n_embd % n_head == 0
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(attn_pdrop)
        self.resid_dropout = nn.Dropout(resid_pdrop)
        mask = torch.tril(torch.ones(max_seqlen, max_seqlen)).view(1, 1, max_seqlen, max_seqlen)
        self.register_buffer("bias", mask)
        self.n_head = n_head
        self.n_embd = n_embd

    def forward(self, x):
        """
        :param x: Input tensor, shape (batch_size, seq_len, n_embd)
        :return: Output tensor, shape (batch_size, seq_len, n_embd)
        """
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        hs = C // self.n_head
        q = q.view(B, T, self.n_head, hs).transpose(1, 2)
        k = k.view(B, T, self.n_head, hs).transpose(1, 2)
        v = v.view(B, T, self.n_head, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


batch_size = 64
max_seqlen = 1024
seq_len = 512
n_embd = 768
n_head = 8
attn_pdrop = 0.0
resid_pdrop = 0.0
REDUCED_SIZES = {"batch_size": 2, "max_seqlen": 64, "seq_len": 32, "n_embd": 64, "n_head": 4}  # CPU size
# No x100 input variant: at x100 the fp32 reference is itself up to 0.225 from a float64 run (tolerance
# scaled x33.5 here), more than half the fp32 tolerance, so a kernel that only rounds differently could fail
# against it (catalogue check, ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, seq_len, n_embd)]


def get_init_inputs():
    return [n_embd, n_head, attn_pdrop, resid_pdrop, max_seqlen]
