import BleuCore

/// What the host learned about its controller during start-up.
public struct ControllerInfo: Hashable, Sendable {
    public var version: LocalVersionInformation?
    public var address: BluetoothAddress
    /// LMP features (Read Local Supported Features).
    public var features: UInt64
    /// LE features (LE Read Local Supported Features); bit 12 is LE Extended Advertising.
    public var leFeatures: UInt64
    /// The longest ACL data the controller buffers per packet.
    public var aclDataPacketLength: Int
    /// How many ACL packets the controller buffers at once.
    public var totalNumACLDataPackets: Int

    public init(version: LocalVersionInformation? = nil, address: BluetoothAddress = .zero, features: UInt64 = 0,
                leFeatures: UInt64 = 0, aclDataPacketLength: Int = 27, totalNumACLDataPackets: Int = 1) {
        self.version = version
        self.address = address
        self.features = features
        self.leFeatures = leFeatures
        self.aclDataPacketLength = aclDataPacketLength
        self.totalNumACLDataPackets = totalNumACLDataPackets
    }

    /// Whether the controller supports LE extended advertising (LE feature bit 12).
    public var supportsExtendedAdvertising: Bool { leFeatures & (1 << 12) != 0 }
}

extension HCIHost {
    /// The events the host asks the controller to report (Set Event Mask, Core Spec Vol 4 Part E
    /// §7.3.1): Disconnection Complete (bit 4), Encryption Change (7), Read Remote Version
    /// Complete (11), Hardware Error (15), Data Buffer Overflow (25), Encryption Key Refresh
    /// Complete (47), LE Meta (61).
    public static let eventMask: UInt64 = [4, 7, 11, 15, 25, 47, 61].reduce(0) { $0 | 1 << $1 }

    /// The LE subevents the host asks for (LE Set Event Mask, §7.8.1): Connection Complete (bit 0),
    /// Advertising Report (1), Connection Update Complete (2), Read Remote Features Complete (3),
    /// Long Term Key Request (4), Remote Connection Parameter Request (5), Data Length Change (6),
    /// Enhanced Connection Complete (9), PHY Update Complete (11), Extended Advertising Report
    /// (12), Advertising Set Terminated (17), Channel Selection Algorithm (19).
    public static let leEventMask: UInt64 = [0, 1, 2, 3, 4, 5, 6, 9, 11, 12, 17, 19].reduce(0) { $0 | 1 << $1 }
}
