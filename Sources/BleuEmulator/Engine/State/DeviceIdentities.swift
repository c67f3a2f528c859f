import BleuCore
import Foundation

/// Who the devices on a bus are: their 48-bit addresses, unique on the bus (and the same for
/// a named device across managers), and the identifier each device knows another by.
struct DeviceIdentities {
    /// The namespace of the identifiers devices see each other under, random per bus seed.
    let namespace: UUID
    private var random: SeededRandomNumberGenerator
    private var addressesByDevice: [String: UInt64] = [:]
    private var used: Set<UInt64> = []

    init(seed: UInt64) {
        random = SeededRandomNumberGenerator(seed: seed ^ 0x1D1D_1D1D_1D1D_1D1D)
        var namespaceRandom = SeededRandomNumberGenerator(seed: seed)
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &namespaceRandom) }
        namespace = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// A fresh 48-bit device address, unique on the bus; a named `device` keeps its address.
    mutating func newAddress(device: String?) -> UInt64 {
        if let device, let address = addressesByDevice[device] { return address }
        var address: UInt64
        repeat {
            address = random.next() & 0xFFFF_FFFF_FFFF
        } while used.contains(address)
        used.insert(address)
        if let device { addressesByDevice[device] = address }
        return address
    }

    /// The identifier a device with address `observer` knows the device with address `subject`
    /// by: random per bus (from its seed), different for every observer, stable on the bus.
    func identifier(of subject: UInt64, seenBy observer: UInt64) -> UUID {
        UUID(version5Of: String(observer, radix: 16) + "/" + String(subject, radix: 16), in: namespace)
    }
}
