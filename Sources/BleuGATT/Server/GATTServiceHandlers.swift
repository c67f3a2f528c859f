import BleuCore
import Foundation

/// The typed handlers of a service a ``GATTServer`` hosts: what to answer when a central reads
/// a characteristic, and what to do with a value it writes.
///
/// A handler receives values already decoded and validated: a write that is too short, too
/// long or out of range is answered with the ATT error its codec names (0x0D, 0x13, or a
/// service's application error) and never reaches the handler. A handler refuses a value by
/// throwing an ``/BleuCore/ATTError`` — usually an application error (0x80–0x9F) the service
/// defines; any other error is answered with ``/BleuCore/ATTError/unlikelyError``.
///
/// ```swift
/// let hosted = try await server.host(HeartRateService.self) { handlers in
///     handlers.onRead(HeartRateService.bodySensorLocation) { _ in .chest }
///     handlers.onWrite(HeartRateService.controlPoint) { command, central in energy.reset() }
/// }
/// ```
public struct GATTServiceHandlers: Sendable {
    /// Answers a read: the value's bytes, or throws.
    typealias ReadHandler = @Sendable (_ central: UUID) async throws -> Data
    /// Calls the handler with a decoded value.
    typealias WriteCall = @Sendable (_ central: UUID) async throws -> Void
    /// Decodes a written value into the call of the handler, or the ``GATTCodecError`` that
    /// says why it does not decode. (A `Result`, not a typed-throwing closure returning a
    /// closure: that shape crashes this toolchain's SILGen.)
    typealias WriteHandler = @Sendable (_ data: Data) -> Result<WriteCall, GATTCodecError>

    var readers: [BluetoothUUID: ReadHandler] = [:]
    var writers: [BluetoothUUID: WriteHandler] = [:]

    /// No handlers yet: reads get the last value set, writes are refused.
    public init() {}

    /// Answers every read of `characteristic` with the value `handler` returns for the
    /// central. Without a read handler, reads get the last value written, notified or set
    /// with ``HostedService/setValue(_:for:)``.
    public mutating func onRead<Value>(_ characteristic: Characteristic<Value>,
                                       _ handler: @escaping @Sendable (_ central: UUID) async throws -> Value) {
        readers[characteristic.uuid] = { central in
            let value = try await handler(central)
            do throws(GATTCodecError) {
                return try characteristic.encode(value)
            } catch {
                throw GATTError.encodingFailed(error)
            }
        }
    }

    /// Gives every valid value a central writes to `characteristic`, with or without
    /// response, to `handler`. Invalid values are answered for you and not passed on.
    public mutating func onWrite<Value>(_ characteristic: Characteristic<Value>,
                                        _ handler: @escaping @Sendable (_ value: Value, _ central: UUID) async throws -> Void) {
        writers[characteristic.uuid] = { data in
            do throws(GATTCodecError) {
                let value = try characteristic.decode(data)
                return .success { central in try await handler(value, central) }
            } catch {
                return .failure(error)
            }
        }
    }

    /// Accepts every valid value a central writes to `characteristic` without a handler of
    /// your own: the value becomes what reads without a read handler get. (A writable
    /// characteristic with no write handler at all answers writes with
    /// ``/BleuCore/ATTError/writeNotPermitted``: the server has no codec to validate them with.)
    public mutating func acceptWrites<Value>(_ characteristic: Characteristic<Value>) {
        onWrite(characteristic) { _, _ in }
    }

    /// Checks that every handler belongs to a characteristic of `declaration` that allows it.
    func validate(against declaration: ServiceDeclaration) throws(BleuError) {
        for uuid in readers.keys {
            guard let declared = declaration.characteristic(uuid) else {
                throw .invalidState(.handlerForUndeclared(uuid, .read))
            }
            guard declared.properties.contains(.read) else {
                throw .invalidState(.handlerNotAllowed(uuid, .read, declared.properties))
            }
            guard declared.value == nil else {
                throw .invalidState(.handlerForStaticValue(uuid))
            }
        }
        for uuid in writers.keys {
            guard let declared = declaration.characteristic(uuid) else {
                throw .invalidState(.handlerForUndeclared(uuid, .write))
            }
            guard !declared.properties.isDisjoint(with: [.write, .writeWithoutResponse]) else {
                throw .invalidState(.handlerNotAllowed(uuid, .write, declared.properties))
            }
        }
    }
}
