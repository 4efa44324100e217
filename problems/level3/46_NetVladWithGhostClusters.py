import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    NetVLAD pooling with ghost clusters: soft-assign each of N local features to clusters
    (x @ clusters -> BatchNorm1d -> softmax, then drop the ghost clusters' columns), aggregate residuals to learned
    cluster centres (assignment^T x - a_sum * clusters2), intra-normalise per cluster (L2 over
    features), flatten, and L2-normalise. BatchNorm runs in training mode (batch statistics).
    """

    def __init__(self, cluster_size, feature_size, ghost_clusters):
        """
        :param cluster_size: Number of (kept) clusters K
        :param feature_size: Dimension D of each local feature
        :param ghost_clusters: Number of extra clusters whose assignments are discarded
        """
        super(Model, self).__init__()
        self.feature_size = feature_size
        self.cluster_size = cluster_size
        self.ghost_clusters = ghost_clusters
        init_sc = 1 / math.sqrt(feature_size)
        clusters = cluster_size + ghost_clusters
        self.clusters = nn.Parameter(init_sc * torch.randn(feature_size, clusters))
        self.batch_norm = nn.BatchNorm1d(clusters)
        self.clusters2 = nn.Parameter(init_sc * torch.randn(1, feature_size, cluster_size))
        self.out_dim = cluster_size * feature_size

    def forward(self, x):
        """
        :param x: Local features, shape (batch_size, num_features, feature_size)
        :return: VLAD descriptor, shape (batch_size, feature_size * cluster_size)
        """
        max_sample = x.size(1)
        x = x.view(-1, self.feature_size)  # (B*N, D)
        assignment = torch.matmul(x, self.clusters)  # (B*N, K+G)
        assignment = self.batch_norm(assignment)
        assignment = F.softmax(assignment, dim=1)
        assignment = assignment[:, : self.cluster_size]  # drop ghost clusters (if any)
        assignment = assignment.view(-1, max_sample, self.cluster_size)  # (B, N, K)
        a_sum = torch.sum(assignment, dim=1, keepdim=True)  # (B, 1, K)
        a = a_sum * self.clusters2  # (B, D, K)
        assignment = assignment.transpose(1, 2)  # (B, K, N)
        x = x.view(-1, max_sample, self.feature_size)  # (B, N, D)
        vlad = torch.matmul(assignment, x).transpose(1, 2)  # (B, D, K)
        vlad = vlad - a
        vlad = F.normalize(vlad, dim=1)  # intra-normalisation
        vlad = vlad.reshape(-1, self.cluster_size * self.feature_size)
        return F.normalize(vlad, dim=1)


batch_size = 2048
num_features = 256
num_clusters = 32
feature_size = 512
ghost_clusters = 16
REDUCED_SIZES = {"batch_size": 4, "num_features": 16, "num_clusters": 8, "feature_size": 32, "ghost_clusters": 4}  # CPU size


def get_inputs():
    return [torch.randn(batch_size, num_features, feature_size)]


def get_init_inputs():
    return [num_clusters, feature_size, ghost_clusters]
