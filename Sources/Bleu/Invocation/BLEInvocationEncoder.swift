import BleuWire
import Distributed

/// Records a call on a remote actor for ``BLEActorSystem``: generic substitutions by mangled
/// type name, each argument as one CBOR item. The distributed runtime drives it.
public struct BLEInvocationEncoder: DistributedTargetInvocationEncoder {
    public typealias SerializationRequirement = Codable

    var substitutions: [String] = []
    var arguments: [[UInt8]] = []
    /// Whether the first substitution was a `@Resolvable` stub (`$P`): the call goes through a protocol.
    private var throughStub = false
    private let encoder: CBOREncoder

    init(encoder: CBOREncoder) {
        self.encoder = encoder
    }

    public mutating func recordGenericSubstitution<T>(_ type: T.Type) throws {
        if substitutions.isEmpty, type is any _DistributedActorStub.Type {
            throughStub = true
        } else if throughStub {
            // Measured on Swift 6.3: executing a generic method of a @Resolvable protocol
            // through its stub crashes the receiving process. Refuse before anything is sent.
            throw BLEActorSystemError.unsupportedCall(.genericProtocolMethod)
        }
        guard let name = _mangledTypeName(type) else {
            throw BLEActorSystemError.serialization(.genericArgument(type: "\(type)"))
        }
        substitutions.append(name)
    }

    public mutating func recordArgument<Value: Codable>(_ argument: RemoteCallArgument<Value>) throws {
        do {
            arguments.append(try encoder.encodeBytes(argument.value))
        } catch {
            throw BLEActorSystemError.serialization(.argument(label: argument.label ?? argument.name, reason: "\(error)"))
        }
    }

    public mutating func recordErrorType<E: Error>(_ type: E.Type) throws {}

    public mutating func recordReturnType<R: Codable>(_ type: R.Type) throws {}

    public mutating func doneRecording() throws {}
}
