import BleuCore
import Foundation

/// One device on a bus's air whose host runs outside the emulator: what a virtual HCI
/// controller (BleuEmulatorHub's `VirtualController`) drives. It is a central and a
/// peripheral at once, with one address, as a controller is; the air treats it as any device
/// (advertising heard by every scanner, connections on the link model's air time, link loss
/// and faults by seed), and what the air tells its host arrives as ``ExternalDelivery`` values,
/// handed to `deliver` in the engine's order from inside the engine: `deliver` must only hand
/// them on.
///
/// Only a bus in this process has one (the hub's own bus); releasing it takes the device off
/// the air, its links lost as when a controller is unplugged.
package final class ExternalRadio: Sendable {
    private let bus: EmulatorBus
    private let central: CentralKey
    private let peripheral: PeripheralKey

    /// Puts a device on `bus`'s air. `device` names it for an address that stays the same (nil: a fresh one).
    package init(bus: EmulatorBus, device: String? = nil, deliver: @escaping @Sendable (ExternalDelivery) -> Void) {
        precondition(bus.remote == nil, "an external radio needs the bus whose engine runs here (a hub's own bus)")
        self.bus = bus
        (central, peripheral) = bus.withEngine { $0.attachExternal(ExternalHost(deliver: deliver), device: device) }
    }

    deinit {
        bus.withEngine { [central, peripheral] in $0.detachExternal(central: central, peripheral: peripheral) }
    }

    /// The device's 48-bit address.
    package var address: UInt64 {
        bus.withEngine { $0.centrals[central]?.address ?? 0 }
    }

    /// LE Set Random Address; false (Command Disallowed) while the device advertises, scans or
    /// connects, or when another device has the address.
    package func setAddress(_ address: UInt64) -> Bool {
        bus.withEngine { $0.setExternalAddress(address, central: central, peripheral: peripheral) }
    }

    /// HCI Reset: the device leaves the air (its peers' links are lost) and stays on the bus, idle.
    package func reset() {
        bus.withEngine { $0.leaveAir(central: central, peripheral: peripheral) }
    }

    /// Advertises these bytes (and this scan response, empty for none), replacing what ran.
    package func startAdvertising(_ data: [UInt8], scanResponse: [UInt8], connectable: Bool) {
        bus.withEngine { $0.startAdvertising(peripheral: peripheral, bytes: data, scanResponse: scanResponse, connectable: connectable) }
    }

    package func stopAdvertising() {
        bus.withEngine { $0.stopAdvertising(peripheral: peripheral) }
    }

    /// Scans: every advertising event heard becomes ``ExternalDelivery/advertisingReport(address:data:isScanResponse:connectable:rssi:)``.
    package func startScan(active: Bool, filterDuplicates: Bool) {
        bus.withEngine { $0.startExternalScan(central: central, active: active, filterDuplicates: filterDuplicates) }
    }

    package func stopScan() {
        bus.withEngine { $0.stopScan(central: central) }
    }

    /// LE Create Connection to `address`: connects once a device with it advertises connectably.
    package func connect(to address: UInt64) {
        bus.withEngine { $0.connect(central: central, toAddress: address) }
    }

    /// LE Create Connection Cancel; false when no attempt runs.
    package func cancelConnect() -> Bool {
        bus.withEngine { $0.cancelExternalConnect(central: central) }
    }

    /// The device's role on `link`, or nil when the link is not (or no longer) one of its own.
    package func role(on link: Int) -> ExternalRole? {
        bus.withEngine { role(on: link, in: $0) }
    }

    /// Sends an L2CAP PDU on one of its links; ``ExternalDelivery/sent(link:receipt:)`` follows
    /// when it has left the air. False when the link is not its own (or is gone).
    package func send(on link: Int, channel: UInt16, payload: [UInt8], receipt: UInt64) -> Bool {
        bus.withEngine { engine in
            guard let role = role(on: link, in: engine) else { return false }
            engine.externalSend(LinkID(rawValue: link), from: role, channel: channel, payload: payload, receipt: receipt)
            return true
        }
    }

    /// HCI Disconnect: ends one of its links with `reason`. False when the link is not its own.
    package func disconnect(_ link: Int, reason: UInt8) -> Bool {
        bus.withEngine { engine in
            guard let role = role(on: link, in: engine) else { return false }
            engine.externalDisconnect(LinkID(rawValue: link), from: role, reason: reason)
            return true
        }
    }

    /// LE Enable Encryption, as the central of `link`. False when it is not the link's central.
    package func startEncryption(on link: Int, random: UInt64, ediv: UInt16, key: [UInt8]) -> Bool {
        bus.withEngine { engine in
            guard role(on: link, in: engine) == .central else { return false }
            engine.externalStartEncryption(LinkID(rawValue: link), random: random, ediv: ediv, key: key)
            return true
        }
    }

    /// LE Long Term Key Request (Negative) Reply, as the peripheral of `link`: `nil` has no key.
    /// False when it is not the link's peripheral.
    package func replyLongTermKey(on link: Int, key: [UInt8]?) -> Bool {
        bus.withEngine { engine in
            guard role(on: link, in: engine) == .peripheral else { return false }
            engine.externalLongTermKey(LinkID(rawValue: link), key: key)
            return true
        }
    }

    private func role(on link: Int, in engine: Engine) -> ExternalRole? {
        guard let state = engine.links[LinkID(rawValue: link)] else { return nil }
        if state.central == central { return .central }
        if state.peripheral == peripheral { return .peripheral }
        return nil
    }
}
