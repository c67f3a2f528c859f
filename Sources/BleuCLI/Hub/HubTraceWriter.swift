import BleuCore
import BleuEmulator
import BleuHCI
import Foundation

/// Writes a hub's link trace as it happens (`bleu hub --trace FILE`):
/// - every link event as a line of text in `FILE`;
/// - each device's connections as a btsnoop capture beside it, `FILE.<address>.btsnoop`: an LE
///   Connection Complete event when a connection is made, then the ATT PDUs the device sent and
///   received as ACL data — what the device's host would have seen over HCI, for Wireshark.
///   (The emulator models pairing and L2CAP signalling without their bytes: those stay in the
///   text trace only.)
///
/// The bus hands events over inside its lock; they are written on a queue of their own.
final class HubTraceWriter: Sendable {
    private struct Files {
        var text: FileHandle
        var captures: [UInt64: FileHandle] = [:]
        var links: [Int: LinkTraceEvent.Endpoints] = [:]
        /// Devices whose capture could not be created (reported once).
        var unwritable: Set<UInt64> = []
    }

    private let path: String
    private let configuration: EmulatorConfiguration
    private let started = Date()
    private let queue = DispatchQueue(label: "bleu.hub.trace")
    private let files: Locked<Files?>

    /// Creates (or truncates) the text trace at `path`; captures are created as devices connect.
    init(path: String, configuration: EmulatorConfiguration) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let text = FileHandle(forWritingAtPath: path) else {
            throw BleuError.invalidState(.invalidConfiguration(setting: "--trace \(path)", requirement: "a file this process can create"))
        }
        self.path = path
        self.configuration = configuration
        files = Locked(Files(text: text))
    }

    /// The capture of the device with this address.
    func capturePath(of address: UInt64) -> String {
        path + "." + String(format: "%012llX", address) + ".btsnoop"
    }

    /// Takes one event (from inside the bus's lock): queued for writing.
    func take(_ event: LinkTraceEvent) {
        queue.async { self.write(event) }
    }

    /// Writes what was taken and closes every file.
    func close() {
        queue.sync {
            files.withLock { files in
                guard let open = files else { return }
                for handle in [open.text] + Array(open.captures.values) {
                    do {
                        try handle.close()
                    } catch {
                        FileHandle.standardError.write(Data("bleu hub: closing the trace: \(error)\n".utf8))
                    }
                }
                files = nil
            }
        }
    }

    private func write(_ event: LinkTraceEvent) {
        files.withLock { files in
            // In place: a copy of the files would copy their tables for every event.
            guard files != nil else { return }
            write(event, into: &files!)
        }
    }

    private func write(_ event: LinkTraceEvent, into current: inout Files) {
        current.text.write(Data((event.description + "\n").utf8))
        let time = started.addingTimeInterval(event.time / .seconds(1))
        switch event.kind {
        case .connected:
            guard let connection = event.connection, let endpoints = event.endpoints else { break }
            current.links[connection] = endpoints
            for (device, peer, role) in [(endpoints.central, endpoints.peripheral, LEConnectionRole.central),
                                         (endpoints.peripheral, endpoints.central, LEConnectionRole.peripheral)] {
                let complete = LEConnectionComplete(
                    handle: Self.handle(connection), role: role, peerAddressType: .randomDevice,
                    peerAddress: Self.address(peer), interval: configuration.connectionInterval,
                    supervisionTimeout: configuration.supervisionTimeout)
                record(HCIEvent.le(.connectionComplete(complete)).h4Packet, .controllerToHost, device: device, at: time, in: &current)
            }
        case .disconnected:
            if let connection = event.connection { current.links[connection] = nil }
        case .att:
            guard let connection = event.connection, let endpoints = current.links[connection],
                  let pdu = event.pdu, let direction = event.direction else { break }
            let frame = L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload: pdu)
            let packet = ACLPacket(handle: Self.handle(connection), boundary: .firstFlushable, data: frame.encoded).h4Packet
            let (sender, receiver) = direction == .centralToPeripheral
                ? (endpoints.central, endpoints.peripheral) : (endpoints.peripheral, endpoints.central)
            record(packet, .hostToController, device: sender, at: time, in: &current)
            record(packet, .controllerToHost, device: receiver, at: time, in: &current)
        default:
            break
        }
    }

    private func record(_ packet: H4Packet, _ direction: BTSnoop.Direction, device: UInt64, at time: Date, in files: inout Files) {
        if files.captures[device] == nil {
            let path = capturePath(of: device)
            guard FileManager.default.createFile(atPath: path, contents: Data(BTSnoop.fileHeader)),
                  let handle = FileHandle(forWritingAtPath: path) else {
                guard files.unwritable.insert(device).inserted else { return }
                FileHandle.standardError.write(Data("bleu hub: cannot create \(path); this device's capture is left out\n".utf8))
                return
            }
            handle.seekToEndOfFile()
            files.captures[device] = handle
        }
        files.captures[device]?.write(Data(BTSnoop.record(packet, direction: direction, time: time)))
    }

    /// A connection's HCI handle: its number on the bus, within the 12 bits a handle has.
    private static func handle(_ connection: Int) -> UInt16 {
        UInt16(connection % 0x0EFF)
    }

    private static func address(_ value: UInt64) -> BluetoothAddress {
        BluetoothAddress(bytes: (0..<6).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) })
    }
}
