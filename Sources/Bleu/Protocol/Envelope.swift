/// A distributed method as the runtime names it: the mangled target name and the mangled names
/// of its generic substitutions. A central interns each one per connection (see ``Request``).
struct MethodDefinition: Sendable, Hashable {
    var target: String
    var substitutions: [String]
}

/// What a central sends on an actor's call characteristic. Layouts in
/// `Docs/ActorSystemProtocol.md`; every number is a ``Varint``.
enum Request: Sendable, Hashable {
    /// Calls a method the connection already interned under `method`.
    case call(id: UInt32, method: UInt32, arguments: [[UInt8]])
    /// Interns `definition` as `method` and calls it.
    case define(id: UInt32, method: UInt32, definition: MethodDefinition, arguments: [[UInt8]])
    /// The caller gave up on a call (timeout or cancellation); its reply is no longer wanted.
    case cancel(id: UInt32)
    /// The consumer of a stream stopped iterating.
    case cancelStream(stream: UInt32)
    /// The consumer has room for `credits` more elements of a stream.
    case streamCredit(stream: UInt32, credits: UInt32)

    enum Kind: UInt8 {
        case call = 0x01, define = 0x02, cancel = 0x03, cancelStream = 0x04, streamCredit = 0x05
    }

    /// Longest mangled name accepted in a definition.
    static let maximumNameLength = 1024
    /// Most generic substitutions accepted in a definition.
    static let maximumSubstitutions = 16

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        switch self {
        case .call(let id, let method, let arguments):
            bytes.reserveCapacity(1 + Varint.length(id) + Varint.length(method)
                                  + arguments.reduce(0) { $0 + Varint.length(UInt32($1.count)) + $1.count })
            bytes.append(Kind.call.rawValue)
            Varint.append(id, to: &bytes)
            Varint.append(method, to: &bytes)
            for argument in arguments { bytes.appendLengthPrefixed(argument) }
        case .define(let id, let method, let definition, let arguments):
            bytes.append(Kind.define.rawValue)
            Varint.append(id, to: &bytes)
            Varint.append(method, to: &bytes)
            bytes.appendLengthPrefixed(Array(definition.target.utf8))
            Varint.append(UInt32(definition.substitutions.count), to: &bytes)
            for substitution in definition.substitutions { bytes.appendLengthPrefixed(Array(substitution.utf8)) }
            for argument in arguments { bytes.appendLengthPrefixed(argument) }
        case .cancel(let id):
            bytes.append(Kind.cancel.rawValue)
            Varint.append(id, to: &bytes)
        case .cancelStream(let stream):
            bytes.append(Kind.cancelStream.rawValue)
            Varint.append(stream, to: &bytes)
        case .streamCredit(let stream, let credits):
            bytes.append(Kind.streamCredit.rawValue)
            Varint.append(stream, to: &bytes)
            Varint.append(credits, to: &bytes)
        }
        return bytes
    }

    /// Decodes a request; throws ``EnvelopeError`` for anything malformed. When the call id was
    /// read before the problem, the error carries it so the caller gets an answer.
    static func decode(_ bytes: [UInt8]) throws(EnvelopeError) -> Request {
        var reader = EnvelopeReader(bytes)
        let kind: Kind
        let id: UInt32
        do throws(MessageProblem) {
            let raw = try reader.byte("message kind")
            guard let known = Kind(rawValue: raw) else { throw .unknownKind(raw) }
            kind = known
            id = try reader.varint("call id")
        } catch {
            throw .beforeID(error)
        }
        do throws(MessageProblem) {
            switch kind {
            case .call:
                let method = try reader.varint("method id")
                return .call(id: id, method: method, arguments: try arguments(&reader))
            case .define:
                let method = try reader.varint("method id")
                let target = try reader.string("target name", maximum: maximumNameLength)
                let count = Int(try reader.varint("substitution count"))
                guard count <= maximumSubstitutions else {
                    throw .tooManySubstitutions(count: count, maximum: maximumSubstitutions)
                }
                var substitutions: [String] = []
                for _ in 0..<count { substitutions.append(try reader.string("substitution", maximum: maximumNameLength)) }
                return .define(id: id, method: method, definition: MethodDefinition(target: target, substitutions: substitutions),
                               arguments: try arguments(&reader))
            case .cancel:
                guard reader.isAtEnd else { throw .trailingBytes(after: "cancel") }
                return .cancel(id: id)
            case .cancelStream:
                guard reader.isAtEnd else { throw .trailingBytes(after: "stream cancel") }
                return .cancelStream(stream: id)
            case .streamCredit:
                let credits = try reader.varint("credits")
                guard reader.isAtEnd else { throw .trailingBytes(after: "stream credit") }
                return .streamCredit(stream: id, credits: credits)
            }
        } catch {
            throw .inCall(id, error)
        }
    }

    private static func arguments(_ reader: inout EnvelopeReader) throws(MessageProblem) -> [[UInt8]] {
        var arguments: [[UInt8]] = []
        while !reader.isAtEnd { arguments.append(try reader.bytes("argument \(arguments.count)", maximum: Int(UInt32.max))) }
        return arguments
    }
}

/// Why a request could not be read: the problem, and the call id when it was read before it
/// (so the caller gets an answer).
enum EnvelopeError: Error, Sendable, Hashable, CustomStringConvertible {
    case beforeID(MessageProblem)
    case inCall(UInt32, MessageProblem)

    var description: String {
        switch self {
        case .beforeID(let problem): "\(problem)"
        case .inCall(let id, let problem): "call \(id): \(problem)"
        }
    }
}

typealias MessageProblem = BLEActorSystemError.MessageProblem
