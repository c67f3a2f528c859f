import BleuCore
import Foundation

/// CoreBluetooth's `CBAttribute`: the base of services, characteristics and descriptors,
/// identified by a UUID.
public class EmulatedCBAttribute: CustomStringConvertible {
    /// The attribute's type: a Bluetooth SIG or custom UUID.
    public var uuid: CBUUID { type }

    private let type: CBUUID

    init(type: CBUUID) {
        self.type = type
    }

    public var description: String {
        "<\(Swift.type(of: self)) \(uuid.uuidString)>"
    }
}
