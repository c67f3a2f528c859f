import ArgumentParser
import BleuCore
import BleuGATT
import BleuHCI
import Foundation

/// `bleu gatt --hci ENDPOINT ADDRESS`: connects and prints the peer's whole GATT database.
struct GATTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Connect to a device and print its GATT database, with the value of every readable characteristic and descriptor.",
        discussion: """
            The device must be advertising (its address type is learnt from the scan). A read the device refuses for want of \
            security (Insufficient Authentication or Encryption) pairs — or encrypts with the bond kept from an earlier \
            pairing — and reads again; a passkey is taken from --passkey or asked for on the terminal. \
            Example: bleu gatt --hci tcp:127.0.0.1:9000 C0:11:22:33:44:55
            """
    )

    @OptionGroup var controller: ControllerOptions
    @OptionGroup var security: SecurityOptions

    @OptionGroup var device: DeviceOptions


    mutating func run() async throws {
        let target = device.target
        let radio = try await controller.openRadio(security: try security.open())
        let central = HCICentralManager(radio: radio)
        do {
            let peer = try await DeviceSearch.connect(target, central: central, radio: radio, seconds: device.timeout)
            print("Connected to \(target), ATT MTU \(try await central.attMTU(for: peer))")
            try await dump(peer, central: central)
            if let level = await central.securityLevel(of: peer), level > .unencrypted {
                print("The link was \(level)")
            }
            await central.cancelConnection(peer)
        } catch {
            await radio.stop()
            throw error
        }
        await radio.stop()
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
                    do {
                        let value = try await central.read(descriptor)
                        print("    Descriptor \(descriptor.uuid)  handle 0x\(hex4(descriptor.handle))  value \(hexString(value))"
                              + DescriptorText.meaning(of: value, uuid: descriptor.uuid))
                    } catch {
                        print("    Descriptor \(descriptor.uuid)  handle 0x\(hex4(descriptor.handle))  unreadable (\(error))")
                    }
                }
            }
        }
    }

    /// What the SIG catalogue says a value means, printed after its bytes: `  = 87 %`, or why
    /// the bytes do not decode as the characteristic's value; nothing for a UUID it does not know.
    /// A value the catalogue does not know is shown as text when it is printable UTF-8.
    static func meaning(of value: Data, uuid: BluetoothUUID) -> String {
        do {
            if let known = try SIGCatalogue.describe(value, of: uuid) { return "  = \(known)" }
        } catch {
            return "  (does not decode: \(error))"
        }
        return DescriptorText.printable(value).map { "  = \"\($0)\"" } ?? ""
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
