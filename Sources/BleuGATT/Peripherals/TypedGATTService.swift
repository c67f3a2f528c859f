import BleuCore
import Foundation

/// A discovered service as its ``GATTService`` type: its characteristics are reached by key
/// path on the type (`\.level` for ``BatteryService/level``), read and written as their values.
///
/// ```swift
/// let level = try await strap.battery?.read(\.level)          // UInt8
/// try await thermostat.write(2150, to: \.target)
/// for try await measurement in try await strap.heartRate.updates(\.measurement) { … }
/// ```
///
/// Errors are those of ``RemoteGATTService``: ``GATTError`` for what the typed layer refuses
/// or cannot decode, the radio's ``/BleuCore/BleuError`` otherwise.
public struct TypedGATTService<Service: GATTService>: Sendable {
    /// The service as discovered, for bytes and for what the type does not declare.
    public let remote: RemoteGATTService
    /// Streams of the subscriptions made as the device connected, not yet taken.
    let opened: OpenedSubscriptions

    init(remote: RemoteGATTService, opened: OpenedSubscriptions) {
        self.remote = remote
        self.opened = opened
    }

    /// The client the service was discovered with.
    public var client: GATTClient { remote.client }

    /// The characteristics discovered in this service that `Service` does not declare (only a
    /// discovery of ``PeripheralDiscoveryScope/everything`` looks for them): reach them as bytes
    /// through ``remote`` (``RemoteGATTService/read(_:)-(BluetoothUUID)``), or as values with a
    /// `Characteristic` you declare for them at run time (``RemoteGATTService/read(_:)-(Characteristic<Value>)``).
    public var undeclaredCharacteristics: [RemoteCharacteristic] {
        let declared = Set(Service.declaration.characteristicUUIDs)
        return remote.characteristics.filter { !declared.contains($0.uuid) }
    }

    /// Whether the peripheral hosts the characteristic in this service.
    public func contains<Value>(_ characteristic: KeyPath<Service.Type, Characteristic<Value>>) -> Bool {
        remote.contains(Service.self[keyPath: characteristic])
    }

    /// Reads a characteristic as its value; see ``RemoteGATTService/read(_:)-(Characteristic<Value>)``.
    public func read<Value>(_ characteristic: KeyPath<Service.Type, Characteristic<Value>>) async throws -> Value {
        try await remote.read(Service.self[keyPath: characteristic])
    }

    /// Writes a value; see ``RemoteGATTService/write(_:to:type:)-(Value,Characteristic<Value>,_)``.
    public func write<Value>(_ value: Value, to characteristic: KeyPath<Service.Type, Characteristic<Value>>,
                             type: WriteType? = nil) async throws {
        try await remote.write(value, to: Service.self[keyPath: characteristic], type: type)
    }

    /// The characteristic's values as the peripheral notifies or indicates them. For a
    /// characteristic the peripheral type subscribes to as it connects, the first call returns
    /// that subscription's stream, holding every value since the connection; later calls (and
    /// calls for other characteristics) subscribe anew, as
    /// ``RemoteGATTService/subscribe(to:)-(Characteristic<Value>)`` does. One consumer per stream.
    ///
    /// A declared subscription's values wait for this call: take its stream soon after
    /// connecting, as the radio's buffer for it is bounded and a full one holds the link back.
    public func updates<Value>(_ characteristic: KeyPath<Service.Type, Characteristic<Value>>) async throws
        -> AsyncThrowingStream<Value, any Error> {
        try await updates(Service.self[keyPath: characteristic])
    }

    /// ``updates(_:)`` for the characteristic itself.
    func updates<Value>(_ characteristic: Characteristic<Value>) async throws -> AsyncThrowingStream<Value, any Error> {
        if let stream = opened.take(characteristic.uuid, as: Value.self) { return stream }
        return try await remote.subscribe(to: characteristic)
    }

    /// Turns the characteristic's notifications off; every stream of its values ends.
    public func unsubscribe<Value>(from characteristic: KeyPath<Service.Type, Characteristic<Value>>) async throws {
        try await remote.unsubscribe(from: Service.self[keyPath: characteristic])
    }

    /// Whether the peripheral notifies (or indicates) this client of the characteristic now:
    /// CoreBluetooth's `isNotifying`.
    public func isNotifying<Value>(_ characteristic: KeyPath<Service.Type, Characteristic<Value>>) async -> Bool {
        await remote.isNotifying(Service.self[keyPath: characteristic])
    }

    /// Reads a descriptor of a characteristic as its value.
    public func read<Value, Described>(_ descriptor: GATTDescriptor<Value>,
                                       of characteristic: KeyPath<Service.Type, Characteristic<Described>>) async throws -> Value {
        try await remote.read(descriptor, of: Service.self[keyPath: characteristic])
    }

    /// Writes a descriptor of a characteristic.
    public func write<Value, Described>(_ value: Value, to descriptor: GATTDescriptor<Value>,
                                        of characteristic: KeyPath<Service.Type, Characteristic<Described>>) async throws {
        try await remote.write(value, to: descriptor, of: Service.self[keyPath: characteristic])
    }
}

/// The typed streams of the subscriptions a connection made, until each is taken. Dropping a
/// stream not taken ends its subscription.
final class OpenedSubscriptions: Sendable {
    private let streams: Locked<[BluetoothUUID: any Sendable]>

    init() {
        streams = Locked([:])
    }

    /// Keeps the stream of `uuid`'s subscription until it is taken.
    func add(_ uuid: BluetoothUUID, _ stream: any Sendable) {
        streams.withLock { $0[uuid] = stream }
    }

    /// The stream of `uuid`'s subscription, once.
    func take<Value>(_ uuid: BluetoothUUID, as: Value.Type) -> AsyncThrowingStream<Value, any Error>? {
        streams.withLock { streams in
            guard let stream = streams[uuid] as? AsyncThrowingStream<Value, any Error> else { return nil }
            streams[uuid] = nil
            return stream
        }
    }

    /// Ends every subscription whose stream was not taken.
    func endAll() {
        let dropped = streams.withLock { streams in
            defer { streams = [:] }
            return streams
        }
        _ = dropped  // released here, outside the lock: each stream's end unsubscribes
    }
}
