import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    A model that computes the Cross Entropy loss for multi-class classification
    (log-softmax over classes, negative log-likelihood of the target class, mean over the batch).

    Parameters:
        None
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            predictions (torch.Tensor): Unnormalized logits, shape (batch_size, num_classes).
            targets (torch.Tensor): int64 class indices in [0, num_classes), shape (batch_size,).

        Returns:
            torch.Tensor: Scalar (0-dim) tensor, the mean cross entropy.
        """
        return F.cross_entropy(predictions, targets)


batch_size = 32768
num_classes = 16384
REDUCED_SIZES = {"batch_size": 256, "num_classes": 512}  # CPU-size variant for the catalogue check


def get_inputs():
    # A random logit scale per draw: the mean over a large batch is otherwise nearly the same number
    # for every seed, and a kernel returning that constant would pass.
    scale = torch.rand(()) * 3 + 0.5
    predictions = torch.randn(batch_size, num_classes) * scale
    targets = torch.randint(0, num_classes, (batch_size,))
    return [predictions, targets]


def get_init_inputs():
    return []  # No special initialization inputs needed
