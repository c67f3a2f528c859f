import ArgumentParser
import BleuCore
import BleuHCI
import Foundation

/// `bleu scan --hci ENDPOINT`: lists advertisers with address, RSSI and decoded advertising data.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List advertising devices through a controller driven by Bleu's host stack.",
        discussion: "Active scan: each device once, its advertising data merged with its scan response. Example: bleu scan --hci tcp:127.0.0.1:9000 --seconds 5"
    )

    @OptionGroup var controller: ControllerOptions

    @Option(help: "How long to scan, in seconds.")
    var seconds: Double = 5

    @Option(help: "Only devices advertising this service UUID (repeatable).")
    var service: [String] = []

    @Flag(help: "Print every advertisement received, not each device once.")
    var duplicates = false

    func validate() throws {
        for uuid in service where BluetoothUUID(string: uuid) == nil {
            throw ValidationError("'\(uuid)' is not a UUID (16-bit \"180D\" or 128-bit)")
        }
    }

    mutating func run() async throws {
        let radio = try await controller.openRadio()
        let central = HCICentralManager(radio: radio)
        let filter = service.compactMap { BluetoothUUID(string: $0) }
        let advertisements = try await central.scan(ScanOptions(services: filter.isEmpty ? nil : filter,
                                                                allowDuplicates: duplicates))
        let seconds = self.seconds
        let deadline = Task {
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            await central.stopScan()
        }
        var count = 0
        for try await advertisement in advertisements {
            count += 1
            let address = await radio.address(of: advertisement.peripheral)
            print(Self.line(advertisement, address: address))
        }
        await deadline.value  // the scan is stopped on the controller before the radio goes
        print("\(count) advertisement\(count == 1 ? "" : "s") in \(seconds) s")
        await radio.stop()
    }

    /// `C0:11:22:33:44:55 random  -52 dBm  connectable  name "Thermo"  services 180D (Heart Rate) …`
    static func line(_ advertisement: Advertisement, address: (address: BluetoothAddress, type: AddressType)?) -> String {
        var parts = [address.map { "\($0.address) \($0.type)" } ?? advertisement.peripheral.uuidString,
                     "\(advertisement.rssi) dBm", advertisement.isConnectable ? "connectable" : "not connectable"]
        parts += AdvertisingDescription.fields(advertisement.data)
        return parts.joined(separator: "  ")
    }
}

/// Advertising data as readable fields, with the SIG's names of services, companies and
/// appearances: `services 180F (Battery Service)`, `manufacturer 0x004C (Apple, Inc.): 0102`,
/// `appearance 0x03C1 (Human Interface Device: Keyboard)`.
enum AdvertisingDescription {
    static func fields(_ data: AdvertisingData) -> [String] {
        var fields: [String] = []
        if let name = data.localName { fields.append("name \"\(name)\"") }
        if !data.serviceUUIDs.isEmpty { fields.append("services " + data.serviceUUIDs.map(\.description).joined(separator: ", ")) }
        if !data.solicitedServiceUUIDs.isEmpty {
            fields.append("solicits " + data.solicitedServiceUUIDs.map(\.description).joined(separator: ", "))
        }
        for (uuid, value) in data.serviceData.sorted(by: { $0.key.description < $1.key.description }) {
            fields.append("service data \(uuid): \(hexString(value))")
        }
        if let beacon = data.iBeacon {
            fields.append("iBeacon \(beacon.proximityUUID) major \(beacon.major) minor \(beacon.minor) power \(beacon.measuredPower) dBm")
        } else if let manufacturer = data.manufacturerData {
            fields.append("manufacturer \(manufacturer.company): \(hexString(manufacturer.data))")
        }
        if let power = data.txPowerLevel { fields.append("tx power \(power) dBm") }
        if let appearance = data.appearance { fields.append("appearance \(Appearance(appearance))") }
        if let flags = data.flags { fields.append(String(format: "flags 0x%02X", flags.rawValue)) }
        return fields
    }
}
