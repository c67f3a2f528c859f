/// The engine's tables are keyed by these names rather than bare integers, so a link cannot be
/// looked up with a channel's number, nor a central with a peripheral's. Each is allocated by
/// the table that owns it, counting up from 1 on each bus.

/// A central device on the bus (a ``CentralNode``), stable across the managers that restore it.
struct CentralKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    let rawValue: Int
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    var description: String { "central \(rawValue)" }
}

/// A peripheral device on the bus (a ``PeripheralNode``).
struct PeripheralKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    let rawValue: Int
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    var description: String { "peripheral \(rawValue)" }
}

/// A connection between a central and a peripheral (a ``Link``); the number the trace shows.
struct LinkID: Hashable, Comparable, Sendable, CustomStringConvertible {
    let rawValue: Int
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    var description: String { "link \(rawValue)" }
}

/// An L2CAP credit-based channel (a ``BusChannel``).
struct ChannelID: Hashable, Comparable, Sendable, CustomStringConvertible {
    let rawValue: Int
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    var description: String { "channel \(rawValue)" }
}

/// A value stream the engine feeds (a ``ValueStream``): a subscription, a scan, a channel's input.
struct StreamID: Hashable, Comparable, Sendable, CustomStringConvertible {
    let rawValue: Int
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    var description: String { "stream \(rawValue)" }
}

/// Which end of an L2CAP channel.
enum ChannelSide: Int, Sendable, CaseIterable {
    /// The end of the central that opened the channel.
    case central = 0
    /// The end of the peripheral that published the PSM.
    case peripheral = 1

    /// The other end.
    var peer: ChannelSide { self == .central ? .peripheral : .central }
}
