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
    /// `Codable` and the caller knows its type, else as ``RemoteCallError``).
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
            let substitutions = try Self.substitutions(of: definition, on: hosted.actor)
            // The runtime decodes as many arguments as the method takes; more would go unread.
            let expected = _getParameterCount(mangledMethodName: definition.target)
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
    static func substitutions(of definition: MethodDefinition, on actor: any PeripheralActor) throws -> [Any.Type] {
        var types: [Any.Type] = []
        for name in definition.substitutions {
            guard let type = _typeByName(name) else {
                throw BLEActorSystemError.unknownMethod("\(definition.target): the generic argument \(name) is not a type known here")
            }
            types.append(type)
        }
        let context: String
        if let first = types.first, first is any _DistributedActorStub.Type {
            guard types.count == 1 else {
                throw BLEActorSystemError.unsupportedCall(.genericProtocolMethod)
            }
            context = definition.substitutions[0]
            // Executed with the concrete type as `Self`, the runtime checks that the actor
            // conforms to the protocol (a stub call aimed at another actor type is refused).
            types[0] = type(of: actor)
        } else {
            context = _mangledTypeName(type(of: actor)) ?? ""
        }
        guard !context.isEmpty, definition.target.hasPrefix("$s" + context) else {
            throw BLEActorSystemError.unknownMethod("\(definition.target) (it belongs to another type than \(type(of: actor)))")
        }
        return types
    }
}
