import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that multiplies two lower triangular matrices; the product is lower triangular too.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Performs matrix multiplication of lower triangular matrices.

        Args:
            A (torch.Tensor): Lower triangular matrix of shape (N, N).
            B (torch.Tensor): Lower triangular matrix of shape (N, N).

        Returns:
            torch.Tensor: The lower triangular part of A * B, shape (N, N).
        """
        return torch.tril(torch.matmul(A, B))


N = 4096
REDUCED_SIZES = {"N": 128}  # CPU-size variant for the catalogue check


def get_inputs():
    A = torch.tril(torch.randn(N, N))
    B = torch.tril(torch.randn(N, N))
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
