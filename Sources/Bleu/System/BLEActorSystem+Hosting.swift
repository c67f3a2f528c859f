import BleuCore
import Distributed
import Foundation
import Logging

extension BLEActorSystem {
    /// Hosts actors and advertises them: each actor type becomes a GATT service (and so does
    /// every protocol in its ``PeripheralActor/discoverableAs``), each carrying the actor's id.
    /// Call again to host more; the advertisement then covers them all.
    ///
    /// Throws ``/BleuCore/BleuError/notSupported(_:)`` when the system has no peripheral manager,
    /// and what the backend throws for adding services or advertising.
    public func startAdvertising(_ actors: any PeripheralActor...) async throws {
        try await startAdvertising(actors)
    }

    /// Hosts and advertises these actors; see ``startAdvertising(_:)-(PeripheralActor...)``.
    public func startAdvertising(_ actors: [any PeripheralActor]) async throws {
        guard let host else { throw BleuError.notSupported(.noPeripheralRole) }
        for actor in actors where actor.actorSystem !== self {
            throw BleuError.invalidState(.foreignActor)
        }
        try await host.host(actors)
    }

    /// Stops advertising and stops hosting every advertised actor. Calls running on them are
    /// cancelled and answered with ``BLEActorSystemError/hostingStopped(_:)``, their streams end
    /// with that error; once the replies went out (or the call timeout passed) the services are
    /// removed, so centrals can no longer call the actors.
    public func stopAdvertising() async {
        await host?.stopHosting()
    }

    /// Ends every stream `actor` is producing, for every central, without stopping the actor:
    /// each source's iteration is cancelled and each caller's iteration ends after the elements
    /// already sent — normally, or by throwing `error` when one is given (as itself when it is
    /// `Codable` and registered in the caller's ``Configuration/remoteTypes``, else as
    /// ``RemoteCallError``).
    public func endStreams(of actor: some PeripheralActor, throwing error: (any Error)? = nil) async {
        await host?.endStreams(of: actor.id, ending: error.map { .failure($0) } ?? .finished)
    }

    /// Runs one request on the hosted actor through the distributed runtime.
    func execute(_ hosted: PeripheralHost.Hosted, _ definition: MethodDefinition, arguments: [[UInt8]], callID: UInt32,
                 key: PeripheralHost.SessionKey, replied: Locked<Bool>) async {
        guard let host else { return }
        let streams = StreamRegistrar { try host.allocateStream(key: key) }
        let handler = BLEResultHandler(callID: callID, encoder: configuration.encoder, streams: streams, replied: replied,
                                       startStreams: { host.startStreams($0, replied: $1, key: key) },
                                       send: { reply in await host.send(reply, key: key) })
        do {
            let substitutions: [Any.Type]
            let expected: Int32
            let actorType = type(of: hosted.actor)
            if definition.substitutions.isEmpty, let known = checkedTargets.parameterCount(of: definition.target, on: actorType) {
                // Checked on an earlier call: demangling the target again would cost more than the call.
                (substitutions, expected) = ([], known)
            } else {
                substitutions = try Self.substitutions(of: definition, on: hosted.actor, registry: configuration.remoteTypes)
                expected = _getParameterCount(mangledMethodName: definition.target)
                if definition.substitutions.isEmpty, expected >= 0 {
                    checkedTargets.remember(definition.target, on: actorType, parameterCount: expected)
                }
            }
            // The runtime decodes as many arguments as the method takes; more would go unread.
            if expected >= 0, arguments.count != Int(expected) {
                throw BLEActorSystemError.malformedRequest(.argumentCount(carried: arguments.count, expected: Int(expected)))
            }
            var decoder = BLEInvocationDecoder(substitutions: substitutions, arguments: arguments, decoder: configuration.decoder)
            try await executeDistributedTarget(on: hosted.actor, target: RemoteCallTarget(definition.target),
                                               invocationDecoder: &decoder, handler: handler)
            if let refusal = decoder.failure.withLock({ $0 }) {
                configuration.logger.warning("call \(callID) from \(key.central) failed before the method ran: \(refusal)")
            }
        } catch {
            let refusal: any Error
            switch error {
            case let error as BLEActorSystemError: refusal = error
            case let error as ExecuteDistributedTargetError:
                refusal = BLEActorSystemError.unknownMethod("\(definition.target) (\(error.message))")
            default: refusal = error
            }
            configuration.logger.warning("call \(callID) from \(key.central) failed before the method ran: \(refusal)")
            await handler.deliver(BLEResultHandler.reply(to: refusal, id: callID, encoder: configuration.encoder))
        }
    }

