/// The engine's tables are keyed by these names rather than bare integers, so a link cannot be
/// looked up with a channel's number, nor a central with a peripheral's. Each is allocated by
/// the table that owns it (``KeyedTable``), counting up from 1 on each bus.
struct TableKey<Kind: TableKeyKind>: Hashable, Comparable, Sendable, CustomStringConvertible {
    let rawValue: Int
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    var description: String { "\(Kind.name) \(rawValue)" }
}

/// What a ``TableKey`` names; the name is what the trace and logs call it.
protocol TableKeyKind {
    static var name: String { get }
}

/// A central device on the bus (a ``CentralNode``), stable across the managers that restore it.
typealias CentralKey = TableKey<CentralKind>
enum CentralKind: TableKeyKind { static let name = "central" }

/// A peripheral device on the bus (a ``PeripheralNode``).
typealias PeripheralKey = TableKey<PeripheralKind>
enum PeripheralKind: TableKeyKind { static let name = "peripheral" }

/// A connection between a central and a peripheral (a ``Link``); the number the trace shows.
typealias LinkID = TableKey<LinkKind>
enum LinkKind: TableKeyKind { static let name = "link" }

/// An L2CAP credit-based channel (a ``BusChannel``).
typealias ChannelID = TableKey<ChannelKind>
enum ChannelKind: TableKeyKind { static let name = "channel" }

/// A value stream the engine feeds (a ``ValueStream``): a subscription, a scan, a channel's input.
typealias StreamID = TableKey<StreamKind>
enum StreamKind: TableKeyKind { static let name = "stream" }

/// Which end of an L2CAP channel.
enum ChannelSide: Int, Sendable, CaseIterable {
    /// The end of the central that opened the channel.
    case central = 0
    /// The end of the peripheral that published the PSM.
    case peripheral = 1

    /// The other end.
    var peer: ChannelSide { self == .central ? .peripheral : .central }

    /// The direction this end sends in.
    var sending: RadioSchedule.Direction { self == .central ? .centralToPeripheral : .peripheralToCentral }

    /// The end that receives what travels in `direction`.
    init(receiving direction: RadioSchedule.Direction) {
        self = direction == .centralToPeripheral ? .peripheral : .central
    }
}
