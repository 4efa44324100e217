"""Its first call returns a correct output, but the runner's channel is patched to write half of the reply's
bytes (through the shared ring: nothing of its first chunk's token) and then kill the process: the judge sees a
truncated message from a dead runner, runtime_error (runner-exited), and writes its result as usual."""

import os
import pkgutil
import signal

from torch import nn

channel = pkgutil.resolve_name("validator.evaluate.channel")
honest_send = channel.send


class HalfStream:
    """Passes the header and half of the tensor bytes through, then kills the process."""

    def __init__(self, stream, payload):
        self.stream, self.left, self.writes = stream, payload // 2, 0

    def write(self, data):
        self.writes += 1
        if self.writes > 1:  # the first write is the header
            data = bytes(data)[: self.left]
            self.stream.write(data)
            self.stream.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        self.stream.write(data)

    def flush(self):
        self.stream.flush()


def half_send(stream, header, tensors=(), **through):
    payload = sum(t.numel() * t.element_size() for t in tensors)
    honest_send(HalfStream(stream, payload) if payload else stream, header, tensors, **through)


channel.send = half_send
for name in ("__main__", "validator.evaluate.runner.serve"):
    module = pkgutil.resolve_name(name)
    if hasattr(module, "channel"):
        module.channel.send = half_send


class ModelNew(nn.Module):
    def forward(self, x):
        return x.relu()
