#!/usr/bin/env python3
"""Google's RootCanal virtual controller, for BleuHCI's pairing tests that need keys checked.

Bumble's virtual controllers report every encryption as a success without asking the
peripheral's host for its key; RootCanal runs the Link Layer's encryption start: LE Enable
Encryption makes the peripheral's controller send its host LE Long Term Key Request, and the
link is encrypted only when the peripheral's key matches the central's.

    rootcanal_link.py

Starts the RootCanal binary the `rootcanal` package ships (1.10.0: later builds need a newer
glibc than Debian 12's) on free loopback ports, waits until its HCI port accepts connections,
and prints one JSON line: {"hci_port": PORT}. Each host that connects to that port gets a
controller of its own on the same LE air. Runs until its standard input closes or it is sent
SIGTERM, then stops RootCanal; RootCanal also dies with this script however it ends (the kernel
sends it SIGTERM when its parent exits), so no test leaves a controller running.
"""
import ctypes
import json
import signal
import socket
import subprocess
import sys
import time

import rootcanal.binaries


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


PR_SET_PDEATHSIG = 1


def die_with_parent():
    # Runs in the child between fork and exec: Linux sends it SIGTERM when this script exits.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def main():
    # A test stops the script with SIGTERM right after closing its input: end through `finally`.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    hci, test, link, ble = (free_port() for _ in range(4))
    binary = rootcanal.binaries.get_package_binary_resource_path('rootcanal')
    process = subprocess.Popen([binary, f'-hci_port={hci}', f'-test_port={test}', f'-link_port={link}',
                                f'-link_ble_port={ble}'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=die_with_parent)
    try:
        for _ in range(200):
            if process.poll() is not None:
                print(json.dumps({'error': f'rootcanal exited with status {process.returncode}'}), flush=True)
                return
            try:
                socket.create_connection(('127.0.0.1', hci), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        print(json.dumps({'hci_port': hci}), flush=True)
        sys.stdin.read()
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()


if __name__ == '__main__':
    main()
