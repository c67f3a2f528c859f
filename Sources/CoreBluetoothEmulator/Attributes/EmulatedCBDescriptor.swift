import BleuCore
import Foundation

/// CoreBluetooth's `CBDescriptor`: a descriptor a central discovered (or, for
/// ``EmulatedCBMutableDescriptor``, one a peripheral manager publishes).
///
/// Values have CoreBluetooth's types: `NSNumber` for the extended properties (0x2900), client
/// and server configuration (0x2902, 0x2903) descriptors, `String` for the user description
/// (0x2901), `Data` for the presentation format (0x2904) and any other descriptor.
public class EmulatedCBDescriptor: EmulatedCBAttribute {
    struct State {
        weak var characteristic: EmulatedCBCharacteristic?
        var value: Any?
        var remote: RemoteDescriptor?
    }

    let state: Locked<State>

    init(type: CBUUID, value: Any?, remote: RemoteDescriptor?, characteristic: EmulatedCBCharacteristic?) {
        state = Locked(State(characteristic: characteristic, value: value, remote: remote))
        super.init(type: type)
    }

    /// The characteristic this descriptor belongs to.
    public var characteristic: EmulatedCBCharacteristic? {
        state.withLock { $0.characteristic }
    }

    /// The latest value read, of the type CoreBluetooth uses for this descriptor.
    public var value: Any? {
        state.withLock { $0.value }
    }

    var remote: RemoteDescriptor? {
        state.withLock { $0.remote }
    }

    /// A value given to a mutable descriptor (`Data` or `String`), as bytes on air.
    static func bytes(of value: Any?) -> Data? {
        switch value {
        case let data as Data: data
        case let text as String: Data(text.utf8)
        case nil: Data()
        default: nil
        }
    }
}

/// CoreBluetooth's `CBMutableDescriptor`: a descriptor with a static value, published with its
/// characteristic. CoreBluetooth publishes only the user description (a `String`) and the
/// presentation format (`Data`) this way; the emulator takes any UUID whose value is `Data` or
/// `String`, and refuses a Client Characteristic Configuration descriptor (it adds that one
/// itself for characteristics that notify or indicate).
public class EmulatedCBMutableDescriptor: EmulatedCBDescriptor {
    /// A descriptor of this type with this value.
    public init(type UUID: CBUUID, value: Any?) {
        super.init(type: UUID, value: value, remote: nil, characteristic: nil)
    }
}
