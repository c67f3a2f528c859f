/// Out-of-band pairing data (Core Spec Vol 3 Part H §2.3.5.6.4): what two devices exchange
/// outside Bluetooth — an NFC tap, a QR code — so that pairing is protected against a man in
/// the middle without a display or keyboard. Octets are written most significant first, as
/// this package writes keys; the AD types that carry them (LE Secure Connections Confirmation
/// Value 0x22, Random Value 0x23, Security Manager TK Value 0x10) hold them least significant
/// first.
public struct OutOfBandData: Sendable, Hashable {
    /// LE Secure Connections: `C = f4(PKx, PKx, r, 0)`, which ties `random` to the public key
    /// the device will pair with (16 octets).
    public var confirm: [UInt8]
    /// LE Secure Connections: the device's random value `r` (16 octets).
    public var random: [UInt8]

    /// The data; `nil` unless both values are 16 octets.
    public init?(confirm: [UInt8], random: [UInt8]) {
        guard confirm.count == 16, random.count == 16 else { return nil }
        self.confirm = confirm
        self.random = random
    }
}

/// This device's side of Secure Connections OOB: the key pair its next pairings use and the
/// random value it handed out, with the ``OutOfBandData`` to give the peer.
public struct LocalOutOfBand: Sendable {
    let keyPair: PairingKeyPair
    /// What to hand the peer out of band (with this device's address).
    public let data: OutOfBandData

    /// New data: a fresh key pair and 16 random octets from `random`.
    public init(random: (Int) -> [UInt8]) {
        self.init(keyPair: PairingKeyPair(), random: random(16))!
    }

    /// The data of a given key pair and 16-octet random value (tests with fixed values); `nil`
    /// for another length.
    public init?(keyPair: PairingKeyPair, random r: [UInt8]) {
        guard let data = OutOfBandData(confirm: SecurityFunctions.f4(u: keyPair.x, v: keyPair.x, x: r, z: 0), random: r) else {
            return nil
        }
        self.keyPair = keyPair
        self.data = data
    }
}

/// What one pairing knows out of band: this device's Secure Connections data (if it handed
/// some out), the peer's (if it received some), and a legacy pairing's shared temporary key.
public struct PairingOutOfBand: Sendable {
    public var local: LocalOutOfBand?
    public var peer: OutOfBandData?
    /// LE legacy OOB: the 16-octet TK both devices hold.
    public var temporaryKey: [UInt8]?

    public init(local: LocalOutOfBand? = nil, peer: OutOfBandData? = nil, temporaryKey: [UInt8]? = nil) {
        self.local = local
        self.peer = peer
        self.temporaryKey = temporaryKey
    }

    /// No out-of-band data.
    public static let none = PairingOutOfBand()
}
