import BleuCore
import Foundation

/// Why a typed GATT operation failed before or after the radio did its part. Errors of the
/// radio itself (not connected, an ATT error from the peer, a timeout) arrive as
/// ``/BleuCore/BleuError`` unchanged.
public enum GATTError: Error, Sendable, Hashable {
    /// What a central tried to do with a characteristic.
    public enum Operation: String, Sendable, Hashable {
        /// Reading the value.
        case read
        /// Writing with a response.
        case write
        /// Writing without a response.
        case writeWithoutResponse = "write without response"
        /// Subscribing to notifications or indications.
        case subscribe
        /// Notifying or indicating a value (the peripheral side).
        case notify
    }

    /// The peripheral does not host the service (or discovery did not find it).
    case serviceNotFound(service: String, uuid: BluetoothUUID, peripheral: UUID)
    /// The service on the peripheral has no such characteristic, or it was not discovered
    /// (a typed service discovers only the characteristics its type declares).
    case characteristicNotFound(characteristic: String, uuid: BluetoothUUID, service: String)
    /// The characteristic's properties, as the peripheral declares them, do not allow the operation.
    case notPermitted(characteristic: String, operation: Operation, properties: CharacteristicProperties)
    /// The characteristic on the peripheral has no descriptor of this type.
    case descriptorNotFound(descriptor: String, uuid: BluetoothUUID, characteristic: String)
    /// A Client Characteristic Configuration descriptor (0x2902) is not written directly:
    /// the radio keeps the subscription state, so notifications are turned on and off by
    /// subscribing and unsubscribing (CoreBluetooth refuses such a write as well).
    case configuredBySubscribing(characteristic: String)
    /// The peripheral sent bytes that are not a valid value of the characteristic's (or descriptor's) type.
    case decodingFailed(GATTCodecError)
    /// The value cannot be carried by the characteristic's layout (out of range, too long).
    case encodingFailed(GATTCodecError)
}

extension GATTError: CustomStringConvertible, LocalizedError {
    /// What failed, why, and what to do.
    public var description: String {
        switch self {
        case .serviceNotFound(let service, let uuid, let peripheral):
            "Service \(service) (\(uuid.uuidString)) was not found on peripheral \(peripheral). "
                + "Check that the peripheral hosts it, and that it is the peripheral you meant."
        case .characteristicNotFound(let characteristic, let uuid, let service):
            "Characteristic \(characteristic) (\(uuid.uuidString)) was not found in service \(service). "
                + "The peripheral does not host it, or the service was discovered without it: "
                + "discover a service type that declares it."
        case .notPermitted(let characteristic, let operation, let properties):
            "\(characteristic) does not allow \(operation.rawValue): the peripheral declares it \(properties)."
        case .descriptorNotFound(let descriptor, let uuid, let characteristic):
            "Descriptor \(descriptor) (\(uuid.uuidString)) was not found on characteristic \(characteristic). "
                + "The peripheral does not host it for that characteristic."
        case .configuredBySubscribing(let characteristic):
            "The Client Characteristic Configuration of \(characteristic) is set by subscribing: "
                + "subscribe to the characteristic, and end the stream or unsubscribe to stop."
        case .decodingFailed(let error):
            "The peripheral sent a value that does not decode: \(error.descriptionWithoutAnswer). "
                + "The peripheral does not follow the characteristic's specification."
        case .encodingFailed(let error):
            "The value cannot be encoded: \(error.descriptionWithoutAnswer). Send a value the characteristic allows."
        }
    }

    public var errorDescription: String? { description }
}

extension GATTCodecError {
    /// `"Battery Level: expected 0–100, found 101"`: the description without the ATT error a
    /// server would answer with, for errors a client reports.
    var descriptionWithoutAnswer: String {
        let place = path.isEmpty ? "" : path.joined(separator: " › ") + ": "
        return "\(place)expected \(expected), found \(found)"
    }
}
