#!/usr/bin/env python3
"""Two Bumble virtual controllers on one link, for BleuHCI's interop tests.

Does what `python -m bumble.apps.controllers tcp-server:127.0.0.1:A tcp-server:127.0.0.1:B`
does, but lets the OS pick the two free loopback ports (no race between choosing and binding)
and says when it is ready. Optionally a Bumble host ("the peer") takes controller B in the same
process.

    bumble_link.py [--peer advertise] [--peer-address D0:00:00:00:00:02] [--name NAME]

Prints one JSON line when ready: {"port_a": A, "port_b": B, "peer": ADDRESS-or-null}.
Runs until its standard input closes, then exits (so a test that dies takes it along).
"""
import argparse
import asyncio
import json
import socket
import sys

from bumble.controller import Controller
from bumble.core import AdvertisingData
from bumble.device import Device
from bumble.hci import Address
from bumble.link import LocalLink
from bumble.transport import open_transport
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket


def loopback_socket():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', 0))
    return sock


async def wait_for_stdin_eof():
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--peer', choices=['none', 'advertise'], default='none')
    parser.add_argument('--peer-address', default='D0:00:00:00:00:02')
    parser.add_argument('--name', default='bleu-peer')
    args = parser.parse_args()

    link = LocalLink()
    sockets = [loopback_socket(), loopback_socket()]
    ports = [s.getsockname()[1] for s in sockets]
    transports = []
    for index, sock in enumerate(sockets):
        transport = await open_tcp_server_transport_with_socket(sock)
        transports.append(transport)
        Controller(f'C{index}', host_source=transport.source, host_sink=transport.sink, link=link)

    peer = None
    if args.peer != 'none':
        hci = await open_transport(f'tcp-client:127.0.0.1:{ports[1]}')
        transports.append(hci)
        peer = Device.with_hci(args.name, Address(args.peer_address), hci.source, hci.sink)
        await peer.power_on()
        data = bytes(AdvertisingData([
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LOCAL_NAME, args.name.encode()),
        ]))
        await peer.start_advertising(advertising_data=data, own_address_type=1)

    print(json.dumps({'port_a': ports[0], 'port_b': ports[1],
                      'peer': str(peer.random_address) if peer else None}), flush=True)
    await wait_for_stdin_eof()
    for transport in transports:
        await transport.close()


if __name__ == '__main__':
    asyncio.run(main())
