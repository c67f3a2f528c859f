import BleuCore
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
    /// The first argument that could not be decoded: the runtime hands the error to the result
    /// handler as if the method had thrown it, so the host reads it here to log the refusal.
    let failure = Locked<BLEActorSystemError?>(nil)

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
            throw refuse(.malformedRequest(.argumentCount(carried: arguments.count, expected: nil)))
        }
        defer { next += 1 }
        do {
            return try decoder.decode(Argument.self, from: arguments[next])
        } catch {
            throw refuse(.malformedRequest(.argumentType(index: next, expected: "\(Argument.self)")))
        }
    }

    private func refuse(_ error: BLEActorSystemError) -> BLEActorSystemError {
        failure.withLock { $0 = $0 ?? error }
        return error
    }

    public mutating func decodeErrorType() throws -> Any.Type? { nil }

    public mutating func decodeReturnType() throws -> Any.Type? { nil }
}
