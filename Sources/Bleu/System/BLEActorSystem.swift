import BleuCore
import BleuWire
import Distributed
import Foundation
import Logging

/// A distributed actor system over Bluetooth LE: actors hosted on a peripheral, called from
/// centrals as if they were local.
///
/// ```swift
/// // peripheral
/// let peripheralSystem = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: bus))
/// try await peripheralSystem.startAdvertising(MyThermometer(actorSystem: peripheralSystem))
/// // central
/// let centralSystem = BLEActorSystem(centralManager: EmulatedCentralManager(bus: bus))
/// let sensors = try await centralSystem.discover(MyThermometer.self, timeout: 10)
/// let t = try await sensors[0].getTemperature()
/// ```
///
/// Any radio backend works (today the emulator and the HCI host stack). A system with a
/// peripheral manager hosts actors; one with a central manager calls them; one with both
/// does both. Systems share nothing: create as many as you like. Actor identifiers are
/// `UUID`s; arguments, results and errors are `Codable` and travel as CBOR in compact-framed
/// messages (`Docs/ActorSystemProtocol.md`).
public final class BLEActorSystem: DistributedActorSystem, Sendable {
    public typealias ActorID = UUID
    public typealias InvocationEncoder = BLEInvocationEncoder
    public typealias InvocationDecoder = BLEInvocationDecoder
    public typealias ResultHandler = BLEResultHandler
    public typealias SerializationRequirement = Codable

    /// The limits, timeouts, clock and logger in force.
    public let configuration: Configuration
    let host: PeripheralHost?
    let client: CentralClient?
    private let local = Locked<[UUID: LocalActor]>([:])

    private struct LocalActor {
        weak var actor: (any DistributedActor)?
    }

    /// The per-call timeout in force for the current task, when ``withCallTimeout(_:operation:)`` set one.
    @TaskLocal static var callTimeoutOverride: Duration?

    /// A system on these radio managers; pass a peripheral manager to host actors, a central
    /// manager to call remote ones, or both.
    public init(peripheralManager: (any PeripheralManager)? = nil, centralManager: (any CentralManager)? = nil,
                configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.host = peripheralManager.map { PeripheralHost(manager: $0, configuration: configuration) }
        self.client = centralManager.map { CentralClient(manager: $0, configuration: configuration) }
        host?.setRunner { [weak self] hosted, definition, arguments, id, key, replied in
            await self?.execute(hosted, definition, arguments: arguments, callID: id, key: key, replied: replied)
        }
    }

    /// Runs `operation` with a different timeout for the remote calls it makes.
    public static func withCallTimeout<T>(_ timeout: Duration, operation: () async throws -> T) async rethrows -> T {
        try await $callTimeoutOverride.withValue(timeout, operation: operation)
    }

    // MARK: DistributedActorSystem

    public func resolve<Act>(id: UUID, as actorType: Act.Type) throws -> Act? where Act: DistributedActor, Act.ID == UUID {
        if let actor = local.withLock({ $0[id]?.actor }) {
            guard let typed = actor as? Act else {
                throw BLEActorSystemError.unsupportedCall(.localActorType(id, actual: "\(type(of: actor))", requested: "\(actorType)"))
            }
            return typed
        }
        if let client, let peripheralType = actorType as? any PeripheralActor.Type {
            client.expect(id, service: ActorServiceLayout.serviceUUID(for: peripheralType))
        }
        return nil
    }

    public func assignID<Act>(_ actorType: Act.Type) -> UUID where Act: DistributedActor, Act.ID == UUID {
        UUID()
    }

    public func actorReady<Act>(_ actor: Act) where Act: DistributedActor, Act.ID == UUID {
        local.withLock { $0[actor.id] = LocalActor(actor: actor) }
    }

    public func resignID(_ id: UUID) {
        _ = local.withLock { $0.removeValue(forKey: id) }
    }

    public func makeInvocationEncoder() -> BLEInvocationEncoder {
        BLEInvocationEncoder(encoder: configuration.encoder)
    }

    public func remoteCall<Act, Err, Res>(on actor: Act, target: RemoteCallTarget, invocation: inout BLEInvocationEncoder,
                                          throwing: Err.Type, returning: Res.Type) async throws -> Res
    where Act: DistributedActor, Act.ID == UUID, Err: Error, Res: Codable {
        let (reply, channel) = try await call(actor.id, target, invocation)
        switch reply {
        case .value(_, let bytes):
            do {
                return try CBORDecoder(userInfo: [.bleuStreamReceiver: channel]).decode(Res.self, from: bytes)
            } catch {
                throw BLEActorSystemError.serialization(.resultValue(method: "\(target)", expected: "\(Res.self)", reason: "\(error)"))
            }
        case .void:
            throw BLEActorSystemError.serialization(.missingResult(method: "\(target)", expected: "\(Res.self)"))
        case let reply:
            throw remoteError(reply)
        }
    }

    public func remoteCallVoid<Act, Err>(on actor: Act, target: RemoteCallTarget, invocation: inout BLEInvocationEncoder,
                                         throwing: Err.Type) async throws
    where Act: DistributedActor, Act.ID == UUID, Err: Error {
        switch try await call(actor.id, target, invocation).0 {
        case .void, .value:
            return
        case let reply:
            throw remoteError(reply)
        }
    }

    private func call(_ id: UUID, _ target: RemoteCallTarget, _ invocation: BLEInvocationEncoder) async throws -> (Reply, ClientChannel) {
        guard let client else {
            throw BleuError.notSupported(.noCentralRole)
        }
        let channel = try await client.channel(for: id)
        let definition = MethodDefinition(target: target.identifier, substitutions: invocation.substitutions)
        let timeout = Self.callTimeoutOverride ?? configuration.callTimeout
        let reply = try await channel.call(definition, arguments: invocation.arguments, timeout: timeout, clock: configuration.clock,
                                           method: "\(target)")
        return (reply, channel)
    }

    /// The error a reply carries, as its own type when it is `Codable` and known here.
    private func remoteError(_ reply: Reply) -> any Error {
        switch reply {
        case .error(_, let payload), .streamError(_, let payload):
            return ErrorEnvelope.rebuild(payload, decoder: configuration.decoder)
        case .remoteError(_, let typeName, let message), .streamFailed(_, let typeName, let message):
            return RemoteCallError(typeName: typeName, message: message)
        case .refused(_, let request, let reason):
            return BLEActorSystemError.malformedRequest(.refusedByPeer(requestKind: request, reason: reason))
        default:
            return BLEActorSystemError.malformedRequest(.unexpectedReply(kind: reply.kind.rawValue))
        }
    }
}
