#!/usr/bin/env python3
"""Two Bumble virtual controllers on one link, for BleuHCI's interop tests.

Does what `python -m bumble.apps.controllers tcp-server:127.0.0.1:A tcp-server:127.0.0.1:B`
does, but lets the OS pick the two free loopback ports (no race between choosing and binding)
and says when it is ready. Optionally a Bumble host ("the peer") takes controller B in the same
process.

    bumble_link.py [--peer advertise|central|central-idle] [--peer-address D0:00:00:00:00:02] [--name NAME]
                   [--target ADDRESS] [--write-uuid UUID --write-value HEX] [--l2cap-psm PSM]
                   [--more-controllers N] [--pairing justworks|legacy|passkey:NNNNNN] [--privacy]

Prints one JSON line when ready: {"port_a": A, "port_b": B, "more_ports": [...], "peer": ADDRESS-or-null,
"psm": PSM-or-null}. `--more-controllers N` puts N more controllers on the same link (several
centrals against one peripheral).
With `--peer advertise` the peer advertises its name, appearance 0x03C1 (a keyboard) and
manufacturer data of company 0x0059 (Nordic Semiconductor) with bytes 01 02, also serves GATT and
an L2CAP channel (scripts/bumble_peers.py), and prints a JSON line for each write it receives.
With `--peer central-idle` the peer only takes commands (the pairing matrix's `pair_with`).
With `--peer central` the peer then connects to --target (a random address), exchanges MTU,
discovers everything, reads every readable characteristic, writes --write-value to
--write-uuid with response, subscribes to every notifying one, prints one more JSON line with
what it found (or {"error": ...}), and disconnects.
With `--pairing` the peer pairs (Secure Connections Just Works, legacy Just Works, or Secure
Connections passkey entry displaying NNNNNN, MITM required) and bonds; the advertising peer
also serves a characteristic 6E400005-… that requires encryption (value "secret"), and the
central peer pairs right after connecting and reports {"encrypted": true} in what it found.
With `--privacy` the advertising peer advertises from a resolvable private address of its IRK
(20 21 … 2F); --peer-address stays its identity address, distributed with the IRK when it
pairs. "peer" in the first line is the private address.
Runs until its standard input closes, then exits (so a test that dies takes it along).

Standard input also takes commands, one JSON object a line (the pairing matrix's as well):
  {"pairing": {"io": 0-4, "sc": B, "mitm": B, "bonding": B, "accept": B, "oob": {...}}}
                   how the peer pairs from now on (bumble_peers.MatrixDelegate: it prints
                   {"display": N} and {"compare": N}, and confirms every comparison); "oob"
                   gives it out-of-band data (bumble_peers.configure_matrix_pairing)
  {"passkey": N}   the passkey the peer's user types when pairing asks for one
  {"pair_with": ADDRESS}
                   the peer connects to ADDRESS, pairs, prints {"paired": true} or {"paired":
                   false, "error": …}, and disconnects on {"release": true}
  {"rotate": true} the advertising peer takes a new resolvable private address: it stops
                   advertising, sets the address, advertises again, and prints {"rotated": ADDRESS}.
                   (Bumble's own Device.update_rpa skips while advertising, and sends the
                   controller the old address.)
  {"lose": true}   every LE connection on the link is lost: each controller tells its host
                   Disconnection Complete with reason 0x08 (Connection Timeout, what a
                   supervision timeout reports) and forgets the connection, so the hosts can
                   connect again. Neither side sends LL_TERMINATE_IND, as when the radio link
                   really drops. Nothing is printed.

Bumble 0.0.236's virtual link has no scan requests: its controller reports every connectable
advertisement twice, the second time as a "scan response" that repeats the advertising data,
and without the legacy and scannable bits. `model_scan_responses` makes those reports what a
real controller sends for a legacy ADV_IND under active scanning (from a legacy advertiser or
an extended advertising set): ADV_IND (0x13), then SCAN_RSP (0x1B) carrying the advertiser's
scan response data.
"""
import argparse
import asyncio
import json
import logging
import socket
import sys

from bumble import controller as bumble_controller
from bumble import hci, ll
from bumble.controller import Connection, Controller
from bumble.core import AdvertisingData
from bumble.device import Device
from bumble.hci import Address
from bumble.link import LocalLink
from bumble.transport import open_transport
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket

from bumble_peers import configure_matrix_pairing, configure_pairing, pair_with, run_central, serve_gatt


