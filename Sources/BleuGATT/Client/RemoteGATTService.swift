import BleuCore
import Foundation

/// A service discovered on a peripheral, with the characteristics discovery found: read,
/// write and subscribe to them as their Swift types (or as bytes, for characteristics the
/// catalogue does not know). Made by ``GATTClient/discover(_:)-(Service.Type)``.
public struct RemoteGATTService: Sendable {
    /// The client the service was discovered with.
    public let client: GATTClient
    /// The service as the radio discovered it.
    public let service: RemoteService
    /// The name errors use: the SIG's name, the service type's name, or the UUID.
    public let name: String
    /// The characteristics discovered.
    public let characteristics: [RemoteCharacteristic]

    /// A service from its parts; usually made by ``GATTClient/discover(_:)-(Service.Type)``.
    public init(client: GATTClient, service: RemoteService, name: String, characteristics: [RemoteCharacteristic]) {
        self.client = client
        self.service = service
        self.name = name
        self.characteristics = characteristics
    }

    // MARK: Finding

    /// The discovered characteristic that is `characteristic`. Throws
    /// ``GATTError/characteristicNotFound(characteristic:uuid:service:)`` when the peripheral
    /// does not host it.
    public func remote<Value>(_ characteristic: Characteristic<Value>) throws(GATTError) -> RemoteCharacteristic {
        try remote(characteristic.uuid, name: characteristic.name)
    }

    /// Whether the peripheral hosts `characteristic` in this service.
    public func contains<Value>(_ characteristic: Characteristic<Value>) -> Bool {
        characteristic.find(in: characteristics) != nil
    }

    private func remote(_ uuid: BluetoothUUID, name: String) throws(GATTError) -> RemoteCharacteristic {
        guard let found = characteristics.first(where: { $0.uuid == uuid }) else {
            throw .characteristicNotFound(characteristic: name, uuid: uuid, service: self.name)
        }
        return found
    }

    // MARK: Typed values

    /// Reads a characteristic as its type. Throws ``GATTError/notPermitted(characteristic:operation:properties:)``
    /// when it is not readable, ``GATTError/decodingFailed(_:)`` (saying what was expected and
    /// what came) when the peripheral's bytes are not a valid value, or the radio's ``/BleuCore/BleuError``.
    public func read<Value>(_ characteristic: Characteristic<Value>) async throws -> Value {
        let remote = try remote(characteristic)
        guard remote.properties.contains(.read) else {
            throw GATTError.notPermitted(characteristic: characteristic.name, operation: .read, properties: remote.properties)
        }
        let data = try await client.central.read(remote)
        do {
            return try characteristic.decode(data)
        } catch {
            throw GATTError.decodingFailed(error)
        }
    }

    /// Writes a value of a characteristic's type. `type` defaults to a write with response
    /// when the characteristic allows one, else without. A write without response waits
    /// while the radio's send queue is full (flow control) rather than failing. Throws
    /// ``GATTError/encodingFailed(_:)`` for a value the layout cannot carry (nothing is sent),
    /// ``GATTError/notPermitted(characteristic:operation:properties:)`` when the
    /// characteristic does not allow the write type, or the radio's ``/BleuCore/BleuError`` —
    /// ``/BleuCore/BleuError/att(_:)`` with the peripheral's answer to a value it refused.
    public func write<Value>(_ value: Value, to characteristic: Characteristic<Value>, type: WriteType? = nil) async throws {
        let remote = try remote(characteristic)
        let data: Data
        do {
            data = try characteristic.encode(value)
        } catch {
            throw GATTError.encodingFailed(error)
        }
        try await write(data, to: remote, name: characteristic.name, type: type)
    }

    /// Subscribes to a characteristic's notifications (or indications) and returns its values,
    /// decoded. The stream ends with ``GATTError/decodingFailed(_:)`` at the first value that
    /// does not decode, with the radio's error when the link drops, and normally on
    /// ``unsubscribe(from:)-(Characteristic<Value>)``. When the consumer stops iterating, or the stream
    /// ends, the peripheral is told to stop sending (once no other typed stream of this
    /// client wants the values). Values are decoded as the consumer asks for them: nothing
    /// is buffered beyond the radio's own bounded stream, so a slow consumer holds the link
    /// back. One consumer per stream.
    public func subscribe<Value>(to characteristic: Characteristic<Value>) async throws -> AsyncThrowingStream<Value, any Error> {
        let remote = try remote(characteristic)
        return try await subscribe(remote, name: characteristic.name) { data throws(GATTCodecError) in
            try characteristic.decode(data)
        }
    }

