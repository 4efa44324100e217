import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Vision Transformer (ViT): split the image into patch_size x patch_size patches, embed each
    with a Linear layer, prepend a class token, add learned position embeddings, run `depth`
    nn.TransformerEncoderLayer blocks, and classify the class token with a Linear -> GELU ->
    Linear head. Dropout uses p=0.0 (deterministic).
    """

    def __init__(self, image_size, patch_size, num_classes, dim, depth, heads, mlp_dim, channels=3, dropout=0.0, emb_dropout=0.0):
        """
        :param image_size: Height and width of the (square) input image
        :param patch_size: Height and width of each patch (divides image_size)
        :param num_classes: The number of output classes
        :param dim: Token embedding dimension
        :param depth: Number of transformer encoder layers
        :param heads: Number of attention heads
        :param mlp_dim: Hidden size of each encoder layer's MLP and of the head
        :param channels: Number of input channels
        :param dropout: Dropout probability inside the encoder (0.0 here)
        :param emb_dropout: Dropout probability on the embeddings (0.0 here)
        """
        super(Model, self).__init__()
        assert image_size % patch_size == 0
        num_patches = (image_size // patch_size) ** 2
        patch_dim = channels * patch_size ** 2
        self.patch_size = patch_size
        self.pos_embedding = nn.Parameter(torch.randn(1, num_patches + 1, dim))
        self.patch_to_embedding = nn.Linear(patch_dim, dim)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.dropout = nn.Dropout(emb_dropout)
        self.transformer = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d_model=dim, nhead=heads, dim_feedforward=mlp_dim, dropout=dropout, batch_first=True),
            num_layers=depth,
            enable_nested_tensor=False,
        )
        self.mlp_head = nn.Sequential(
            nn.Linear(dim, mlp_dim),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(mlp_dim, num_classes),
        )

    def forward(self, img):
        """
        :param img: Input image tensor, shape (batch_size, channels, image_size, image_size)
        :return: Output tensor, shape (batch_size, num_classes)
        """
        p = self.patch_size
        b, c, h, w = img.shape
        x = img.unfold(2, p, p).unfold(3, p, p)  # (b, c, h/p, w/p, p, p)
        x = x.permute(0, 2, 3, 1, 4, 5).reshape(b, (h // p) * (w // p), c * p * p)
        x = self.patch_to_embedding(x)
        cls_tokens = self.cls_token.expand(b, -1, -1)
        x = torch.cat((cls_tokens, x), dim=1)
        x = self.dropout(x + self.pos_embedding)
        x = self.transformer(x)
        return self.mlp_head(x[:, 0])


batch_size = 32
image_size = 224
patch_size = 16
num_classes = 10
channels = 3
dim = 512
depth = 6
heads = 8
mlp_dim = 2048
REDUCED_SIZES = {"batch_size": 2, "image_size": 32, "dim": 64, "depth": 2, "heads": 4, "mlp_dim": 128}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, channels, image_size, image_size)]


def get_init_inputs():
    return [image_size, patch_size, num_classes, dim, depth, heads, mlp_dim, channels, 0.0, 0.0]
