#!/usr/bin/env python3
"""Runs a command with a pseudo-terminal of COLS columns (and 50 rows) as its standard input and output, as a
person's terminal would be, and writes everything it printed to our standard output (the terminal's
CR LF line ends turned back into LF). Its standard error is passed through. Exits with the command's status.

Usage: python3 agenda_pty.py COLS COMMAND [ARG...]
"""
import fcntl
import os
import struct
import subprocess
import sys
import termios


def main():
    cols = int(sys.argv[1])
    command = sys.argv[2:]
    master, slave = os.openpty()
    # The size is set before the command starts, so its first TIOCGWINSZ already sees it.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=sys.stderr, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the command closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    status = process.wait()
    os.close(master)
    sys.stdout.buffer.write(b"".join(chunks).replace(b"\r\n", b"\n"))
    sys.exit(status)


if __name__ == "__main__":
    main()
