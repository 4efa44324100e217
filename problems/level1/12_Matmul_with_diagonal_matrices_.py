import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that multiplies a diagonal matrix by another matrix: C = diag(A) * B.
    The reference builds the dense diagonal matrix; a kernel need not.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Performs the matrix multiplication.

        Args:
            A (torch.Tensor): A 1D tensor of shape (N,), the diagonal entries.
            B (torch.Tensor): A 2D tensor of shape (N, M).

        Returns:
            torch.Tensor: The result of diag(A) * B, of shape (N, M).
        """
        return torch.diag(A) @ B


N = 4096
M = 4096
REDUCED_SIZES = {"N": 128, "M": 96}  # CPU-size variant for the catalogue check


def get_inputs():
    A = torch.randn(N)
    B = torch.randn(N, M)
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
