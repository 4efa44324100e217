import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Model that performs a GEMM (Linear), takes the maximum over the features, subtracts the mean of
    those maxima over the batch, and applies GELU.

    The mean is taken over the batch: after a keepdim max over features, a mean over dim 1 (as the
    original KernelBench problem has it) averages one value and the output would be GELU(0) = 0.
    """

    def __init__(self, in_features, out_features, max_dim):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.max_dim = max_dim

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_features).
        Returns:
            torch.Tensor: Output tensor of shape (batch_size, 1).
        """
        x = self.gemm(x)
        x = torch.max(x, dim=self.max_dim, keepdim=True).values
        x = x - x.mean(dim=0, keepdim=True)
        x = F.gelu(x)
        return x


batch_size = 1024
in_features = 8192
out_features = 8192
max_dim = 1
REDUCED_SIZES = {"batch_size": 32, "in_features": 256, "out_features": 128}  # CPU-size variant
# No x100 input variant: at x100 the fp32 reference is itself up to 0.00138 from a float64 run (tolerance
# scaled x13.3 here), more than half the fp32 tolerance, so a kernel that only rounds differently could fail
# against it (catalogue check, ill-conditioned filter, at full size on an H200, 2026-11-24).
INPUT_SCALES = (1.0, 0.01)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, max_dim]
