import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Performs batched matrix multiplication (C[b] = A[b] * B[b]).
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Performs batched matrix multiplication.

        Args:
            A (torch.Tensor): Input tensor of shape (batch_size, m, k).
            B (torch.Tensor): Input tensor of shape (batch_size, k, n).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, m, n).
        """
        return torch.bmm(A, B)


batch_size = 128
m = 512
k = 1024
n = 1024
REDUCED_SIZES = {"batch_size": 4, "m": 64, "k": 128, "n": 64}  # CPU-size variant for the catalogue check


def get_inputs():
    A = torch.randn(batch_size, m, k)
    B = torch.randn(batch_size, k, n)
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
