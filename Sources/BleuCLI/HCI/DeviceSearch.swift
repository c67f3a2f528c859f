import ArgumentParser
import BleuCore
import BleuHCI
import Foundation

/// `ADDRESS [--timeout S]`: the device a command connects to.
struct DeviceOptions: ParsableArguments {
    @Argument(help: "The device's address, as `bleu scan` prints it.")
    var address: String

    @Option(help: "How long to look for the device and to connect, in seconds.")
    var timeout: Double = 10

    func validate() throws {
        guard BluetoothAddress(string: address) != nil else {
            throw ValidationError("'\(address)' is not a device address (like C0:11:22:33:44:55)")
        }
    }

    /// The address (valid once parsed).
    var target: BluetoothAddress { BluetoothAddress(string: address)! }
}

/// Finding a device by its address before connecting.
enum DeviceSearch {
    /// Scans until the device at `target` advertises (the scan learns its address type), for
    /// at most `wait` (`seconds` as the user gave it, for the message).
    static func find(_ target: BluetoothAddress, central: HCICentralManager, radio: HCIRadio,
                     within wait: Duration, seconds: Double) async throws -> UUID {
        let advertisements = try await central.scan(ScanOptions(allowDuplicates: true))
        let deadline = Task {
            try? await Task.sleep(for: wait)
            await central.stopScan()
        }
        defer { deadline.cancel() }
        for try await advertisement in advertisements {
            if await radio.address(of: advertisement.peripheral)?.address == target {
                await central.stopScan()
                return advertisement.peripheral
            }
        }
        throw CommandFailure("device \(target) not found: nothing advertised from that address within \(seconds) s")
    }

    /// Finds and connects to the device at `target`; failures are one line.
    static func connect(_ target: BluetoothAddress, central: HCICentralManager, radio: HCIRadio,
                        seconds: Double) async throws -> UUID {
        let wait = Duration.milliseconds(Int64(seconds * 1000))
        let peer = try await find(target, central: central, radio: radio, within: wait, seconds: seconds)
        do {
            try await central.connect(peer, timeout: wait)
        } catch {
            throw CommandFailure("connection to \(target) failed: \(error)")
        }
        return peer
    }
}
