import BleuWire
import Distributed

/// Replays a recorded call on the hosting side for `executeDistributedTarget`: generic
/// substitutions from their mangled names, arguments from CBOR.
public struct BLEInvocationDecoder: DistributedTargetInvocationDecoder {
    public typealias SerializationRequirement = Codable

    private let substitutions: [Any.Type]
    private let arguments: [[UInt8]]
    private var next = 0
    private let decoder: CBORDecoder

    init(substitutions: [Any.Type], arguments: [[UInt8]], decoder: CBORDecoder) {
        self.substitutions = substitutions
        self.arguments = arguments
        self.decoder = decoder
    }

    public mutating func decodeGenericSubstitutions() throws -> [Any.Type] {
        substitutions
    }

    public mutating func decodeNextArgument<Argument: Codable>() throws -> Argument {
        guard next < arguments.count else {
            throw BLEActorSystemError.malformedRequest("the call carries \(arguments.count) arguments; the method takes more")
        }
        defer { next += 1 }
        do {
            return try decoder.decode(Argument.self, from: arguments[next])
        } catch {
            throw BLEActorSystemError.malformedRequest("argument \(next) is not a \(Argument.self): \(error)")
        }
    }

    public mutating func decodeErrorType() throws -> Any.Type? { nil }

    public mutating func decodeReturnType() throws -> Any.Type? { nil }

    /// Whether every argument the call carried was used.
    var consumedAllArguments: Bool { next == arguments.count }
}
