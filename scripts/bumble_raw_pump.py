#!/usr/bin/env python3
"""What the virtual link of `bumble_link.py` costs with no host stack: raw HCI over the two
controllers' TCP ports, for `bleu-bench hci`'s ceilings (issue 18).

    bumble_raw_pump.py [--port-a A --port-b B] [--count 6000] [--pings 200]

Without ports it starts its own `bumble_link.py` (with this Python) and stops it at the end.

Opens an LE connection with bare HCI commands, then (1) blasts `count` L2CAP frames of
4 + 203 bytes (a 200-byte notification's ATT PDU) from A to B, cut into 27-byte ACL packets
under the controller's 64-buffer flow control (all the free buffers' worth in one write), and (2) bounces a 27-byte ACL packet A → B → A
`pings` times. The two ends are blocking sockets in this one process, with no host stack, so
the figures are the link's own: prints one JSON line with notify_equivalent_kbps (200 bytes of
goodput per frame) and ping_rtt_ms_p50.
"""
import argparse
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

from bumble import hci


class End:
    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b''

    def read_exact(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def packet(self):
        kind = self.read_exact(1)[0]
        if kind == 0x04:
            header = self.read_exact(2)
            return kind, header + self.read_exact(header[1])
        if kind == 0x02:
            header = self.read_exact(4)
            return kind, header + self.read_exact(struct.unpack_from('<H', header, 2)[0])
        raise ValueError(f'packet type {kind}')

    def command(self, command):
        self.sock.sendall(bytes(command))
        while True:
            kind, body = self.packet()
            if kind == 0x04 and body[0] in (0x0E, 0x0F):
                return body

    def wait_connection(self):
        while True:
            kind, body = self.packet()
            if kind == 0x04 and body[0] == 0x3E and body[2] in (0x01, 0x0A):
                return struct.unpack_from('<H', body, 4)[0] & 0x0FFF


def acl(handle, first, data):
    return struct.pack('<BHH', 0x02, handle | ((0 if first else 1) << 12), len(data)) + data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--port-a', type=int)
    parser.add_argument('--port-b', type=int)
    parser.add_argument('--count', type=int, default=6000)
    parser.add_argument('--pings', type=int, default=200)
    args = parser.parse_args()
    link = None
    if args.port_a is None or args.port_b is None:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bumble_link.py')
        link = subprocess.Popen([sys.executable, script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = json.loads(link.stdout.readline())
        args.port_a, args.port_b = ready['port_a'], ready['port_b']
    try:
        measure(args)
    finally:
        if link:
            link.stdin.close()
            link.wait(10)


def measure(args):
    a, b = End(args.port_a), End(args.port_b)
    address_a, address_b = hci.Address('C0:00:00:00:00:A2'), hci.Address('C0:00:00:00:00:B2')
    for end, address in ((a, address_a), (b, address_b)):
        end.command(hci.HCI_Reset_Command())
        end.command(hci.HCI_LE_Set_Random_Address_Command(random_address=address))
    b.command(hci.HCI_LE_Set_Advertising_Parameters_Command(
        advertising_interval_min=32, advertising_interval_max=32, advertising_type=0, own_address_type=1,
        peer_address_type=0, peer_address=hci.Address('00:00:00:00:00:00'), advertising_channel_map=7,
        advertising_filter_policy=0))
    b.command(hci.HCI_LE_Set_Advertising_Enable_Command(advertising_enable=1))
    a.command(hci.HCI_LE_Create_Connection_Command(
        le_scan_interval=16, le_scan_window=16, initiator_filter_policy=0, peer_address_type=1,
        peer_address=address_b, own_address_type=1, connection_interval_min=24, connection_interval_max=24,
        max_latency=0, supervision_timeout=400, min_ce_length=0, max_ce_length=0))
    handle_a, handle_b = a.wait_connection(), b.wait_connection()

    # (1) Throughput: frames of 207 bytes, cut into 27-byte packets, under 64 controller buffers.
    frame = struct.pack('<HH', 203, 0x0004) + bytes([0x1B, 0x03, 0x00]) + bytes(range(200))
    fragments = [acl(handle_a, i == 0, frame[i:i + 27]) for i in range(0, len(frame), 27)]
    done = threading.Event()

    def drain():
        received = 0
        while received < args.count:
            kind, _ = b.packet()
            if kind == 0x02:
                received += 1  # the controller delivers each frame whole
        done.set()

    reader = threading.Thread(target=drain)
    reader.start()
    # Every packet the credits allow goes in one write, as a host that batches would send them.
    packets = fragments * args.count
    credits, sent = 64, 0
    start = time.perf_counter()
    while sent < len(packets):
        while credits == 0:
            kind, body = a.packet()
            if kind == 0x04 and body[0] == 0x13:
                credits += sum(struct.unpack_from('<H', body, 3 + 2 * body[2] + 2 * i)[0] for i in range(body[2]))
        batch = packets[sent:sent + credits]
        a.sock.sendall(b''.join(batch))
        sent += len(batch)
        credits -= len(batch)
    done.wait()
    elapsed = time.perf_counter() - start
    reader.join()
    a.sock.settimeout(0.5)  # the completions still owed
    try:
        while credits < 64:
            kind, body = a.packet()
            if kind == 0x04 and body[0] == 0x13:
                credits += struct.unpack_from('<H', body, 5)[0]
    except (socket.timeout, TimeoutError):
        pass
    a.sock.settimeout(None)

    # (2) Round trip of one 27-byte packet each way.
    ping_a = acl(handle_a, True, struct.pack('<HH', 23, 0x0004) + bytes(23))
    ping_b = acl(handle_b, True, struct.pack('<HH', 23, 0x0004) + bytes(23))
    rtts = []
    for _ in range(args.pings):
        begin = time.perf_counter()
        a.sock.sendall(ping_a)
        while b.packet()[0] != 0x02:
            pass
        b.sock.sendall(ping_b)
        while a.packet()[0] != 0x02:
            pass
        rtts.append((time.perf_counter() - begin) * 1000)
    print(json.dumps({'notify_equivalent_kbps': args.count * 200 * 8 / elapsed / 1000,
                      'ping_rtt_ms_p50': statistics.median(rtts), 'frames_per_s': args.count / elapsed}), flush=True)


if __name__ == '__main__':
    main()
