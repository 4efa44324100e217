import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Mamba-2 structured state-space duality (SSD) scan in chunked form, pure PyTorch; returns the
    final state. The sequence is split into chunks of block_len; each chunk's end state is
    sum_l exp(A_cum[-1] - A_cum[l]) B_l X_l, and states are propagated across chunks with
    exp(segsum) of the chunk-total decays starting from a zero state. The state after the last
    chunk is returned. A holds per-step log-decays (negative) and B the input projection, both
    parameters shaped like the sequence, as in KernelBench. (The output path, C and Y, does not
    affect the final state and is left out.)
    """

    def __init__(self, batch_size, seq_length, n_heads, d_head, d_state, block_len=64):
        """
        :param batch_size: Batch size (the A, B parameters are per batch element)
        :param seq_length: Sequence length (divisible by block_len)
        :param n_heads: Number of heads
        :param d_head: Dimension of each head
        :param d_state: Dimension of the state
        :param block_len: Chunk length
        """
        super(Model, self).__init__()
        assert seq_length % block_len == 0, "Sequence length must be divisible by block length"
        self.block_len = block_len
        self.A = nn.Parameter(-0.05 * torch.rand(batch_size, seq_length, n_heads))
        self.B = nn.Parameter(torch.randn(batch_size, seq_length, n_heads, d_state))

    @staticmethod
    def segsum(x):
        """out[..., i, j] = sum(x[..., j+1 : i+1]) for j <= i, -inf above the diagonal."""
        T = x.size(-1)
        x_cumsum = torch.cumsum(x, dim=-1)
        x_segsum = x_cumsum[..., :, None] - x_cumsum[..., None, :]
        mask = torch.tril(torch.ones(T, T, device=x.device, dtype=torch.bool), diagonal=0)
        return x_segsum.masked_fill(~mask, -torch.inf)

    def forward(self, X):
        """
        :param X: Input tensor, shape (batch_size, seq_length, n_heads, d_head)
        :return: Final state, shape (batch_size, n_heads, d_head, d_state)
        """
        b, t, h, p = X.shape
        c, l = t // self.block_len, self.block_len
        X_blocks = X.reshape(b, c, l, h, p)
        B_blocks = self.B.reshape(b, c, l, h, -1)
        A_blocks = self.A.reshape(b, c, l, h).permute(0, 3, 1, 2)  # (b, h, c, l)
        A_cumsum = torch.cumsum(A_blocks, dim=-1)

        # State at the end of each chunk
        decay_states = torch.exp(A_cumsum[:, :, :, -1:] - A_cumsum)
        states = torch.einsum("bclhn,bhcl,bclhp->bchpn", B_blocks, decay_states, X_blocks)

        # Inter-chunk recurrence (zero initial state)
        initial_states = torch.zeros_like(states[:, :1])
        states = torch.cat([initial_states, states], dim=1)
        decay_chunk = torch.exp(self.segsum(F.pad(A_cumsum[:, :, :, -1], (1, 0))))
        new_states = torch.einsum("bhzc,bchpn->bzhpn", decay_chunk, states)
        return new_states[:, -1]


batch_size = 512
seq_length = 1024
n_heads = 8
d_head = 64
d_state = 16
block_len = 64
REDUCED_SIZES = {"batch_size": 2, "seq_length": 64, "n_heads": 2, "d_head": 8, "d_state": 4, "block_len": 16}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, seq_length, n_heads, d_head)]


def get_init_inputs():
    return [batch_size, seq_length, n_heads, d_head, d_state, block_len]
