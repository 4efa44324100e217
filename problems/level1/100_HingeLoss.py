import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A model that computes the Hinge loss for binary classification: mean of max(1 - y * f, 0)
    with labels y in {-1, +1}.

    Parameters:
        None
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            predictions (torch.Tensor): Classifier scores f, shape (batch_size, *input_shape).
            targets (torch.Tensor): Labels y as float -1.0 or +1.0, same shape.

        Returns:
            torch.Tensor: Scalar (0-dim) tensor, the mean hinge loss.
        """
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


batch_size = 16384
input_shape = (16384,)
REDUCED_SIZES = {"batch_size": 64, "input_shape": (1024,)}  # CPU-size variant for the catalogue check


def get_inputs():
    # A random score scale per draw: the mean over 2^28 elements is otherwise nearly the same number
    # for every seed, and a kernel returning that constant would pass.
    scale = torch.rand(()) * 2 + 0.25
    # Scores have a random mean and the labels a random share of positives per draw, so the loss
    # depends on both draws (at 2^28 elements plain draws would give the same mean every time).
    predictions = torch.randn(batch_size, *input_shape) * scale + torch.randn(())
    positive_share = torch.rand(()) * 0.8 + 0.1
    targets = (torch.rand(batch_size, *input_shape) < positive_share).float() * 2 - 1
    return [predictions, targets]


def get_init_inputs():
    return []  # No special initialization inputs needed
