import Foundation

/// A service a central discovered on a connected peripheral.
///
/// Handles are the peripheral's attribute handles on backends that speak ATT directly; a
/// backend that cannot see them (the CoreBluetooth backend) assigns its own, unique per
/// peripheral.
public struct RemoteService: Sendable, Hashable {
    /// The peripheral the service belongs to.
    public var peripheral: UUID
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    /// The handle of the service declaration.
    public var handle: UInt16
    /// The last handle of the service.
    public var endHandle: UInt16

    public init(peripheral: UUID, uuid: BluetoothUUID, isPrimary: Bool, handle: UInt16, endHandle: UInt16) {
        self.peripheral = peripheral
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.handle = handle
        self.endHandle = endHandle
    }
}

/// A characteristic a central discovered.
public struct RemoteCharacteristic: Sendable, Hashable {
    public var peripheral: UUID
    /// The UUID of the service holding the characteristic.
    public var service: BluetoothUUID
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    /// The handle of the characteristic declaration.
    public var handle: UInt16
    /// The handle of the characteristic value: what reads, writes and notifications address.
    public var valueHandle: UInt16
    /// The last handle of the characteristic (its last descriptor).
    public var endHandle: UInt16

    public init(peripheral: UUID, service: BluetoothUUID, uuid: BluetoothUUID,
                properties: CharacteristicProperties, handle: UInt16, valueHandle: UInt16, endHandle: UInt16) {
        self.peripheral = peripheral
        self.service = service
        self.uuid = uuid
        self.properties = properties
        self.handle = handle
        self.valueHandle = valueHandle
        self.endHandle = endHandle
    }
}

/// A descriptor a central discovered.
public struct RemoteDescriptor: Sendable, Hashable {
    public var peripheral: UUID
    /// The UUID of the characteristic the descriptor describes.
    public var characteristic: BluetoothUUID
    /// The value handle of that characteristic.
    public var characteristicValueHandle: UInt16
    public var uuid: BluetoothUUID
    public var handle: UInt16

    public init(peripheral: UUID, characteristic: BluetoothUUID, characteristicValueHandle: UInt16,
                uuid: BluetoothUUID, handle: UInt16) {
        self.peripheral = peripheral
        self.characteristic = characteristic
        self.characteristicValueHandle = characteristicValueHandle
        self.uuid = uuid
        self.handle = handle
    }
}
