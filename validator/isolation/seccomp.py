"""A seccomp-BPF filter for the runner, compiled here to the kernel's `struct sock_filter` array and handed to
bubblewrap with `--seccomp FD` (no binding library needed).

Denied with EPERM: tracing and reading other processes (ptrace, process_vm_readv/writev, kcmp, pidfd_getfd),
mounts and namespaces (mount, umount2, pivot_root, setns, unshare, the new mount API, clone with a
namespace flag), kernel objects a kernel has no business with (bpf, perf_event_open, keyctl, add_key,
request_key, userfaultfd, io_uring, module and kexec loading, open_by_handle_at, swap, reboot, clocks).
clone3 answers ENOSYS, because its flags sit in memory a filter cannot read: libc then falls back to clone,
whose flags it can. Signals need no rule: the runner's pid namespace holds no process outside its job.
x86_64 only (the GPU and CI machines); `program()` returns None elsewhere and isolation says so.
"""

from __future__ import annotations

import errno
import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
X32_BIT = 0x40000000
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
LD_W_ABS, JEQ_K, JGE_K, JSET_K, RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x80
"""CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME."""

DENIED_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "pidfd_getfd": 438,
    "mount": 165, "umount2": 166, "pivot_root": 155, "setns": 308, "unshare": 272, "open_tree": 428,
    "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    "bpf": 321, "perf_event_open": 298, "keyctl": 250, "add_key": 248, "request_key": 249, "userfaultfd": 323,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "init_module": 175,
    "finit_module": 313, "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "swapon": 167, "swapoff": 168, "reboot": 169,
    "settimeofday": 164, "clock_settime": 227, "adjtimex": 159, "clock_adjtime": 305, "acct": 163,
    "syslog": 103, "iopl": 172, "ioperm": 173, "quotactl": 179,
}  # fmt: skip
CLONE_X86_64, CLONE3_X86_64 = 56, 435


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> tuple[int, int, int, int]:
    return code, jt, jf, k


def assemble() -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions; jumps are relative to the next instruction."""
    denied = sorted(DENIED_X86_64.values())
    head = [
        _op(LD_W_ABS, 4),  # seccomp_data.arch
        _op(JEQ_K, AUDIT_ARCH_X86_64, jt=1),
        _op(RET_K, RET_KILL_PROCESS),
        _op(LD_W_ABS, 0),  # seccomp_data.nr
    ]
    body_len = 1 + len(denied) + 2  # x32 check, one compare per denied call, clone, clone3
    # layout after the body: [allow] [enosys] [clone: ld arg0, jset, allow] [deny]
    allow, enosys, clone, deny = body_len, body_len + 1, body_len + 2, body_len + 5
    body = []

    def to(target: int) -> int:
        return target - len(body) - 1

    body.append(_op(JGE_K, X32_BIT, jt=to(deny)))
    for number in denied:
        body.append(_op(JEQ_K, number, jt=to(deny)))
    body.append(_op(JEQ_K, CLONE_X86_64, jt=to(clone)))
    body.append(_op(JEQ_K, CLONE3_X86_64, jt=to(enosys)))
    assert len(body) == allow
    tail = [
        _op(RET_K, RET_ALLOW),
        _op(RET_K, RET_ERRNO | errno.ENOSYS),
        _op(LD_W_ABS, 16),  # low half of seccomp_data.args[0]: clone's flags
        _op(JSET_K, NAMESPACE_FLAGS, jt=1),
        _op(RET_K, RET_ALLOW),
        _op(RET_K, RET_ERRNO | errno.EPERM),
    ]
    return head + body + tail


def program() -> bytes | None:
    """The filter as bytes for `bwrap --seccomp FD`, or None on a machine it is not written for."""
    if platform.machine() != "x86_64":
        return None
    return b"".join(struct.pack("<HBBI", code, jt, jf, k) for code, jt, jf, k in assemble())
