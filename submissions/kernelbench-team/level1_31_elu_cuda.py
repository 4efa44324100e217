"""ELU as a CUDA kernel built with load_inline: x where x > 0, else alpha * expm1(x).

Each thread handles one float4 (16-byte loads and stores) in a grid-stride loop, and a scalar
kernel covers the tail (and misaligned pointers). expm1f keeps full relative accuracy for small
negative x, where exp(x) - 1 would cancel. Memory-bound (one read, one write per element) and
PyTorch's elementwise kernel already runs near peak bandwidth, so expect about 1.0x.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAException.h>

__device__ __forceinline__ float elu_one(float v, float alpha) {
    // NaN fails v > 0 and goes through expm1f, which returns NaN, as in PyTorch.
    return v > 0.f ? v : alpha * expm1f(v);
}

__global__ void elu_float4(const float4* __restrict__ x, float4* __restrict__ y, int64_t count, float alpha) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step) {
        float4 v = x[i];
        float4 r;
        r.x = elu_one(v.x, alpha);
        r.y = elu_one(v.y, alpha);
        r.z = elu_one(v.z, alpha);
        r.w = elu_one(v.w, alpha);
        y[i] = r;
    }
}

__global__ void elu_float1(const float* __restrict__ x, float* __restrict__ y, int64_t begin, int64_t end,
                           float alpha) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < end; i += step) {
        y[i] = elu_one(x[i], alpha);
    }
}

static int grid_for(int64_t work, int threads) {
    // Enough blocks to fill every SM many times over; the grid-stride loop covers the rest.
    const int64_t cap = 65536;
    return (int)std::min<int64_t>((work + threads - 1) / threads, cap);
}

torch::Tensor elu_forward(torch::Tensor x, double alpha) {
    TORCH_CHECK(x.is_cuda(), "elu_forward: x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "elu_forward: x must be float32");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    const int threads = 256;
    const float a = (float)alpha;
    auto stream = c10::cuda::getCurrentCUDAStream();
    const float* xp = xc.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    int64_t done = 0;
    const bool aligned = reinterpret_cast<uintptr_t>(xp) % 16 == 0 && reinterpret_cast<uintptr_t>(yp) % 16 == 0;
    if (aligned && n >= 4) {
        const int64_t count = n / 4;
        elu_float4<<<grid_for(count, threads), threads, 0, stream>>>(
            reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(yp), count, a);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
        done = count * 4;
    }
    if (done < n) {
        elu_float1<<<grid_for(n - done, threads), threads, 0, stream>>>(xp, yp, done, n, a);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return y;
}
"""

CPP_SOURCE = "torch::Tensor elu_forward(torch::Tensor x, double alpha);"

elu_ext = load_inline(
    name="kbteam_elu_float4",
    cpp_sources=CPP_SOURCE,
    cuda_sources=CUDA_SOURCE,
    functions=["elu_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return elu_ext.elu_forward(x, float(self.alpha))
