import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    A model that computes scaled dot-product attention, softmax(Q K^T / sqrt(head_dim)) V, without a
    mask and without dropout, in fp32.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
        """
        Args:
            Q (torch.Tensor): Queries, shape (batch_size, num_heads, sequence_length, head_dim).
            K (torch.Tensor): Keys, same shape as Q.
            V (torch.Tensor): Values, same shape as Q.

        Returns:
            torch.Tensor: Attention output, shape (batch_size, num_heads, sequence_length, head_dim).
        """
        return F.scaled_dot_product_attention(Q, K, V)


batch_size = 8
num_heads = 16
sequence_length = 2048
head_dim = 64
REDUCED_SIZES = {"batch_size": 2, "num_heads": 2, "sequence_length": 128}  # CPU-size variant
# No x100 input variant: at x100 the fp32 reference is itself up to 0.961 from a float64 run (tolerance
# scaled x100 here), more than half the fp32 tolerance, so a kernel that only rounds differently could fail
# against it (catalogue check, ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    Q = torch.randn(batch_size, num_heads, sequence_length, head_dim)
    K = torch.randn(batch_size, num_heads, sequence_length, head_dim)
    V = torch.randn(batch_size, num_heads, sequence_length, head_dim)
    return [Q, K, V]


def get_init_inputs():
    return []  # No special initialization inputs needed
