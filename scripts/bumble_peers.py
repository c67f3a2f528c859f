"""Bumble peers for BleuHCI's interop tests, run by bumble_link.py on controller B.

serve_gatt: a GATT server and an LE credit-based channel, as an independent peripheral:
  Battery (level 0x57: read, notify; ten notifications 1..10 on each subscription),
  Device Information (manufacturer "Bumble Works"),
  a service 6E400001-… with a control characteristic (write with response, …02) and an input
  characteristic (write without response, …03); each write is reported as
  {"written": HEX, "uuid": UUID}. The control characteristic carries a readable and writable
  Environmental Sensing Trigger Setting descriptor (0x290D, first 00: inactive) that keeps what
  is written and reports it as {"descriptor": HEX, "uuid": "290D"}. The L2CAP channel (dynamic PSM) echoes every SDU back.
run_central: connects to a target, exchanges MTU, discovers and reads everything, writes one
  value with response, subscribes, optionally opens an L2CAP channel and checks an echo, and
  reports what it found.
"""
import asyncio
import json

from bumble import l2cap
from bumble.device import Peer
from bumble.gatt import (
    GATT_BATTERY_LEVEL_CHARACTERISTIC,
    GATT_CHARACTERISTIC_PRESENTATION_FORMAT_DESCRIPTOR,
    GATT_CHARACTERISTIC_USER_DESCRIPTION_DESCRIPTOR,
    GATT_BATTERY_SERVICE,
    GATT_DEVICE_INFORMATION_SERVICE,
    GATT_ENVIRONMENTAL_SENSING_TRIGGER_DESCRIPTOR,
    GATT_MANUFACTURER_NAME_STRING_CHARACTERISTIC,
    Characteristic,
    CharacteristicValue,
    Descriptor,
    Service,
)
from bumble.hci import Address
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.smp import OobContext, OobLegacyContext, OobSharedData

CONTROL = '6E400002-B5A3-F393-E0A9-E50E24DCCA9E'
INPUT = '6E400003-B5A3-F393-E0A9-E50E24DCCA9E'
SECRET = '6E400005-B5A3-F393-E0A9-E50E24DCCA9E'


class FixedPasskey(PairingDelegate):
    """Displays a fixed passkey (Bumble otherwise draws one at random)."""

    def __init__(self, passkey):
        super().__init__(io_capability=PairingDelegate.DISPLAY_OUTPUT_ONLY)
        self.passkey = passkey

    async def generate_passkey(self):
        return self.passkey


def configure_pairing(device, mode):
    """How `device` pairs: 'justworks' (Secure Connections), 'legacy' (Just Works without Secure
    Connections) or 'passkey:NNNNNN' (Secure Connections, displaying that passkey, MITM)."""
    if mode == 'justworks':
        config = PairingConfig(sc=True, mitm=False, bonding=True)
    elif mode == 'legacy':
        config = PairingConfig(sc=False, mitm=False, bonding=True)
    elif mode.startswith('passkey:'):
        config = PairingConfig(sc=True, mitm=True, bonding=True, delegate=FixedPasskey(int(mode.split(':')[1])))
    else:
        raise ValueError(f'unknown pairing mode {mode}')
    device.pairing_config_factory = lambda _connection: config


class MatrixDelegate(PairingDelegate):
    """The pairing matrix's Bumble user: shows passkeys and numbers as JSON lines
    ({"display": N}, {"compare": N}), types the passkeys the test sends ({"passkey": N} on
    standard input), confirms every comparison, and accepts or refuses pairing as configured."""

    def __init__(self, io_capability, accepts, passkeys):
        super().__init__(io_capability=io_capability)
        self.accepts = accepts
        self.passkeys = passkeys

    async def accept(self):
        return self.accepts

    async def confirm(self, auto=False):
        return True

    async def compare_numbers(self, number, digits):
        print(json.dumps({'compare': number}), flush=True)
        return True

    async def get_number(self):
        return await self.passkeys.get()

    async def display_number(self, number, digits):
        print(json.dumps({'display': number}), flush=True)


def configure_matrix_pairing(device, spec, passkeys):
    """How `device` pairs from now on, from a {"pairing": {...}} command: io (SMP IO capability
    0-4), sc, mitm, bonding, accept (false: refuse every pairing with Pairing Not Supported,
    what a device without pairing answers too), and oob: {"ours": true} makes Bumble's Secure
    Connections OOB data and prints it as {"oob": {"c": HEX, "r": HEX}}, "peer": {"c", "r"} is
    the other device's, "tk": HEX a legacy TK (all as Bumble holds them: least significant octet
    first)."""
    delegate = MatrixDelegate(spec['io'], spec.get('accept', True), passkeys)
    oob = None
    if 'oob' in spec:
        spec_oob = spec['oob']
        ours = OobContext() if spec_oob.get('ours') else None
        peer = spec_oob.get('peer')
        oob = PairingConfig.OobConfig(
            our_context=ours,
            peer_data=OobSharedData(c=bytes.fromhex(peer['c']), r=bytes.fromhex(peer['r'])) if peer else None,
            legacy_context=OobLegacyContext(tk=bytes.fromhex(spec_oob['tk'])) if 'tk' in spec_oob else None,
        )
        if ours:
            shared = ours.share()
            print(json.dumps({'oob': {'c': shared.c.hex(), 'r': shared.r.hex()}}), flush=True)
    config = PairingConfig(sc=spec['sc'], mitm=spec['mitm'], bonding=spec['bonding'], delegate=delegate, oob=oob)
    device.pairing_config_factory = lambda _connection: config


