import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A model that computes the Mean Squared Error loss for regression tasks.

    Parameters:
        None
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            predictions (torch.Tensor): Predicted values, shape (batch_size, *input_shape).
            targets (torch.Tensor): Target values, same shape as predictions.

        Returns:
            torch.Tensor: Scalar (0-dim) tensor, the mean of the squared differences.
        """
        return torch.mean((predictions - targets) ** 2)


batch_size = 16384
input_shape = (16384,)
REDUCED_SIZES = {"batch_size": 64, "input_shape": (1024,)}  # CPU-size variant for the catalogue check


def get_inputs():
    # A random spread per draw: the mean over 2^28 elements is otherwise nearly the same number for
    # every seed, and a kernel returning that constant would pass.
    scale = torch.rand(()) * 2 + 0.5
    predictions = torch.randn(batch_size, *input_shape) * scale
    # The targets get their own spread and offset per draw, so the loss depends on which targets
    # were drawn (at 2^28 elements a plain randn draw would give the same mean every time).
    target_scale = torch.rand(()) * 2 + 0.5
    target_offset = torch.randn(()) * 0.5
    targets = torch.randn(batch_size, *input_shape) * target_scale + target_offset
    return [predictions, targets]


def get_init_inputs():
    return []  # No special initialization inputs needed