    /// The call's generic substitutions as types, after checking that the target belongs to the
    /// actor: a method of its own type, or (through a `@Resolvable` stub) a non-generic
    /// protocol method. Anything else is refused rather than handed to the runtime.
    ///
    /// A substitution is a type the central chose. Other than a `@Resolvable` stub (which is
    /// replaced by the actor's own type), each must be registered in `registry` (the hosting
    /// system's ``Configuration/remoteTypes`` and the built-in types); an unregistered one is
    /// refused with ``BLEActorSystemError/unknownMethod(_:)`` and the method does not run, so a
    /// central cannot choose, say, which `Decodable` type an argument is decoded as.
    static func substitutions(of definition: MethodDefinition, on actor: any PeripheralActor,
                              registry: RemoteTypeRegistry) throws -> [Any.Type] {
        let names = definition.substitutions
        // A call through a `@Resolvable` protocol's stub carries the stub type `$Proto` as its
        // substitution, and its target is a method of that stub. Recognising it needs the
        // stub's metadata, so this is the one name a peer sends that is resolved with
        // `_typeByName`. It cannot be abused to run code or decode anything: it is resolved only
        // when the target is a method of the type it names, looking a name up only instantiates
        // type metadata (bounded by the name's maximum length; no initializer runs), and the
        // resolved type is only tested for the stub conformance and then discarded — the actor's
        // own type replaces it, and the runtime checks that the actor conforms to the protocol
        // (a stub call aimed at another actor type is refused). A name that does not resolve to
        // a stub goes through the registry like any other.
        if let first = names.first, definition.target.hasPrefix("$s" + first),
           let named = _typeByName(first), named is any _DistributedActorStub.Type {
            guard names.count == 1 else {
                throw BLEActorSystemError.unsupportedCall(.genericProtocolMethod)
            }
            return [type(of: actor)]
        }
        let context = _mangledTypeName(type(of: actor)) ?? ""
        guard !context.isEmpty, definition.target.hasPrefix("$s" + context) else {
            throw BLEActorSystemError.unknownMethod("\(definition.target) (it belongs to another type than \(type(of: actor)))")
        }
        return try names.map { name in
            guard let type = registry.type(named: name) else {
                throw BLEActorSystemError.unknownMethod(
                    "\(definition.target): its generic argument \(name) is not registered in the hosting system's remoteTypes")
            }
            return type
        }
    }
}

/// Targets of non-generic methods already checked against a hosted actor type (the target is
/// one of the type's methods) with the number of arguments each takes, so a method's later
/// calls skip demangling its name. Bounded: a central can name only so many targets that pass
/// the check, and past the bound targets are checked every time.
final class CheckedTargets: Sendable {
    private struct Key: Hashable {
        var actorType: ObjectIdentifier
        var target: String
    }

    /// More than any actor type has methods; bounds what hostile centrals can make it hold.
    static let limit = 1024
    private let entries = Locked<[Key: Int32]>([:])

    func parameterCount(of target: String, on actorType: any PeripheralActor.Type) -> Int32? {
        let key = Key(actorType: ObjectIdentifier(actorType), target: target)
        return entries.withLock { $0[key] }
    }

    func remember(_ target: String, on actorType: any PeripheralActor.Type, parameterCount: Int32) {
        let key = Key(actorType: ObjectIdentifier(actorType), target: target)
        entries.withLock { entries in
            if entries.count < Self.limit { entries[key] = parameterCount }
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