def loopback_socket():
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and
    # accepted sockets inherit the listener's. Without it Nagle's algorithm meets delayed ACKs
    # and every request/response over the controller waits about 40 ms.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', 0))
    return sock


CONNECTION_TIMEOUT = 0x08  # HCI error code: what both ends of a link lost to supervision timeout see


def lose_every_connection(link):
    # Each controller reports its side of each connection as timed out; on_le_disconnected sends
    # Disconnection Complete to that controller's host and removes the connection from it.
    for controller in list(link.controllers):
        for connection in list(controller.le_connections.values()):
            controller.on_le_disconnected(connection, CONNECTION_TIMEOUT)


async def serve_stdin(link, peer):
    """Runs the commands read from standard input until it closes."""
    loop = asyncio.get_running_loop()
    passkeys = asyncio.Queue()
    release = asyncio.Event()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        try:
            command = json.loads(line)
        except ValueError:
            print(f'bumble_link.py: not a JSON command: {line!r}', file=sys.stderr, flush=True)
            continue
        if not isinstance(command, dict):
            print(f'bumble_link.py: unknown command: {line!r}', file=sys.stderr, flush=True)
        elif command.get('lose'):
            lose_every_connection(link)
        elif peer and command.get('rotate'):
            loop.create_task(report_failures(rotate_private_address(peer)))
        elif peer and 'pairing' in command:
            configure_matrix_pairing(peer, command['pairing'], passkeys)
        elif 'passkey' in command:
            passkeys.put_nowait(command['passkey'])
        elif peer and 'pair_with' in command:
            release.clear()
            loop.create_task(report_failures(pair_with(peer, command['pair_with'], release)))
        elif command.get('release'):
            release.set()
        else:
            print(f'bumble_link.py: unknown command: {line!r}', file=sys.stderr, flush=True)


ADVERTISING = {}  # how the advertising peer advertises, so a rotation can start it again


async def take_private_address(device):
    address = Address.generate_private_address(device.irk)
    await device.send_command(hci.HCI_LE_Set_Random_Address_Command(random_address=address), check_result=True)
    device.random_address = address
    return address


async def rotate_private_address(device):
    await device.stop_advertising()
    address = await take_private_address(device)
    await device.start_advertising(**ADVERTISING)
    print(json.dumps({'rotated': str(address)}), flush=True)


async def report_failures(work):
    try:
        await work
    except Exception as error:  # noqa: BLE001 - reported to the test
        print(json.dumps({'paired': False, 'error': repr(error)}), flush=True)


def model_scan_responses(link):
    original = Controller.on_advertising_pdu
    ext = hci.HCI_LE_Extended_Advertising_Report_Event
    legacy = hci.HCI_LE_Advertising_Report_Event

    def scan_response_of(pdu):
        advertiser = link.find_le_controller(pdu.advertiser_address)
        if advertiser is None:
            return None
        if isinstance(pdu, ll.AdvInd):
            return bytes(advertiser.le_legacy_advertiser.scan_response_data)
        for advertising_set in advertiser.advertising_sets.values():
            if advertising_set.address == pdu.advertiser_address:
                return bytes(advertising_set.scan_response_data)
        return None

    def on_advertising_pdu(self, pdu):
        response = scan_response_of(pdu)
        if response is None:
            return original(self, pdu)
        send = self.send_hci_packet

        def send_as_a_real_controller(packet):
            if isinstance(packet, ext):
                for report in packet.reports:
                    if report.event_type == ext.EventType.SCAN_RESPONSE:
                        report.event_type, report.data = 0x1B, response
                    elif report.event_type == ext.EventType.CONNECTABLE_ADVERTISING:
                        report.event_type = 0x13
                packet = ext(list(packet.reports))
            elif isinstance(packet, legacy):
                for report in packet.reports:
                    if report.event_type == legacy.EventType.SCAN_RSP:
                        report.data = response
                packet = legacy(list(packet.reports))
            send(packet)

        self.send_hci_packet = send_as_a_real_controller
        try:
            return original(self, pdu)
        finally:
            del self.send_hci_packet

    Controller.on_advertising_pdu = on_advertising_pdu