    /// Turns off a characteristic's notifications; every stream of its values ends, and
    /// ``isNotifying(_:)`` becomes `false`.
    public func unsubscribe<Value>(from characteristic: Characteristic<Value>) async throws {
        try await unsubscribe(remote(characteristic))
    }

    // MARK: Bytes

    /// Reads the bytes of a discovered characteristic, for characteristics without a type.
    public func read(_ uuid: BluetoothUUID) async throws -> Data {
        let remote = try remote(uuid, name: uuid.name ?? uuid.uuidString)
        guard remote.properties.contains(.read) else {
            throw GATTError.notPermitted(characteristic: uuid.name ?? uuid.uuidString, operation: .read, properties: remote.properties)
        }
        return try await client.central.read(remote)
    }

    /// Writes bytes to a discovered characteristic, with the same choice of write type and
    /// flow control as the typed ``write(_:to:type:)-(Value,Characteristic<Value>,_)``.
    public func write(_ data: Data, to uuid: BluetoothUUID, type: WriteType? = nil) async throws {
        let name = uuid.name ?? uuid.uuidString
        try await write(data, to: remote(uuid, name: name), name: name, type: type)
    }

    /// Subscribes to the bytes of a discovered characteristic's notifications or indications.
    public func subscribe(to uuid: BluetoothUUID) async throws -> AsyncThrowingStream<Data, any Error> {
        let name = uuid.name ?? uuid.uuidString
        return try await subscribe(remote(uuid, name: name), name: name) { data throws(GATTCodecError) in data }
    }

    /// Turns off a characteristic's notifications; every stream of its values ends.
    public func unsubscribe(from uuid: BluetoothUUID) async throws {
        try await unsubscribe(remote(uuid, name: uuid.name ?? uuid.uuidString))
    }

    // MARK: Shared

    /// Turns notifications off; a peripheral no longer connected has none to turn off.
    private func unsubscribe(_ remote: RemoteCharacteristic) async throws {
        do {
            try await client.central.unsubscribe(from: remote)
        } catch let error as BleuError {
            switch error {
            case .notConnected, .disconnected: client.notificationsStopped(remote)
            default: break
            }
            throw error
        }
        client.notificationsStopped(remote)
    }

    private func write(_ data: Data, to remote: RemoteCharacteristic, name: String, type: WriteType?) async throws {
        if type == nil, remote.properties.isDisjoint(with: [.write, .writeWithoutResponse]) {
            throw GATTError.notPermitted(characteristic: name, operation: .write, properties: remote.properties)
        }
        let type = type ?? (remote.properties.contains(.write) ? .withResponse : .withoutResponse)
        switch type {
        case .withResponse:
            guard remote.properties.contains(.write) else {
                throw GATTError.notPermitted(characteristic: name, operation: .write, properties: remote.properties)
            }
            try await client.central.write(data, to: remote, type: .withResponse)
        case .withoutResponse:
            guard remote.properties.contains(.writeWithoutResponse) else {
                throw GATTError.notPermitted(characteristic: name, operation: .writeWithoutResponse, properties: remote.properties)
            }
            try await client.writeWithoutResponse(data, to: remote)
        }
    }

    private func subscribe<Value: Sendable>(_ remote: RemoteCharacteristic, name: String,
                                            decode: @escaping @Sendable (Data) throws(GATTCodecError) -> Value)
        async throws -> AsyncThrowingStream<Value, any Error>
    {
        guard !remote.properties.isDisjoint(with: [.notify, .indicate]) else {
            throw GATTError.notPermitted(characteristic: name, operation: .subscribe, properties: remote.properties)
        }
        let client = client
        await client.subscriptionOpening(remote)
        let raw: AsyncThrowingStream<Data, any Error>
        do {
            raw = try await client.central.subscribe(to: remote)
            client.subscriptionStarted(remote)
        } catch {
            client.subscriptionEnded(remote)
            throw error
        }
        let values = DecodedValues(raw, decode: decode) { client.subscriptionEnded(remote) }
        return AsyncThrowingStream { try await values.next() }
    }
}