async def pair_with(device, target, release):
    """Connects to `target`, pairs, reports {"paired": true, "encrypted": …} or {"paired": false,
    "error": …}, and disconnects once `release` is set (the test has looked at its side)."""
    connection = await device.connect(Address(target), own_address_type=1, timeout=10)
    try:
        await connection.pair()
        report = {'paired': True, 'encrypted': connection.is_encrypted}
    except Exception as error:  # noqa: BLE001 - reported to the test
        report = {'paired': False, 'error': repr(error)}
    print(json.dumps(report), flush=True)
    await release.wait()
    await connection.disconnect()


def serve_gatt(device, report, secret=False):
    """Adds the services and the echo channel to `device` (and, with `secret`, a characteristic
    that requires encryption, with a user description and a presentation format); returns the
    channel's PSM."""
    level = Characteristic(GATT_BATTERY_LEVEL_CHARACTERISTIC,
                           Characteristic.Properties.READ | Characteristic.Properties.NOTIFY,
                           Characteristic.READABLE, bytes([0x57]))

    def recorder(uuid):
        return CharacteristicValue(write=lambda _connection, value: report({'written': bytes(value).hex(), 'uuid': uuid}))

    trigger = bytearray([0x00])

    def trigger_written(_connection, value):
        trigger[:] = bytes(value)
        report({'descriptor': bytes(value).hex(), 'uuid': '290D'})

    trigger_setting = Descriptor(GATT_ENVIRONMENTAL_SENSING_TRIGGER_DESCRIPTOR, Descriptor.READABLE | Descriptor.WRITEABLE,
                                 CharacteristicValue(read=lambda _connection: bytes(trigger), write=trigger_written))

    device.add_services([
        Service(GATT_BATTERY_SERVICE, [level]),
        Service(GATT_DEVICE_INFORMATION_SERVICE, [
            Characteristic(GATT_MANUFACTURER_NAME_STRING_CHARACTERISTIC, Characteristic.Properties.READ,
                           Characteristic.READABLE, b'Bumble Works'),
        ]),
        Service('6E400001-B5A3-F393-E0A9-E50E24DCCA9E', [
            Characteristic(CONTROL, Characteristic.Properties.WRITE, Characteristic.WRITEABLE, recorder(CONTROL),
                           descriptors=[trigger_setting]),
            Characteristic(INPUT, Characteristic.Properties.WRITE_WITHOUT_RESPONSE, Characteristic.WRITEABLE,
                           recorder(INPUT)),
        ] + ([Characteristic(SECRET, Characteristic.Properties.READ,
                             Characteristic.READABLE | Characteristic.READ_REQUIRES_ENCRYPTION, b'secret', descriptors=[
                                 Descriptor(GATT_CHARACTERISTIC_USER_DESCRIPTION_DESCRIPTOR, Descriptor.READABLE,
                                            b'the secret'),
                                 # UTF-8 string, exponent 0, unitless, Bluetooth SIG namespace, description 0.
                                 Descriptor(GATT_CHARACTERISTIC_PRESENTATION_FORMAT_DESCRIPTOR, Descriptor.READABLE,
                                            bytes([0x19, 0x00, 0x00, 0x27, 0x01, 0x00, 0x00]))])]
             if secret else [])),
    ])

    async def notify_ten(connection):
        for value in range(1, 11):
            await device.notify_subscriber(connection, level, bytes([value]))

    def on_subscription(connection, characteristic, notify_enabled, _indicate_enabled):
        if characteristic is level and notify_enabled:
            asyncio.get_running_loop().create_task(notify_ten(connection))

    device.on('characteristic_subscription', on_subscription)

    def on_channel(channel):
        channel.sink = channel.write  # echo

    server = device.create_l2cap_server(spec=l2cap.LeCreditBasedChannelSpec(mtu=1024, mps=100, max_credits=4),
                                        handler=on_channel)
    return server.psm


def uuid_text(uuid):
    return uuid.to_hex_str() if hasattr(uuid, 'to_hex_str') else str(uuid)


async def run_central(device, args):
    connection = await device.connect(Address(args.target), own_address_type=1, timeout=15)
    if args.pairing:
        await connection.pair()
    peer = Peer(connection)
    mtu = await peer.request_mtu(517)
    await peer.discover_all()
    found = {'mtu': mtu, 'services': [], 'characteristics': {}, 'encrypted': connection.is_encrypted}
    notified = []
    for service in peer.services:
        found['services'].append(uuid_text(service.uuid))
        for characteristic in service.characteristics:
            entry = {'properties': int(characteristic.properties),
                     'descriptors': [uuid_text(d.type) for d in characteristic.descriptors]}
            if characteristic.properties & 0x02:
                entry['value'] = bytes(await characteristic.read_value()).hex()
            if args.write_uuid and uuid_text(characteristic.uuid) == args.write_uuid.replace('-', '').upper():
                await characteristic.write_value(bytes.fromhex(args.write_value), with_response=True)
                entry['written'] = True
            if characteristic.properties & 0x10:
                await peer.subscribe(characteristic, lambda value: notified.append(bytes(value).hex()))
                entry['subscribed'] = True
            found['characteristics'][uuid_text(characteristic.uuid)] = entry
    for _ in range(100):  # the server's first notification, if it sends any (up to 1 s)
        if notified:
            break
        await asyncio.sleep(0.01)
    found['notified'] = notified
    if args.l2cap_psm:
        channel = await connection.create_l2cap_channel(spec=l2cap.LeCreditBasedChannelSpec(psm=args.l2cap_psm))
        echoed = asyncio.get_running_loop().create_future()
        channel.sink = lambda sdu: echoed.done() or echoed.set_result(bytes(sdu))
        channel.write(b'ping from bumble' * 20)
        found['l2cap_echo'] = (await asyncio.wait_for(echoed, 5)).hex()
        await channel.disconnect()
    await connection.disconnect()
    return found
