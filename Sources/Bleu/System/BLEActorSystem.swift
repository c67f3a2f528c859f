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
/// messages (`Docs/ActorSystemProtocol.md`). A remote error arrives as itself only when the
/// method declares its type (typed throws) or the caller registered it, and a generic method
/// runs only with registered type arguments (``RemoteTypeRegistry``); types a peer names are
/// never looked up anywhere else.
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
    private let local = Locked(LocalActors())
    /// Methods already checked against the hosted actor types, and how many arguments each takes.
    let checkedTargets = CheckedTargets()

    private struct LocalActor {
        weak var actor: (any DistributedActor)?
    }

    private struct LocalActors {
        var actors: [UUID: LocalActor] = [:]
        /// Ids chosen with ``BLEActorSystem/withActorID(_:_:)`` whose actor is being created.
        var reserved: Set<UUID> = []
    }

    /// An id chosen for the next actor this system creates in the current task.
    private final class ChosenID: Sendable {
        let id: UUID
        let system: ObjectIdentifier
        private let taken = Locked(false)

        init(id: UUID, system: ObjectIdentifier) {
            self.id = id
            self.system = system
        }

        /// The id, the first time only.
        func take() -> UUID? {
            taken.withLock { taken in
                defer { taken = true }
                return taken ? nil : id
            }
        }
    }

    @TaskLocal private static var chosenID: ChosenID?

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
        if let actor = local.withLock({ $0.actors[id]?.actor }) {
            guard let typed = actor as? Act else {
                throw BLEActorSystemError.unsupportedCall(.localActorType(id, actual: "\(type(of: actor))", requested: "\(actorType)"))
            }
            return typed
        }
        if let client, let peripheralType = actorType as? any PeripheralActor.Type {
            try client.register(peripheralType)
            client.expect(id, service: ActorServiceLayout.serviceUUID(for: peripheralType))
        }
        return nil
    }

    public func assignID<Act>(_ actorType: Act.Type) -> UUID where Act: DistributedActor, Act.ID == UUID {
        if let chosen = Self.chosenID, chosen.system == ObjectIdentifier(self), let id = chosen.take() { return id }
        return UUID()
    }

    public func actorReady<Act>(_ actor: Act) where Act: DistributedActor, Act.ID == UUID {
        local.withLock { $0.actors[actor.id] = LocalActor(actor: actor) }
    }

    public func resignID(_ id: UUID) {
        _ = local.withLock { $0.actors.removeValue(forKey: id) }
    }

    /// Creates a local actor with an identifier of your choosing: the first actor of this
    /// system that `make` creates gets `id`. An app that saves its actors' ids and creates them
    /// again with the same ids after a restart keeps every central's saved id working.
    ///
    /// ```swift
    /// let sensor = try system.withActorID(savedID) { Thermometer(actorSystem: system) }
    /// ```
    ///
    /// - Throws: ``BLEActorSystemError/actorIDInUse(_:)`` when a live actor of this system
    ///   already has `id` (or another `withActorID` is creating one with it), or when `make`
    ///   returned an actor with another id (it created that one first, or on another system).
    public func withActorID<Act>(_ id: UUID, _ make: () throws -> Act) throws -> Act where Act: DistributedActor, Act.ID == UUID {
        try local.withLock { table in
            if table.actors[id]?.actor != nil || table.reserved.contains(id) { throw BLEActorSystemError.actorIDInUse(id) }
            table.reserved.insert(id)
        }
        defer { _ = local.withLock { $0.reserved.remove(id) } }
        let actor = try Self.$chosenID.withValue(ChosenID(id: id, system: ObjectIdentifier(self))) { try make() }
        guard actor.id == id else { throw BLEActorSystemError.actorIDInUse(id) }
        return actor
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
            throw remoteError(reply, declared: Err.self)
        }
    }

    public func remoteCallVoid<Act, Err>(on actor: Act, target: RemoteCallTarget, invocation: inout BLEInvocationEncoder,
                                         throwing: Err.Type) async throws
    where Act: DistributedActor, Act.ID == UUID, Err: Error {
        switch try await call(actor.id, target, invocation).0 {
        case .void, .value:
            return
        case let reply:
            throw remoteError(reply, declared: Err.self)
        }
    }

    /// Sends a call once and waits for its reply. Waiting for the actor's link counts against
    /// the call's timeout (``Configuration/CallPolicy``); a call that never left this device
    /// because its link dropped first is sent on the next link, one already written never again.
    private func call(_ id: UUID, _ target: RemoteCallTarget, _ invocation: BLEInvocationEncoder) async throws -> (Reply, ClientChannel) {
        guard let client else {
            throw BleuError.notSupported(.noCentralRole)
        }
        let definition = MethodDefinition(target: target.identifier, substitutions: invocation.substitutions)
        let timeout = Self.callTimeoutOverride ?? configuration.callTimeout
        let deadline = client.clock.now() + timeout
        // The readable name is demangled from the target, which costs more than the rest of a
        // call's set-up: only an error or a log line asks for it.
        let identifier = target.identifier
        let method: @Sendable () -> String = { "\(RemoteCallTarget(identifier))" }
        let failFast = configuration.links.callPolicy == .failFast
        let timedOut: @Sendable () -> any Error = { BleuError.timeout(.remoteCall(method: method()), after: timeout) }
        do {
            while true {
                let channel = try await client.channel(for: id, until: deadline, failFast: failFast, timeout: timedOut)
                let remaining = deadline - client.clock.now()
                guard remaining > .zero else { throw timedOut() }
                do {
                    let reply = try await channel.call(definition, arguments: invocation.arguments, timeout: remaining,
                                                       budget: timeout, method: method)
                    return (reply, channel)
                } catch let notSent as ClientChannel.CallNotSent {
                    if failFast { throw notSent.cause }
                    configuration.logger.debug("call \(method()) on \(id) was not sent before its link dropped; sending it on the next link")
                }
            }
        } catch {
            client.callFailed(id, error)
            throw error
        }
    }

    /// The error a reply carries: as its own type when it is `Codable` and either `declared` (the
    /// method's typed-throws error type; `any Error` and `Never` declare nothing) or registered
    /// in ``Configuration/remoteTypes``, else as ``RemoteCallError``.
    private func remoteError<Err: Error>(_ reply: Reply, declared: Err.Type) -> any Error {
        switch reply {
        case .error(_, let payload), .streamError(_, let payload):
            return ErrorEnvelope.rebuild(payload, decoder: configuration.decoder, registry: configuration.remoteTypes,
                                         declared: declared as? any (Error & Decodable).Type)
        case .remoteError(_, let typeName, let message), .streamFailed(_, let typeName, let message):
            return RemoteCallError(typeName: typeName, message: message)
        case .refused(_, let request, let reason):
            return BLEActorSystemError.malformedRequest(.refusedByPeer(requestKind: request, reason: reason))
        default:
            return BLEActorSystemError.malformedRequest(.unexpectedReply(kind: reply.kind.rawValue))
        }
    }
}
