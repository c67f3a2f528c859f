import ArgumentParser
import BleuCore
import BleuGATT
import BleuHCI
import Foundation

/// `bleu gatt --hci ENDPOINT ADDRESS`: connects and prints the peer's whole GATT database.
struct GATTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Connect to a device and print its GATT database, with the value of every readable characteristic.",
        discussion: "The device must be advertising (its address type is learnt from the scan). Example: bleu gatt --hci tcp:127.0.0.1:9000 C0:11:22:33:44:55"
    )

    @OptionGroup var controller: ControllerOptions

    @Argument(help: "The device's address, as `bleu scan` prints it.")
    var address: String

    @Option(help: "How long to look for the device and to connect, in seconds.")
    var timeout: Double = 10

    func validate() throws {
        guard BluetoothAddress(string: address) != nil else {
            throw ValidationError("'\(address)' is not a device address (like C0:11:22:33:44:55)")
        }
    }

    mutating func run() async throws {
        let target = BluetoothAddress(string: address)!
        let radio = try await controller.openRadio()
        let central = HCICentralManager(radio: radio)
        let wait = Duration.milliseconds(Int64(timeout * 1000))
        do {
            let peer = try await find(target, central: central, radio: radio, within: wait)
            do {
                try await central.connect(peer, timeout: wait)
            } catch {
                throw CommandFailure("connection to \(target) failed: \(error)")
            }
            print("Connected to \(target), ATT MTU \(try await central.attMTU(for: peer))")
            try await dump(peer, central: central)
            await central.cancelConnection(peer)
        } catch {
            await radio.stop()
            throw error
        }
        await radio.stop()
    }

    /// Scans until the device at `target` advertises.
    private func find(_ target: BluetoothAddress, central: HCICentralManager, radio: HCIRadio,
                      within wait: Duration) async throws -> UUID {
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
        throw CommandFailure("device \(target) not found: nothing advertised from that address within \(timeout) s")
    }

    private func dump(_ peer: UUID, central: HCICentralManager) async throws {
        for service in try await central.discoverServices(nil, on: peer) {
            print("Service \(service.uuid)  handles 0x\(hex4(service.handle))–0x\(hex4(service.endHandle))")
            for included in try await central.discoverIncludedServices(nil, for: service) {
                print("  Includes \(included.uuid)")
            }
            for characteristic in try await central.discoverCharacteristics(nil, for: service) {
                print("  Characteristic \(characteristic.uuid)  [\(Self.names(characteristic.properties))]  value handle 0x\(hex4(characteristic.valueHandle))")
                if characteristic.properties.contains(.read) {
                    do {
                        let value = try await central.read(characteristic)
                        print("    Value: \(hexString(value))\(Self.meaning(of: value, uuid: characteristic.uuid))")
                    } catch {
                        print("    Value: unreadable (\(error))")
                    }
                }
                for descriptor in try await central.discoverDescriptors(for: characteristic) {
                    let value = (try? await central.read(descriptor)).map { hexString($0) } ?? "unreadable"
                    print("    Descriptor \(descriptor.uuid)  handle 0x\(hex4(descriptor.handle))  value \(value)")
                }
            }
        }
    }

    /// What the SIG catalogue says a value means, printed after its bytes: `  = 87 %`, or why
    /// the bytes do not decode as the characteristic's value; nothing for a UUID it does not know.
    static func meaning(of value: Data, uuid: BluetoothUUID) -> String {
        do {
            return try SIGCatalogue.describe(value, of: uuid).map { "  = \($0)" } ?? ""
        } catch {
            return "  (does not decode: \(error))"
        }
    }

    static func names(_ properties: CharacteristicProperties) -> String {
        let all: [(CharacteristicProperties, String)] = [
            (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "write-without-response"),
            (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
            (.authenticatedSignedWrites, "signed-write"), (.extendedProperties, "extended"),
        ]
        return all.filter { properties.contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}
