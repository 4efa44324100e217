import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Performs 3D tensor-matrix multiplication: C[n] = A[n] * B for every n.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Performs 3D tensor-matrix multiplication.

        Args:
            A (torch.Tensor): Input 3D tensor of shape (N, M, K).
            B (torch.Tensor): Input matrix of shape (K, L).

        Returns:
            torch.Tensor: Output tensor of shape (N, M, L).
        """
        return torch.matmul(A, B)


N = 16
M = 1024
K = 2048
L = 2048
REDUCED_SIZES = {"N": 4, "M": 32, "K": 128, "L": 64}  # CPU-size variant for the catalogue check


def get_inputs():
    A = torch.randn(N, M, K)
    B = torch.randn(K, L)
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
