extension BleuError {
    /// Which configured or specified limit was reached, and its value (``BleuError/limitReached(_:)``).
    public enum Limit: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The radio or central already holds this many connections.
        case connections(Int)
        /// This many operations are already queued on one link.
        case queuedOperations(Int)
        /// Every dynamic LE PSM (0x0080–0x00FF) is published.
        case dynamicPSMs
        /// Every LE channel identifier on the connection is in use.
        case channelIdentifiers
        /// The peer has no resources for another L2CAP channel (result 0x0004).
        case peerChannelResources
        /// The GATT database holds this many attributes, its capacity.
        case attributes(Int)
        /// This many streams are open for one central on one actor.
        case streamsPerActor(Int)
        /// This many distinct methods were called on one connection.
        case methodsPerConnection(Int)
        /// The platform's Bluetooth stack reported a limit (connections, paired devices).
        case platform(PlatformError)

        public var description: String {
            switch self {
            case .connections(let count): "\(count) connections are open"
            case .queuedOperations(let count): "\(count) operations are queued on the link"
            case .dynamicPSMs: "every dynamic PSM (0x0080–0x00FF) is published"
            case .channelIdentifiers: "every LE channel identifier on this connection is in use"
            case .peerChannelResources: "the peripheral has no resources for another L2CAP channel"
            case .attributes(let capacity): "the GATT database is full (\(capacity) attributes)"
            case .streamsPerActor(let count): "\(count) streams are open for one central on one actor"
            case .methodsPerConnection(let count): "\(count) distinct methods were called on one connection"
            case .platform(let error): "\(error)"
            }
        }
    }

    /// Which bounded buffer filled because its consumer fell behind (``BleuError/bufferOverflow(_:)``).
    public enum OverflowedBuffer: Sendable, Hashable, Codable, CustomStringConvertible {
        /// A value stream of this characteristic held `limit` values its consumer did not read.
        case values(of: BluetoothUUID, limit: Int)
        /// A remote stream's producer sent more than the `credit` elements it was granted.
        case streamCredit(Int)
        /// The platform's Bluetooth stack ran out of space.
        case platform(PlatformError)

        public var description: String {
            switch self {
            case .values(let uuid, let limit): "the value stream of \(uuid) held \(limit) values its consumer did not read"
            case .streamCredit(let credit): "a stream's producer sent more than the \(credit) elements it had credit for"
            case .platform(let error): "\(error)"
            }
        }
    }
}
