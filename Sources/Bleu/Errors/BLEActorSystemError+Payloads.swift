import BleuCore
import Foundation

extension BLEActorSystemError {
    /// What was wrong with the bytes of an actor-system message: which field, and how
    /// (``RequestProblem/message(_:)``). Field names are those of `Docs/ActorSystemProtocol.md`.
    public enum MessageProblem: Error, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The message kind byte names no kind of this protocol.
        case unknownKind(UInt8)
        /// The message ends inside `field`.
        case truncated(field: String)
        /// Bytes follow the last field of a message that has none after it.
        case trailingBytes(after: String)
        /// `field` announces `length` bytes, over its `maximum`.
        case tooLong(field: String, length: Int, maximum: Int)
        /// `field` is not valid UTF-8.
        case notUTF8(field: String)
        /// The varint in `field` does not fit 32 bits.
        case varintOverflow(field: String)
        /// A definition carries `count` generic substitutions, over the `maximum`.
        case tooManySubstitutions(count: Int, maximum: Int)

        public var description: String {
            switch self {
            case .unknownKind(let kind): "unknown message kind 0x\(hex2(kind))"
            case .truncated(let field): "the message ends inside its \(field)"
            case .trailingBytes(let field): "bytes follow the \(field)"
            case .tooLong(let field, let length, let maximum): "the \(field) of \(length) bytes exceeds \(maximum)"
            case .notUTF8(let field): "the \(field) is not UTF-8"
            case .varintOverflow(let field): "the \(field) does not fit 32 bits"
            case .tooManySubstitutions(let count, let maximum): "\(count) generic substitutions exceed \(maximum)"
            }
        }
    }

    /// Why a request was refused (``BLEActorSystemError/malformedRequest(_:)``).
    public enum RequestProblem: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The request's bytes do not read as a message.
        case message(MessageProblem)
        /// A fragment of the request broke the wire format, or the reassembled message failed
        /// its CRC-32.
        case corruptFragment
        /// The peripheral already holds this many incomplete messages from the central.
        case tooManyMessagesInFlight(limit: Int)
        /// The peripheral already reassembles messages from this many centrals.
        case tooManyPeers(limit: Int)
        /// No actor is hosted on the call characteristic with this value handle.
        case noActorOnHandle(UInt16)
        /// The connection already defined this many methods, the peripheral's limit.
        case tooManyMethods(limit: Int)
        /// A call with this id is already running on the connection.
        case callIDInUse(UInt32)
        /// The call carries `carried` arguments; the method takes `expected` (`nil`: more than
        /// were carried, when the runtime does not say how many).
        case argumentCount(carried: Int, expected: Int?)
        /// Argument `index` (from 0) does not decode as the method's `expected` type.
        case argumentType(index: Int, expected: String)
        /// The peer refused a request of kind `requestKind` and said why (its own words).
        case refusedByPeer(requestKind: UInt8, reason: String)
        /// The peer answered a call with a reply of this kind, which does not answer a call.
        case unexpectedReply(kind: UInt8)

        public var description: String {
            switch self {
            case .message(let problem): "\(problem)"
            case .corruptFragment: "a fragment broke the wire format or the message failed its checksum"
            case .tooManyMessagesInFlight(let limit): "\(limit) incomplete messages are already held"
            case .tooManyPeers(let limit): "messages from \(limit) centrals are already being reassembled"
            case .noActorOnHandle(let handle): "no actor is hosted on characteristic handle 0x\(hex4(handle))"
            case .tooManyMethods(let limit): "more than \(limit) methods defined on one connection"
            case .callIDInUse(let id): "call id \(id) is already running"
            case .argumentCount(let carried, let expected?): "the call carries \(carried) arguments; the method takes \(expected)"
            case .argumentCount(let carried, nil): "the call carries \(carried) arguments; the method takes more"
            case .argumentType(let index, let expected): "argument \(index) is not a \(expected)"
            case .refusedByPeer(let kind, let reason): "the peer refused a request of kind 0x\(hex2(kind)): \(reason)"
            case .unexpectedReply(let kind): "the peer answered with a reply of kind 0x\(hex2(kind))"
            }
        }
    }

    /// Why the runtime cannot make a call (``BLEActorSystemError/unsupportedCall(_:)``).
    public enum UnsupportedCall: Sendable, Hashable, Codable, CustomStringConvertible {
        /// A generic distributed method declared in a `@Resolvable` protocol, called through the
        /// protocol: the Swift runtime cannot execute it. Call it on the concrete actor type.
        case genericProtocolMethod
        /// The actor with this id is a local actor of type `actual`, not the `requested` type.
        case localActorType(UUID, actual: String, requested: String)

        public var description: String {
            switch self {
            case .genericProtocolMethod:
                "generic distributed methods declared in a @Resolvable protocol cannot be called through the protocol "
                    + "(the Swift runtime cannot execute them); resolve the concrete actor type and call the method on it"
            case .localActorType(let id, let actual, let requested): "actor \(id) is a local \(actual), not a \(requested)"
            }
        }
    }

    /// What could not be encoded or decoded (``BLEActorSystemError/serialization(_:)``). Each
    /// case names the value and type; `reason` is the codec's own account.
    public enum SerializationFailure: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The caller could not encode the argument with this label.
        case argument(label: String, reason: String)
        /// The type has no mangled name, so it cannot be a generic argument of a call.
        case genericArgument(type: String)
        /// The peripheral could not encode the method's result of this type.
        case result(type: String, reason: String)
        /// The caller could not decode the result of `method` as `expected`.
        case resultValue(method: String, expected: String, reason: String)
        /// `method` returned nothing where a `expected` was expected.
        case missingResult(method: String, expected: String)
        /// A stream element did not decode as `expected`.
        case streamElement(expected: String, reason: String)

        public var description: String {
            switch self {
            case .argument(let label, let reason): "argument \(label): \(reason)"
            case .genericArgument(let type): "the type \(type) has no mangled name, so it cannot be a generic argument"
            case .result(let type, let reason): "the result \(type) could not be encoded: \(reason)"
            case .resultValue(let method, let expected, let reason): "the result of \(method) is not a \(expected): \(reason)"
            case .missingResult(let method, let expected): "\(method) returned nothing; a \(expected) was expected"
            case .streamElement(let expected, let reason): "a stream element is not a \(expected): \(reason)"
            }
        }
    }

    /// Why an actor type's ``ServiceMetadata`` cannot be hosted.
    public enum MetadataProblem: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Two characteristics have the same role.
        case roleListedTwice(CharacteristicMetadata.Role)
        /// Two characteristics have the same UUID.
        case uuidUsedTwice(BluetoothUUID)
        /// A characteristic lacks properties its role needs.
        case missingProperties(CharacteristicMetadata.Role, CharacteristicProperties)
        /// A characteristic lacks the access its role needs.
        case missingPermissions(CharacteristicMetadata.Role, AttributePermissions)

        public var description: String {
            switch self {
            case .roleListedTwice(let role): "two characteristics have the role \(role)"
            case .uuidUsedTwice(let uuid): "two characteristics have the UUID \(uuid)"
            case .missingProperties(let role, let needed): "the \(role) characteristic needs the properties 0x\(hex2(needed.rawValue))"
            case .missingPermissions(let role, let needed): "the \(role) characteristic needs the permissions 0x\(String(needed.rawValue, radix: 16))"
            }
        }
    }
}
