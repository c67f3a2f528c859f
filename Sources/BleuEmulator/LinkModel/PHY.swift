/// The LE physical layer a connection uses (Core Spec Vol 6 Part A §3 and Part B §2.1).
public enum PHY: String, Sendable, Hashable, Codable, CaseIterable {
    /// LE 1M: 1 Mb/s, a 1-byte preamble.
    case le1M
    /// LE 2M: 2 Mb/s, a 2-byte preamble.
    case le2M
    /// LE Coded with S = 2 coding: 500 kb/s for the PDU, a long coded preamble.
    case leCodedS2
    /// LE Coded with S = 8 coding: 125 kb/s for the PDU, the longest range.
    case leCodedS8

    /// A short name for keys and tables: `1m`, `2m`, `coded-s2`, `coded-s8`.
    public var shortName: String {
        switch self {
        case .le1M: "1m"
        case .le2M: "2m"
        case .leCodedS2: "coded-s2"
        case .leCodedS8: "coded-s8"
        }
    }
}
