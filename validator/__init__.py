"""KernelBench leaderboard validator: schema, policy, build, GPU evaluation, results and scoring."""

__version__ = "0.1.0"
