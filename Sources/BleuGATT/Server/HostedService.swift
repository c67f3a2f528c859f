import BleuCore
import Foundation

/// A service a ``GATTServer`` hosts: send typed values to subscribers, set the value reads
/// get, see who subscribed, remove it.
public struct HostedService: Sendable {
    /// The server hosting it.
    public let server: GATTServer
    /// The service as the radio published it, with its handles.
    public let published: PublishedService
    /// The name errors use.
    public let name: String

    /// The published characteristic that is `characteristic`. Throws
    /// ``GATTError/characteristicNotFound(characteristic:uuid:service:)`` when the service does not host it.
    public func published<Value>(_ characteristic: Characteristic<Value>) throws(GATTError) -> PublishedCharacteristic {
        guard let found = published.characteristic(characteristic.uuid) else {
            throw .characteristicNotFound(characteristic: characteristic.name, uuid: characteristic.uuid, service: name)
        }
        return found
    }

    /// Sends a value to the centrals subscribed to `characteristic` (all, or those listed): a
    /// notification or an indication, as each central subscribed. Once sent, the value becomes
    /// what reads without a read handler get. When the radio's notification queue is full this waits for
    /// its ready event and tries again, so values are never dropped and never pile up: the
    /// caller is held back instead. Throws ``GATTError/encodingFailed(_:)`` for a value the
    /// layout cannot carry, ``GATTError/notPermitted(characteristic:operation:properties:)``
    /// when the characteristic neither notifies nor indicates, the radio's unavailable state
    /// when it powers off while waiting, or `CancellationError`.
    public func notify<Value>(_ characteristic: Characteristic<Value>, _ value: Value, to centrals: [UUID]? = nil) async throws {
        let target = try published(characteristic)
        guard !target.properties.isDisjoint(with: [.notify, .indicate]) else {
            throw GATTError.notPermitted(characteristic: characteristic.name, operation: .notify, properties: target.properties)
        }
        let data = try encode(value, characteristic)
        try await server.send(data, for: target, to: centrals)
        server.setValue(data, handle: target.valueHandle)
    }

    /// Sets the value reads of `characteristic` get when it has no read handler, without
    /// notifying anyone.
    public func setValue<Value>(_ value: Value, for characteristic: Characteristic<Value>) throws {
        let target = try published(characteristic)
        server.setValue(try encode(value, characteristic), handle: target.valueHandle)
    }

    /// The centrals subscribed to `characteristic` now.
    public func subscribers<Value>(of characteristic: Characteristic<Value>) -> Set<UUID> {
        guard let target = try? published(characteristic) else { return [] }
        return server.subscribers(of: target.valueHandle)
    }

    /// Removes the service from the peripheral; its handlers are dropped.
    public func remove() async throws {
        server.unregister(published)
        try await server.peripheral.remove(published)
    }

    private func encode<Value>(_ value: Value, _ characteristic: Characteristic<Value>) throws(GATTError) -> Data {
        do {
            return try characteristic.encode(value)
        } catch {
            throw .encodingFailed(error)
        }
    }
}
