"""A seccomp-BPF deny-list for bots, assembled here so that no binding to libseccomp is needed.

``bwrap --seccomp FD`` loads the raw ``struct sock_filter`` array this module builds. The filter:

- kills the process on any foreign syscall ABI (e.g. i386 ``int 0x80`` from a 64-bit process) and refuses the x32
  ABI, so a syscall number cannot be smuggled past the checks below;
- allows ``socket()`` only for ``AF_UNIX`` (``EAFNOSUPPORT`` otherwise: no TCP/UDP/raw/netlink/packet sockets);
- refuses ``clone()`` with any namespace flag and ``clone3()`` (``ENOSYS``, so libc falls back to ``clone``, whose
  flags a classic BPF filter can inspect, unlike ``clone3``'s struct);
- refuses with ``EPERM`` ptrace and cross-process memory access, mount and the new mount API, namespace calls, bpf,
  perf_event_open, keyrings, userfaultfd, kernel modules, kexec, clock setting, syslog, swap, reboot, quotas, acct and
  ``*_by_handle_at``; ``io_uring`` gets ``ENOSYS``.

Everything else is allowed: the namespaces, the read-only filesystem, the uid and the cgroups do the rest.
"""

from __future__ import annotations

import platform
import struct

# BPF opcodes (linux/filter.h, linux/bpf_common.h)
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06

_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000

_EPERM = 1
_ENOSYS = 38
_EAFNOSUPPORT = 97

_AF_UNIX = 1
# CLONE_NEWTIME | CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | NEWNET
_CLONE_NAMESPACE_FLAGS = (
    0x00000080 | 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | (0x40000000)
)

# offsets in struct seccomp_data
_OFF_NR = 0
_OFF_ARCH = 4
_OFF_ARG0_LOW = 16  # little-endian: the low 32 bits of args[0]

_X32_SYSCALL_BIT = 0x40000000

# Syscall numbers per architecture (asm/unistd_64.h; asm-generic/unistd.h for aarch64).
_ARCHES: dict[str, dict[str, int]] = {
    "x86_64": {
        "__audit_arch__": 0xC000003E,
        "socket": 41, "clone": 56, "clone3": 435,
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
        "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
        "unshare": 272, "setns": 308, "bpf": 321, "perf_event_open": 298,
        "keyctl": 250, "add_key": 248, "request_key": 249,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "userfaultfd": 323, "kexec_load": 246, "kexec_file_load": 320,
        "init_module": 175, "finit_module": 313, "delete_module": 176,
        "open_by_handle_at": 304, "name_to_handle_at": 303,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "move_mount": 429, "open_tree": 428,
        "mount_setattr": 442, "quotactl": 179, "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163,
        "settimeofday": 164, "clock_settime": 227, "adjtimex": 159, "syslog": 103, "lookup_dcookie": 212,
        "iopl": 172, "ioperm": 173, "uselib": 134, "vhangup": 153,
    },
    "aarch64": {
        "__audit_arch__": 0xC00000B7,
        "socket": 198, "clone": 220, "clone3": 435,
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
        "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51,
        "unshare": 97, "setns": 268, "bpf": 280, "perf_event_open": 241,
        "keyctl": 219, "add_key": 217, "request_key": 218,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "userfaultfd": 282, "kexec_load": 104, "kexec_file_load": 294,
        "init_module": 105, "finit_module": 273, "delete_module": 106,
        "open_by_handle_at": 265, "name_to_handle_at": 264,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "move_mount": 429, "open_tree": 428,
        "mount_setattr": 442, "quotactl": 60, "swapon": 224, "swapoff": 225, "reboot": 142, "acct": 89,
        "settimeofday": 170, "clock_settime": 112, "adjtimex": 171, "syslog": 116, "lookup_dcookie": 18,
    },
}  # fmt: skip

_ENOSYS_CALLS = ("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")
_SPECIAL = {"socket", "clone", "__audit_arch__", *_ENOSYS_CALLS}


class UnsupportedArchitecture(RuntimeError):
    pass


def denied_syscalls(arch: str | None = None) -> list[str]:
    """Names of the syscalls refused outright (``socket`` and ``clone`` are refused depending on arguments)."""
    table = _table(arch)
    return sorted(name for name in table if name not in _SPECIAL) + list(_ENOSYS_CALLS)


def _table(arch: str | None) -> dict[str, int]:
    arch = arch or platform.machine()
    if arch not in _ARCHES:
        raise UnsupportedArchitecture(f"no seccomp syscall table for {arch!r}; known: {', '.join(_ARCHES)}")
    return _ARCHES[arch]


def build_filter(arch: str | None = None) -> bytes:
    """The filter program as bytes: an array of ``struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}``."""
    table = _table(arch)
    arch_name = arch or platform.machine()
    # A program of (code, jump-if-true label, jump-if-false label, k); labels are resolved to relative offsets.
    program: list[tuple[int, str | None, str | None, int]] = []
    labels: dict[str, int] = {}

    def emit(code: int, k: int, jt: str | None = None, jf: str | None = None) -> None:
        program.append((code, jt, jf, k))

    def label(name: str) -> None:
        labels[name] = len(program)

    emit(_LD_W_ABS, _OFF_ARCH)
    emit(_JEQ_K, table["__audit_arch__"], None, "kill")
    emit(_LD_W_ABS, _OFF_NR)
    if arch_name == "x86_64":
        emit(_JGE_K, _X32_SYSCALL_BIT, "enosys", None)
    emit(_JEQ_K, table["socket"], "socket", None)
    emit(_JEQ_K, table["clone"], "clone", None)
    for name in _ENOSYS_CALLS:
        emit(_JEQ_K, table[name], "enosys", None)
    for name, number in table.items():
        if name not in _SPECIAL:
            emit(_JEQ_K, number, "eperm", None)
    emit(_RET_K, _RET_ALLOW)
    label("socket")
    emit(_LD_W_ABS, _OFF_ARG0_LOW)
    emit(_JEQ_K, _AF_UNIX, "allow", "eafnosupport")
    label("clone")
    emit(_LD_W_ABS, _OFF_ARG0_LOW)
    emit(_JSET_K, _CLONE_NAMESPACE_FLAGS, "eperm", "allow")
    label("allow")
    emit(_RET_K, _RET_ALLOW)
    label("eperm")
    emit(_RET_K, _RET_ERRNO | _EPERM)
    label("enosys")
    emit(_RET_K, _RET_ERRNO | _ENOSYS)
    label("eafnosupport")
    emit(_RET_K, _RET_ERRNO | _EAFNOSUPPORT)
    label("kill")
    emit(_RET_K, _RET_KILL_PROCESS)

    out = bytearray()
    for index, (code, jt, jf, k) in enumerate(program):
        offsets = []
        for target in (jt, jf):
            offset = 0 if target is None else labels[target] - index - 1
            if not 0 <= offset <= 255:
                raise AssertionError(f"seccomp jump to {target} out of range")
            offsets.append(offset)
        out += struct.pack("=HBBI", code, offsets[0], offsets[1], k)
    return bytes(out)
