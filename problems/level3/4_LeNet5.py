import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    LeNet-5: two conv(5x5) -> ReLU -> max-pool(2) stages on a 1x32x32 image, then three
    fully connected layers (ReLU between them).
    """

    def __init__(self, num_classes):
        """
        :param num_classes: The number of output classes
        """
        super(Model, self).__init__()
        self.conv1 = nn.Conv2d(in_channels=1, out_channels=6, kernel_size=5, stride=1)
        self.conv2 = nn.Conv2d(in_channels=6, out_channels=16, kernel_size=5, stride=1)
        self.fc1 = nn.Linear(in_features=16 * 5 * 5, out_features=120)
        self.fc2 = nn.Linear(in_features=120, out_features=84)
        self.fc3 = nn.Linear(in_features=84, out_features=num_classes)

    def forward(self, x):
        """
        :param x: The input tensor, shape (batch_size, 1, 32, 32)
        :return: The output tensor, shape (batch_size, num_classes)
        """
        x = F.max_pool2d(F.relu(self.conv1(x)), kernel_size=2, stride=2)
        x = F.max_pool2d(F.relu(self.conv2(x)), kernel_size=2, stride=2)
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


# SIZE NOTE: LeNet-5 needs ~1 MFLOP per image; a very large batch is what makes it measurable.
batch_size = 32768
num_classes = 10
REDUCED_SIZES = {"batch_size": 16}  # CPU size (the 32x32 image is fixed by the architecture)


def get_inputs():
    return [torch.randn(batch_size, 1, 32, 32)]


def get_init_inputs():
    return [num_classes]
