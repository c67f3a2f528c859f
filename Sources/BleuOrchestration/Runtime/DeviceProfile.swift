import BleuCore

/// What the engine needs to know of every device it manages: the service to discover, the
/// characteristics to subscribe to (again after every reconnect) and the one to write to.
public struct DeviceProfile: Sendable, Hashable {
    /// The service holding the characteristics.
    public var service: BluetoothUUID
    /// Characteristics whose notifications (or indications) feed the incoming pipeline.
    public var subscriptions: [BluetoothUUID]
    /// The characteristic outgoing messages are written to; `nil` for read-only devices.
    public var writeCharacteristic: BluetoothUUID?

    /// A profile; each parameter sets the property of the same name.
    public init(service: BluetoothUUID, subscriptions: [BluetoothUUID], writeCharacteristic: BluetoothUUID?) {
        self.service = service
        self.subscriptions = subscriptions
        self.writeCharacteristic = writeCharacteristic
    }
}
