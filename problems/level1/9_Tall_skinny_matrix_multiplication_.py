import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a single matrix multiplication (C = A * B) where A is a tall, skinny
    matrix and B is a short, wide one, so C is large and square.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Performs the matrix multiplication.

        Args:
            A (torch.Tensor): Input matrix of shape (M, N), with M >> N.
            B (torch.Tensor): Input matrix of shape (N, M).

        Returns:
            torch.Tensor: Output matrix of shape (M, M).
        """
        return torch.matmul(A, B)


M = 32768
N = 32
REDUCED_SIZES = {"M": 512, "N": 16}  # CPU-size variant for the catalogue check


def get_inputs():
    A = torch.randn(M, N)
    B = torch.randn(N, M)
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
