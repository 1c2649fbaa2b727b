"""Starts a real Radicale CalDAV server for the CalDAV tests and the benchmark (test tooling, never run by calpipe).

Usage: radicale_server.py FOLDER USER PASSWORD
Writes a config and a plain htpasswd file into FOLDER, keeps the calendars in FOLDER/storage, picks a free
port on 127.0.0.1, starts `python -m radicale` and prints "PORT <n>" once it answers. Stops Radicale when its
standard input closes. Prints "MISSING <reason>" and exits 3 when Radicale is not installed.
"""
import os
import socket
import subprocess
import sys
import time

try:
    import radicale  # noqa: F401
except ImportError as error:
    print("MISSING radicale is not installed (%s)" % error, flush=True)
    sys.exit(3)

folder, user, password = sys.argv[1:4]
os.makedirs(folder, exist_ok=True)
users = os.path.join(folder, "users")
with open(users, "w") as f:
    f.write("%s:%s\n" % (user, password))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


for attempt in range(5):
    port = free_port()
    config = os.path.join(folder, "config")
    with open(config, "w") as f:
        f.write("""[server]
hosts = 127.0.0.1:%d
[auth]
type = htpasswd
htpasswd_filename = %s
htpasswd_encryption = plain
delay = 0
[rights]
type = owner_only
[storage]
filesystem_folder = %s
[web]
type = none
[logging]
level = warning
""" % (port, users, os.path.join(folder, "storage")))
    server = subprocess.Popen([sys.executable, "-m", "radicale", "--config", config],
                              stdout=subprocess.DEVNULL, stderr=open(os.path.join(folder, "radicale.log"), "w"))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and server.poll() is None and not answers(port):
        time.sleep(0.05)
    if server.poll() is None and answers(port):
        break
    server.kill()
    server.wait()
else:
    print("FAILED Radicale did not start; see %s" % os.path.join(folder, "radicale.log"), flush=True)
    sys.exit(1)

print("PORT %d" % port, flush=True)
try:
    sys.stdin.read()
finally:
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
