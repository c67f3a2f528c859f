import BleuCore

/// What a device keeps of a pairing with a peer so that later links encrypt without pairing
/// again: the key to encrypt with, how strong it is, and the peer's identity and signing keys.
///
/// Its `description` never shows a key.
public struct Bond: Hashable, Sendable, CustomStringConvertible {
    /// The peer: its identity address when it distributed one, else the address it paired from.
    public var peer: PairingAddress
    /// The role this device had on the link it paired on (the central encrypts; the peripheral
    /// answers the controller's LTK requests).
    public var localRole: PairingSession.Role
    /// The key later links are encrypted with: Secure Connections' LTK, or legacy pairing's
    /// LTK distributed by the peripheral (with its EDIV and Rand).
    public var longTermKey: LongTermKey
    public var secureConnections: Bool
    /// Whether the key is protected against a man in the middle.
    public var authenticated: Bool
    /// The key size, in octets.
    public var keySize: Int
    /// The peer's identity resolving key: resolves the private addresses it uses later.
    public var peerResolvingKey: [UInt8]?
    /// The peer's CSRK (signed writes it sends).
    public var peerSigningKey: [UInt8]?
    /// This device's CSRK given to the peer.
    public var localSigningKey: [UInt8]?

    /// A bond; each parameter sets the property of the same name.
    public init(peer: PairingAddress, localRole: PairingSession.Role, longTermKey: LongTermKey, secureConnections: Bool,
                authenticated: Bool, keySize: Int, peerResolvingKey: [UInt8]? = nil, peerSigningKey: [UInt8]? = nil,
                localSigningKey: [UInt8]? = nil) {
        self.peer = peer
        self.localRole = localRole
        self.longTermKey = longTermKey
        self.secureConnections = secureConnections
        self.authenticated = authenticated
        self.keySize = keySize
        self.peerResolvingKey = peerResolvingKey
        self.peerSigningKey = peerSigningKey
        self.localSigningKey = localSigningKey
    }

    /// The bond a finished pairing leaves, or `nil` when it leaves none: one side did not ask to
    /// bond, or a legacy pairing distributed no LTK for later links.
    ///
    /// - Parameters:
    ///   - outcome: The finished pairing.
    ///   - localRole: This device's role in it.
    ///   - address: The address the peer paired from (used when it distributed no identity).
    public init?(_ outcome: PairingOutcome, localRole: PairingSession.Role, peerAddress address: PairingAddress) {
        guard outcome.bonded else { return nil }
        let key: LongTermKey?
        if let secure = outcome.secureConnectionsKey {
            key = secure
        } else {
            // Legacy: the peripheral's distributed LTK encrypts later links.
            key = localRole == .initiator ? outcome.peer.longTermKey : outcome.local.longTermKey
        }
        guard let key else { return nil }
        self.init(peer: outcome.peer.identity?.address ?? address, localRole: localRole, longTermKey: key,
                  secureConnections: outcome.secureConnections, authenticated: outcome.authenticated, keySize: outcome.keySize,
                  peerResolvingKey: outcome.peer.identity?.resolvingKey, peerSigningKey: outcome.peer.signatureKey,
                  localSigningKey: outcome.local.signatureKey)
    }

    public var description: String {
        "bond with \(peer) as \(localRole == .initiator ? "central" : "peripheral"): "
            + "\(secureConnections ? "Secure Connections" : "legacy"), \(authenticated ? "authenticated" : "unauthenticated"), "
            + "\(keySize)-octet key\(peerResolvingKey != nil ? ", resolves its private addresses" : "")"
    }
}

extension Bond: Codable {
    private enum CodingKeys: String, CodingKey {
        case address, addressType, localRole, longTermKey, ediv, rand, secureConnections, authenticated, keySize
        case peerResolvingKey, peerSigningKey, localSigningKey
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .address)
        guard let address = BluetoothAddress(string: text) else {
            throw DecodingError.dataCorruptedError(forKey: .address, in: c, debugDescription: "not a device address: \(text)")
        }
        peer = PairingAddress(type: AddressType(rawValue: try c.decode(UInt8.self, forKey: .addressType)), address: address)
        switch try c.decode(String.self, forKey: .localRole) {
        case "central": localRole = .initiator
        case "peripheral": localRole = .responder
        case let other: throw DecodingError.dataCorruptedError(forKey: .localRole, in: c, debugDescription: "no role \(other)")
        }
        longTermKey = LongTermKey(key: try Self.key(c, .longTermKey), ediv: try c.decode(UInt16.self, forKey: .ediv),
                                  rand: try c.decode(UInt64.self, forKey: .rand))
        secureConnections = try c.decode(Bool.self, forKey: .secureConnections)
        authenticated = try c.decode(Bool.self, forKey: .authenticated)
        keySize = try c.decode(Int.self, forKey: .keySize)
        peerResolvingKey = try Self.optionalKey(c, .peerResolvingKey)
        peerSigningKey = try Self.optionalKey(c, .peerSigningKey)
        localSigningKey = try Self.optionalKey(c, .localSigningKey)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(peer.address.description, forKey: .address)
        try c.encode(peer.type.rawValue, forKey: .addressType)
        try c.encode(localRole == .initiator ? "central" : "peripheral", forKey: .localRole)
        try c.encode(hexString(longTermKey.key), forKey: .longTermKey)
        try c.encode(longTermKey.ediv, forKey: .ediv)
        try c.encode(longTermKey.rand, forKey: .rand)
        try c.encode(secureConnections, forKey: .secureConnections)
        try c.encode(authenticated, forKey: .authenticated)
        try c.encode(keySize, forKey: .keySize)
        try c.encodeIfPresent(peerResolvingKey.map { hexString($0) }, forKey: .peerResolvingKey)
        try c.encodeIfPresent(peerSigningKey.map { hexString($0) }, forKey: .peerSigningKey)
        try c.encodeIfPresent(localSigningKey.map { hexString($0) }, forKey: .localSigningKey)
    }

    /// A 16-octet key written as 32 hexadecimal digits.
    private static func key(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> [UInt8] {
        try octets(of: try c.decode(String.self, forKey: key), c, key)
    }

    /// A key that may be absent (`nil`), else as ``key(_:_:)``.
    private static func optionalKey(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> [UInt8]? {
        try c.decodeIfPresent(String.self, forKey: key).map { try octets(of: $0, c, key) }
    }

    private static func octets(of text: String, _ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> [UInt8] {
        guard let octets = decodeHex(text), octets.count == 16 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not a 16-octet key")
        }
        return octets
    }
}
