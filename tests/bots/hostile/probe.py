# Tries to escape the sandbox in every way the tests check, reports what happened as JSON on stderr
# (one line starting with PROBE), then plays normally. The test fills in {PORT}, {SECRET}, and {HOST_PATHS}
# and {WRITE_PATHS} (JSON lists, hex-encoded).
import ctypes
import errno
import json
import os
import socket
import sys

report = {"uid": os.getuid(), "gid": os.getgid(), "euid": os.geteuid(), "groups": os.getgroups()}


def attempt(name, func):
    try:
        result = func()
        report[name] = "ok" if result is None else result
    except BaseException as exc:
        report[name] = f"{type(exc).__name__}: {exc}"


def inet_socket():
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()


def inet6_socket():
    socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close()


def netlink_socket():
    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()


def connect(port):
    with socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


def unix_socket():
    for end in socket.socketpair(socket.AF_UNIX):
        end.close()


def read(path):
    if os.path.isdir(path):
        return sorted(os.listdir(path))
    with open(path, "rb") as handle:
        return handle.read(200).decode("utf-8", "replace")


def write(path):
    with open(path, "w") as handle:
        handle.write("pwned")


libc = ctypes.CDLL(None, use_errno=True)


def syscall_errno(func, *args):
    result = func(*args)
    return "succeeded" if result == 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


attempt("inet", inet_socket)
attempt("inet6", inet6_socket)
attempt("netlink", netlink_socket)
attempt("connect_redis", lambda: connect(6379))
attempt("connect_listener", lambda: connect(int("{PORT}")))
attempt("unix", unix_socket)
for path in [
    "/etc/shadow",
    "/root",
    "/proc/1/environ",
    "/proc/self/environ",
    *json.loads(bytes.fromhex("{HOST_PATHS}")),
]:
    attempt("read:" + path, lambda path=path: read(path))
for path in [
    "/x",
    "/bot/x",
    "/etc/x",
    "/usr/x",
    "/usr/local/x",
    "/parlour/x",
    "/tmp/x",
    *json.loads(bytes.fromhex("{WRITE_PATHS}")),
]:
    attempt("write:" + path, lambda path=path: write(path))
attempt("env_secret", lambda: "{SECRET}" in json.dumps(dict(os.environ)))
attempt("ptrace_traceme", lambda: syscall_errno(libc.ptrace, 0, 0, 0, 0))
attempt("ptrace_attach_1", lambda: syscall_errno(libc.ptrace, 16, 1, 0, 0))
attempt("unshare_user", lambda: syscall_errno(libc.unshare, 0x10000000))
attempt("unshare_net", lambda: syscall_errno(libc.unshare, 0x40000000))
attempt("mount", lambda: syscall_errno(libc.mount, b"none", b"/tmp", b"tmpfs", 0, None))
attempt("setuid0", lambda: os.setuid(0))
attempt("processes", lambda: sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
attempt("numpy", lambda: __import__("numpy").__version__)


def fill_tmp():
    # files of 8 MB each (under RLIMIT_FSIZE) until the tmpfs is full
    written = 0
    try:
        for index in range(64):
            with open(f"/tmp/fill{index}", "wb") as handle:
                for _ in range(8):
                    handle.write(b"\0" * 1024 * 1024)
                    handle.flush()
                    written += 1024 * 1024
    except OSError as exc:
        return f"stopped at {written // (1024 * 1024)} MB: {exc.strerror}"
    return f"wrote {written // (1024 * 1024)} MB"


def big_file():
    with open("/tmp/big", "wb") as handle:
        handle.write(b"\0" * 64 * 1024 * 1024)


attempt("fill_tmp", fill_tmp)
for name in os.listdir("/tmp"):
    os.remove(os.path.join("/tmp", name))
attempt("big_file", big_file)
print("PROBE " + json.dumps(report), file=sys.stderr, flush=True)

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
