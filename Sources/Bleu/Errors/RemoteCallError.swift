/// An error a remote distributed method threw whose type the caller does not rebuild: it is not
/// `Codable`, or the caller does not accept its type — the method does not declare it (typed
/// throws) and the caller's ``BLEActorSystem/Configuration/remoteTypes`` does not register it
/// (see ``RemoteTypeRegistry``). It keeps the type's name and the error's description.
public struct RemoteCallError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The remote error's type, as `String(reflecting:)` prints it (`MyModule.SensorFault`).
    public var typeName: String
    /// The remote error's description (`String(describing:)`).
    public var message: String

    /// An error with this type name and message.
    public init(typeName: String, message: String) {
        self.typeName = typeName
        self.message = message
    }

    public var description: String {
        "The remote method threw \(typeName): \(message). To receive it as itself, make the error type Codable and register it in the caller's Configuration.remoteTypes."
    }
}

/// Errors of the actor system's own protocol, as the caller receives them. The peripheral
/// sends them as replies, so a bad request always gets an answer.
public enum BLEActorSystemError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The peripheral has no distributed method with this (mangled) name on the actor, the
    /// method belongs to another actor type, or one of the call's generic arguments is not
    /// registered in the hosting system's ``BLEActorSystem/Configuration/remoteTypes``.
    case unknownMethod(String)
    /// A call named a method id the connection never defined.
    case unknownMethodID(UInt32)
    /// No actor with this identifier is hosted or known.
    case actorNotFound(UUID)
    /// The peripheral refused the request, for this reason.
    case malformedRequest(RequestProblem)
    /// The caller already has this many calls running on the actor.
    case tooManyConcurrentCalls(limit: Int)
    /// A message exceeded the maximum message size.
    case messageTooLarge(size: Int, maximum: Int)
    /// The runtime cannot execute this call shape (generic methods of `@Resolvable` protocols).
    case unsupportedCall(UnsupportedCall)
    /// An argument or result could not be encoded or decoded.
    case serialization(SerializationFailure)
    /// The peripheral stopped hosting the actor with this id (``BLEActorSystem/stopAdvertising()``)
    /// while the call or stream ran, or before it arrived.
    case hostingStopped(UUID)
    /// The peripheral cancelled the stream with this id: its source was cancelled there.
    case cancelledByPeripheral(stream: UInt32)
    /// ``BLEActorSystem/withActorID(_:_:)`` was given an id a live actor of the system already
    /// has (or the body created no actor with it).
    case actorIDInUse(UUID)
    /// An actor type's ``PeripheralActor/serviceMetadata`` cannot be hosted, for this reason.
    case invalidServiceMetadata(type: String, MetadataProblem)

    public var description: String {
        switch self {
        case .unknownMethod(let name): "The remote actor has no distributed method \(name). Update both sides to the same build."
        case .unknownMethodID(let id): "The remote side does not know method id \(id); reconnect to reset the connection."
        case .actorNotFound(let id): "No actor \(id) is hosted or was discovered. Discover it, or advertise it on the peripheral."
        case .malformedRequest(let reason): "A malformed request was refused: \(reason)."
        case .tooManyConcurrentCalls(let limit): "Too many concurrent calls (limit \(limit)); wait for some to finish."
        case .messageTooLarge(let size, let maximum): "A message of \(size) bytes exceeds the maximum of \(maximum); send less data per call."
        case .unsupportedCall(let reason): "Unsupported call: \(reason)."
        case .serialization(let reason): "Serialization failed: \(reason)."
        case .hostingStopped(let id): "The peripheral stopped hosting actor \(id); discover it again once it is advertised."
        case .cancelledByPeripheral(let stream): "The peripheral cancelled the source of stream \(stream); start the stream again if it is still needed."
        case .invalidServiceMetadata(let type, let problem): "The service metadata of \(type) cannot be hosted: \(problem). Fix the type's serviceMetadata."
        case .actorIDInUse(let id): "Actor id \(id) is already in use on this system (or the actor created was not given it); release the old actor first, or choose another id."
        }
    }
}

import Foundation
