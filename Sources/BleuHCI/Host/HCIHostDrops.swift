import BleuCore

/// What an ``HCIHost`` dropped from its controller, counted by cause: nothing is lost without
/// being counted under its own name (and told to ``HCIHost/observeDrops(_:)``).
public struct HCIHostDrops: Sendable, Hashable {
    /// Why something was dropped.
    public enum Cause: String, Sendable, Hashable, CaseIterable {
        /// An event or ACL packet that could not be decoded, or ACL fragments that did not reassemble.
        case malformed
        /// A packet type the host does not take from a controller, an answer no command waits
        /// for, or completions beyond what was sent.
        case unexpected
        /// An inbound item the consumer of ``HCIHost/inbound`` did not take in time (its buffer was full).
        case inboundOverflow
    }

    public var malformed = 0
    public var unexpected = 0
    public var inboundOverflow = 0

    public init() {}

    /// The count of one cause.
    public subscript(cause: Cause) -> Int {
        switch cause {
        case .malformed: malformed
        case .unexpected: unexpected
        case .inboundOverflow: inboundOverflow
        }
    }

    mutating func count(_ cause: Cause) {
        switch cause {
        case .malformed: malformed += 1
        case .unexpected: unexpected += 1
        case .inboundOverflow: inboundOverflow += 1
        }
    }
}
