import math

import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Multi-head causal self-attention with ReLU in place of softmax: a fused QKV projection,
    scores q k^T / sqrt(head_dim), causal mask (masked scores become 0 after the ReLU),
    then the ReLU-weighted sum of values. Returns the re-assembled heads (no output projection).
    """

    def __init__(self, n_embd, n_head, max_seqlen):
        """
        :param n_embd: Embedding dimension
        :param n_head: Number of attention heads (divides n_embd)
        :param max_seqlen: Largest sequence length the causal mask supports
        """
        super().__init__()
        assert n_embd % n_head == 0
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
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
        att = torch.relu(att)
        y = att @ v
        return y.transpose(1, 2).contiguous().view(B, T, C)


batch_size = 16
max_seqlen = 1024
seq_len = 1024
n_embd = 768
n_head = 12
REDUCED_SIZES = {"batch_size": 2, "max_seqlen": 32, "seq_len": 32, "n_embd": 64, "n_head": 4}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, seq_len, n_embd)]


def get_init_inputs():
    return [n_embd, n_head, max_seqlen]
