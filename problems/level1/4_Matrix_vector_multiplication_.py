import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs matrix-vector multiplication (C = A * B).
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Performs matrix-vector multiplication.

        Args:
            A (torch.Tensor): Input matrix of shape (M, K).
            B (torch.Tensor): Input vector of shape (K, 1).

        Returns:
            torch.Tensor: Output vector of shape (M, 1).
        """
        return torch.matmul(A, B)


M = 4096
K = 262144
REDUCED_SIZES = {"M": 64, "K": 4096}  # CPU-size variant for the catalogue check


def get_inputs():
    # Non-negative entries: with a zero-mean distribution a 262144-term fp32 dot product often lands
    # near zero, where rounding differences between correct kernels exceed the 1e-4 tolerance.
    A = torch.rand(M, K)
    B = torch.rand(K, 1)
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
