#!/usr/bin/env python3
"""Bumble's host on both sides of a virtual link, measuring what `bleu-bench hci` measures
with Bleu's host: GATT notification throughput and write-request round trips.

    bumble_gatt_bench.py --port-a A --port-b B [--count 1000] [--size 200] [--writes 200] [--rounds 3]

Both hosts connect over TCP to the two virtual controllers `bumble_link.py` runs (the same
path Bleu's hosts take). The peripheral (controller B) serves a notify characteristic and a
write characteristic; the central (controller A) connects, exchanges MTU 517, subscribes, and
receives `count` notifications of `size` bytes, `rounds` times (the best round counts); then it
makes `writes` write requests of 20 bytes one after another. Prints one JSON line: notify_kbps,
write_rtt_ms_p50, write_rtt_ms_mean.
"""
import argparse
import asyncio
import json
import statistics
import time

from bumble.device import Device, Peer
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.hci import Address
from bumble.transport import open_transport

SERVICE = '7E570000-0000-4B1E-8000-00000000BE7C'
NOTIFY = '7E570001-0000-4B1E-8000-00000000BE7C'
WRITE = '7E570002-0000-4B1E-8000-00000000BE7C'


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--port-a', type=int, required=True)
    parser.add_argument('--port-b', type=int, required=True)
    parser.add_argument('--count', type=int, default=1000)
    parser.add_argument('--size', type=int, default=200)
    parser.add_argument('--writes', type=int, default=200)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args()

    transport_a = await open_transport(f'tcp-client:127.0.0.1:{args.port_a}')
    transport_b = await open_transport(f'tcp-client:127.0.0.1:{args.port_b}')
    central = Device.with_hci('central', Address('C0:00:00:00:00:A1'), transport_a.source, transport_a.sink)
    peripheral = Device.with_hci('peripheral', Address('C0:00:00:00:00:B1'), transport_b.source, transport_b.sink)
    notify = Characteristic(NOTIFY, Characteristic.Properties.NOTIFY, Characteristic.READABLE, b'')
    write = Characteristic(WRITE, Characteristic.Properties.WRITE, Characteristic.WRITEABLE,
                           CharacteristicValue(write=lambda _connection, _value: None))
    peripheral.add_service(Service(SERVICE, [notify, write]))
    await central.power_on()
    await peripheral.power_on()
    subscribed = asyncio.get_running_loop().create_future()
    peripheral.on('characteristic_subscription',
                  lambda _c, characteristic, on, _i: on and characteristic is notify and not subscribed.done()
                  and subscribed.set_result(True))
    await peripheral.start_advertising(own_address_type=1)
    connection = await central.connect(Address('C0:00:00:00:00:B1'), own_address_type=1, timeout=15)
    peer = Peer(connection)
    await peer.request_mtu(517)
    await peer.discover_all()
    remote_notify = peer.get_characteristics_by_uuid(notify.uuid)[0]
    remote_write = peer.get_characteristics_by_uuid(write.uuid)[0]

    received = 0
    finished = None

    def on_value(_value):
        nonlocal received
        received += 1
        if received == args.count and not finished.done():
            finished.set_result(time.perf_counter())

    await peer.subscribe(remote_notify, on_value)
    await subscribed
    payload = bytes(range(256)) * (args.size // 256 + 1)
    notify_kbps = 0
    for _ in range(args.rounds):
        received = 0
        finished = asyncio.get_running_loop().create_future()
        start = time.perf_counter()
        for _ in range(args.count):
            await peripheral.notify_subscribers(notify, payload[:args.size])
        end = await asyncio.wait_for(finished, 120)
        notify_kbps = max(notify_kbps, args.count * args.size * 8 / (end - start) / 1000)

    rtts = []
    for _ in range(args.writes):
        begin = time.perf_counter()
        await remote_write.write_value(b'w' * 20, with_response=True)
        rtts.append((time.perf_counter() - begin) * 1000)
    print(json.dumps({'notify_kbps': notify_kbps, 'write_rtt_ms_p50': statistics.median(rtts),
                      'write_rtt_ms_mean': statistics.fmean(rtts)}), flush=True)
    await connection.disconnect()
    await transport_a.close()
    await transport_b.close()


if __name__ == '__main__':
    asyncio.run(main())
