import torch
import torch.nn as nn


class Model(nn.Module):
    """
    AlexNet on 224x224 images: five conv layers (ReLU, three max-pools), then three fully
    connected layers. Dropout uses p=0.0, so the forward pass is deterministic. Weights use
    Kaiming normal init with zero biases.
    """

    def __init__(self, num_classes, classifier_width):
        """
        :param num_classes: The number of output classes
        :param classifier_width: Width of the two hidden fully connected layers (4096 in AlexNet)
        """
        super(Model, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 96, kernel_size=11, stride=4, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(96, 256, kernel_size=5, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(256, 384, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(384, 384, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Dropout(p=0.0),
            nn.Linear(256 * 6 * 6, classifier_width),
            nn.ReLU(inplace=True),
            nn.Dropout(p=0.0),
            nn.Linear(classifier_width, classifier_width),
            nn.ReLU(inplace=True),
            nn.Linear(classifier_width, num_classes),
        )
        # Kaiming init with zero biases: with PyTorch's default init the signal shrinks ~3x per
        # layer and the output would be nearly independent of the input.
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.zeros_(m.bias)

    def forward(self, x):
        """
        :param x: The input tensor, shape (batch_size, 3, 224, 224)
        :return: The output tensor, shape (batch_size, num_classes)
        """
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


batch_size = 64
num_classes = 1000
classifier_width = 4096
# The 6x6 feature map feeding the classifier fixes the image at 224x224, so the CPU size
# shrinks batch and classifier width only.
REDUCED_SIZES = {"batch_size": 1, "num_classes": 100, "classifier_width": 256}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, 3, 224, 224)]


def get_init_inputs():
    return [num_classes, classifier_width]