def relay_without_unlogged_formatting():
    """Bumble 0.0.236's controller formats a debug line for every packet each way (`f'{packet}'`,
    with colours), and a Number Of Completed Packets event object for every ACL packet from a
    host, whether or not debug logging is on. Profiled under `bleu-bench hci` that formatting
    is most of the relay's time, so the relay, not the hosts, set the pace. While debug logging
    is off this skips the formatting and sends each connection's (always identical) completion
    event from bytes made once: every byte each controller sends is the same."""
    log = bumble_controller.logger
    original_on_hci_packet = Controller.on_hci_packet
    original_send_hci_packet = Controller.send_hci_packet
    original_on_acl = Connection.on_hci_acl_data_packet

    def on_hci_packet(self, packet):
        if log.isEnabledFor(logging.DEBUG):
            return original_on_hci_packet(self, packet)
        if isinstance(packet, hci.HCI_AclDataPacket):
            self.on_hci_acl_data_packet(packet)
        elif isinstance(packet, hci.HCI_Command):
            self.on_hci_command_packet(packet)
        else:
            original_on_hci_packet(self, packet)

    def send_hci_packet(self, packet):
        if log.isEnabledFor(logging.DEBUG):
            return original_send_hci_packet(self, packet)
        if self.host:
            asyncio.get_running_loop().call_soon(self.host.on_packet, bytes(packet))

    def on_hci_acl_data_packet(self, packet):
        if log.isEnabledFor(logging.DEBUG) or 'send_hci_packet' in self.controller.__dict__:
            return original_on_acl(self, packet)
        self.assembler.feed_packet(packet)
        completed = self.__dict__.get('completed_event')
        if completed is None or completed[0] != self.handle:
            completed = (self.handle, bytes(hci.HCI_Number_Of_Completed_Packets_Event(
                connection_handles=[self.handle], num_completed_packets=[1])))
            self.completed_event = completed
        if self.controller.host:
            asyncio.get_running_loop().call_soon(self.controller.host.on_packet, completed[1])

    Controller.on_hci_packet = on_hci_packet
    Controller.send_hci_packet = send_hci_packet
    Connection.on_hci_acl_data_packet = on_hci_acl_data_packet


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--peer', choices=['none', 'advertise', 'central', 'central-idle'], default='none')
    parser.add_argument('--target')
    parser.add_argument('--write-uuid')
    parser.add_argument('--write-value', default='')
    parser.add_argument('--peer-address', default='D0:00:00:00:00:02')
    parser.add_argument('--name', default='bleu-peer')
    parser.add_argument('--l2cap-psm', type=lambda text: int(text, 0), default=None)
    parser.add_argument('--more-controllers', type=int, default=0)
    parser.add_argument('--pairing', default=None)
    parser.add_argument('--privacy', action='store_true')
    args = parser.parse_args()

    link = LocalLink()
    model_scan_responses(link)
    relay_without_unlogged_formatting()
    sockets = [loopback_socket() for _ in range(2 + args.more_controllers)]
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
        if args.pairing:
            configure_pairing(peer, args.pairing)
    if args.peer == 'advertise':
        data = bytes(AdvertisingData([
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LOCAL_NAME, args.name.encode()),
            (AdvertisingData.APPEARANCE, (0x03C1).to_bytes(2, 'little')),
            (AdvertisingData.MANUFACTURER_SPECIFIC_DATA, (0x0059).to_bytes(2, 'little') + bytes([0x01, 0x02])),
        ]))
        psm = serve_gatt(peer, report=lambda entry: print(json.dumps(entry), flush=True), secret=bool(args.pairing))
        # With --pairing the peer takes one connection after another (the pairing matrix), advertising
        # quickly, so each connection finds it advertising at once.
        ADVERTISING.update(advertising_data=data, own_address_type=1, auto_restart=bool(args.pairing),
                           advertising_interval_min=20 if args.pairing else None,
                           advertising_interval_max=20 if args.pairing else None)
        if args.privacy:
            peer.irk = bytes(range(0x20, 0x30))
            await take_private_address(peer)
        await peer.start_advertising(**ADVERTISING)
    else:
        psm = None

    print(json.dumps({'port_a': ports[0], 'port_b': ports[1], 'more_ports': ports[2:],
                      'peer': str(peer.random_address) if peer else None, 'psm': psm}), flush=True)
    if args.peer == 'central':
        try:
            print(json.dumps(await run_central(peer, args)), flush=True)
        except Exception as error:  # noqa: BLE001 - reported to the test
            print(json.dumps({'error': repr(error)}), flush=True)
    await serve_stdin(link, peer)
    for transport in transports:
        await transport.close()


if __name__ == '__main__':
    asyncio.run(main())
