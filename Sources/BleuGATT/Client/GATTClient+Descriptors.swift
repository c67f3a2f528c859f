import BleuCore
import Foundation

extension GATTClient {
    // MARK: Descriptors

    /// The discovered descriptor of `characteristic` that is `descriptor`, discovering the
    /// characteristic's descriptors. Throws
    /// ``GATTError/descriptorNotFound(descriptor:uuid:characteristic:)`` when the peripheral
    /// does not host it, or the radio's ``/BleuCore/BleuError``.
    public func remote<Value>(_ descriptor: GATTDescriptor<Value>, of characteristic: RemoteCharacteristic) async throws
        -> RemoteDescriptor
    {
        try await remote(descriptor, of: characteristic, name: Self.name(of: characteristic))
    }

    /// Reads a descriptor of a characteristic as its type, such as
    /// `try await client.read(.userDescription, of: characteristic)`. Throws
    /// ``GATTError/descriptorNotFound(descriptor:uuid:characteristic:)`` when the characteristic
    /// has no such descriptor, ``GATTError/decodingFailed(_:)`` (its path starting with the
    /// descriptor's name) when the bytes are not a valid value, or the radio's
    /// ``/BleuCore/BleuError`` — ``/BleuCore/BleuError/att(_:)`` when the peripheral refuses the read.
    public func read<Value>(_ descriptor: GATTDescriptor<Value>, of characteristic: RemoteCharacteristic) async throws -> Value {
        try await read(descriptor, of: characteristic, name: Self.name(of: characteristic))
    }

    /// Writes a descriptor of a characteristic, such as a Characteristic User Description the
    /// peripheral lets centrals change. Throws ``GATTError/encodingFailed(_:)`` for a value the
    /// layout cannot carry (nothing is sent), ``GATTError/configuredBySubscribing(characteristic:)``
    /// for the Client Characteristic Configuration (subscribe instead),
    /// ``GATTError/descriptorNotFound(descriptor:uuid:characteristic:)``, or the radio's
    /// ``/BleuCore/BleuError`` — ``/BleuCore/BleuError/att(_:)`` with the peripheral's answer
    /// to a write it refuses.
    public func write<Value>(_ value: Value, to descriptor: GATTDescriptor<Value>, of characteristic: RemoteCharacteristic)
        async throws
    {
        try await write(value, to: descriptor, of: characteristic, name: Self.name(of: characteristic))
    }

    /// Whether this client has notifications or indications of `characteristic` turned on, as
    /// CoreBluetooth's `CBCharacteristic.isNotifying`: `true` once a subscription through this
    /// client (a typed service's `subscribe(to:)`) succeeded; `false` before, once its last
    /// stream ended or ``RemoteGATTService/unsubscribe(from:)-(Characteristic<Value>)`` ran, and
    /// while the peripheral is not connected. Subscriptions made on ``central`` directly are not
    /// this client's and are not seen.
    public func isNotifying(_ characteristic: RemoteCharacteristic) async -> Bool {
        guard subscriptions.withLock({ $0.notifying.contains(characteristic.valueHandle) }) else { return false }
        return await central.isConnected(peripheral)
    }

    // MARK: Shared

    static func name(of characteristic: RemoteCharacteristic) -> String {
        characteristic.uuid.name ?? characteristic.uuid.uuidString
    }

    func remote<Value>(_ descriptor: GATTDescriptor<Value>, of characteristic: RemoteCharacteristic, name: String)
        async throws -> RemoteDescriptor
    {
        let found = try await central.discoverDescriptors(for: characteristic)
        guard let remote = found.first(where: descriptor.matches) else {
            throw GATTError.descriptorNotFound(descriptor: descriptor.name, uuid: descriptor.uuid, characteristic: name)
        }
        return remote
    }

    func read<Value>(_ descriptor: GATTDescriptor<Value>, of characteristic: RemoteCharacteristic, name: String)
        async throws -> Value
    {
        let remote = try await remote(descriptor, of: characteristic, name: name)
        let data = try await central.read(remote)
        do {
            return try descriptor.decode(data)
        } catch {
            throw GATTError.decodingFailed(error)
        }
    }

    func write<Value>(_ value: Value, to descriptor: GATTDescriptor<Value>, of characteristic: RemoteCharacteristic,
                      name: String) async throws
    {
        let data: Data
        do {
            data = try descriptor.encode(value)
        } catch {
            throw GATTError.encodingFailed(error)
        }
        guard descriptor.uuid != BluetoothUUID.Descriptor.clientCharacteristicConfiguration else {
            throw GATTError.configuredBySubscribing(characteristic: name)
        }
        let remote = try await remote(descriptor, of: characteristic, name: name)
        try await central.write(data, to: remote)
    }
}

extension RemoteGATTService {
    // MARK: Descriptors

    /// Reads a descriptor of one of the service's characteristics as its type, such as
    /// `try await service.read(.presentationFormat, of: MyService.target)`. Throws
    /// ``GATTError/characteristicNotFound(characteristic:uuid:service:)`` when the service has
    /// no such characteristic, and otherwise as ``GATTClient/read(_:of:)``.
    public func read<Value, Described>(_ descriptor: GATTDescriptor<Value>, of characteristic: Characteristic<Described>)
        async throws -> Value
    {
        try await client.read(descriptor, of: remote(characteristic), name: characteristic.name)
    }

    /// Writes a descriptor of one of the service's characteristics; throws as
    /// ``GATTClient/write(_:to:of:)``, and
    /// ``GATTError/characteristicNotFound(characteristic:uuid:service:)`` when the service has
    /// no such characteristic.
    public func write<Value, Described>(_ value: Value, to descriptor: GATTDescriptor<Value>,
                                        of characteristic: Characteristic<Described>) async throws
    {
        try await client.write(value, to: descriptor, of: remote(characteristic), name: characteristic.name)
    }

    /// Whether the client has notifications or indications of `characteristic` turned on; see
    /// ``GATTClient/isNotifying(_:)``. `false` when the service has no such characteristic.
    public func isNotifying<Value>(_ characteristic: Characteristic<Value>) async -> Bool {
        guard let remote = characteristic.find(in: characteristics) else { return false }
        return await client.isNotifying(remote)
    }
}
