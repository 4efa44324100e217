import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a single matrix multiplication (C = A * B) with a large K dimension.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Performs matrix multiplication of A and B.

        Args:
            A (torch.Tensor): Input tensor of shape (M, K).
            B (torch.Tensor): Input tensor of shape (K, N).

        Returns:
            torch.Tensor: Output tensor of shape (M, N).
        """
        return torch.matmul(A, B)


M = 256
N = 256
K = 1048576
REDUCED_SIZES = {"M": 16, "N": 16, "K": 65536}  # CPU-size variant for the catalogue check


def get_inputs():
    # Non-negative entries: with a zero-mean distribution a 2^20-term fp32 dot product often lands
    # near zero, where rounding differences between correct kernels exceed the 1e-4 tolerance.
    A = torch.rand(M, K)
    B = torch.rand(K, N)
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
