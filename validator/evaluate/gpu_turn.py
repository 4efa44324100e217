"""The GPU's turn: one judge at a time does GPU work that measures, or that a measurement could feel, on a device.

The scheduler runs two judges per GPU (`run_context.JUDGES_PER_GPU`) so that what a judge does before its first such
work (its fork and imports, the problem's module, its runners' adoption, their CUDA start and the digest's Triton load)
overlaps the previous problem's timing. The turn keeps their GPU work apart, and their GPU memory: a judge takes it
before it computes the references and holds it until its process ends, after its runners' (`until_exit`): a process
holds its device memory until its exit is done, and at 423217d's sizes the next judge found 74 GiB of an 80 GB H100
still taken by the one it followed. It is an flock on a file the scheduler made for the device: the kernel releases it
when its holder's descriptor closes, however the holder ends (killed at its time limit included), so a turn is never
left taken. A judge measures under it for at most its time limit (`take` arms the alarm), so a judge waits for it at
most that long and the time its predecessor takes to write its result and exit.
"""

from __future__ import annotations

import fcntl
import math
import os
import signal

HIGH_FD = 1000
"""The lowest descriptor number the turn is held at."""


def take(path: str, limit_s: float) -> int:
    """Wait for the device's turn; the held descriptor. From here on the process ends by SIGALRM (whose default action
    ends it, with no handler to run) after `limit_s`, unless `until_exit` comes first."""
    opened = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    try:  # a high number, so that at the process's exit it closes after the GPU driver's descriptors (`until_exit`)
        fd = fcntl.fcntl(opened, fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
        os.close(opened)
    except OSError:  # a descriptor limit below it
        fd = opened
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})  # whatever the process it was forked from blocked
    signal.alarm(max(1, math.ceil(limit_s)))
    return fd


def until_exit(fd: int) -> None:
    """Measuring is over (the alarm disarmed), but the turn passes when this process ends: the kernel closes a
    process's descriptors in order of their numbers once its memory is unmapped, so the driver's, which free its device
    memory, before the turn's high one (`take`)."""
    del fd  # kept open on purpose: nothing closes it before the exit
    signal.alarm(0)


def timed_out(returncode: int | None) -> bool:
    """Did a judge end at its turn's time limit?"""
    return returncode == -signal.SIGALRM
