import torch
import torch.nn as nn


class Model(nn.Module):
    """
    VGG-16: 13 3x3 convs with ReLU in five blocks (64, 128, 256, 512, 512 channels), each
    block ending in a 2x2 max-pool, then an adaptive average pool to 7x7 and three fully
    connected layers. Dropout uses p=0.0 (deterministic). Weights use Kaiming normal init with
    zero biases: with PyTorch's default init the signal shrinks ~3x per layer and the output
    would be nearly independent of the input.
    """

    def __init__(self, num_classes, classifier_width):
        """
        :param num_classes: The number of output classes
        :param classifier_width: Width of the two hidden fully connected layers (4096 in VGG)
        """
        super(Model, self).__init__()
        layers = []
        in_channels = 3
        for out_channels, convs in [(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)]:
            for _ in range(convs):
                layers.append(nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1))
                layers.append(nn.ReLU(inplace=True))
                in_channels = out_channels
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        self.features = nn.Sequential(*layers)
        # Identity at 224x224 (the feature map is already 7x7); lets smaller images run.
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, classifier_width),
            nn.ReLU(inplace=True),
            nn.Dropout(p=0.0),
            nn.Linear(classifier_width, classifier_width),
            nn.ReLU(inplace=True),
            nn.Dropout(p=0.0),
            nn.Linear(classifier_width, num_classes),
        )
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.zeros_(m.bias)

    def forward(self, x):
        """
        :param x: The input tensor, shape (batch_size, 3, image_size, image_size)
        :return: The output tensor, shape (batch_size, num_classes)
        """
        x = self.features(x)
        x = torch.flatten(self.avgpool(x), 1)
        return self.classifier(x)


batch_size = 10
image_size = 224
num_classes = 1000
classifier_width = 4096
REDUCED_SIZES = {"batch_size": 1, "image_size": 32, "num_classes": 100, "classifier_width": 256}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [num_classes, classifier_width]
