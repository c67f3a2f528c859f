import Crypto

/// A P-256 key pair for LE Secure Connections pairing (Core Specification Vol 3 Part H §2.3.5.6):
/// its public key goes to the peer in the Pairing Public Key PDU, and with the peer's public key
/// it computes the Diffie-Hellman key (DHKey) that `f5` turns into the LTK.
///
/// Coordinates and the DHKey are written most significant octet first, as
/// ``SecurityFunctions`` takes them.
public struct PairingKeyPair: Sendable {
    private let privateKey: P256.KeyAgreement.PrivateKey

    /// A fresh key pair.
    public init() {
        privateKey = P256.KeyAgreement.PrivateKey()
    }

    /// The key pair of a 32-octet private key (the specification's debug key, a test's sample
    /// key); `nil` when it is not a valid P-256 private key.
    public init?(privateKey bytes: [UInt8]) {
        guard bytes.count == 32, let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: bytes) else { return nil }
        privateKey = key
    }

    /// The public key's X coordinate (32 octets).
    public var x: [UInt8] { Array(privateKey.publicKey.x963Representation[1...32]) }
    /// The public key's Y coordinate (32 octets).
    public var y: [UInt8] { Array(privateKey.publicKey.x963Representation[33...64]) }

    /// The DHKey shared with the peer whose public key is (`x`, `y`); throws
    /// ``InvalidPublicKey`` when that is not a point of the curve (a peer must not be able to
    /// choose one off it: the invalid-curve attack).
    public func dhKey(peerX x: [UInt8], peerY y: [UInt8]) throws(InvalidPublicKey) -> [UInt8] {
        guard x.count == 32, y.count == 32 else { throw InvalidPublicKey() }
        let peer: P256.KeyAgreement.PublicKey
        let secret: SharedSecret
        do {
            peer = try P256.KeyAgreement.PublicKey(x963Representation: [0x04] + x + y)
            secret = try privateKey.sharedSecretFromKeyAgreement(with: peer)
        } catch {
            throw InvalidPublicKey()
        }
        return secret.withUnsafeBytes { Array($0) }
    }

    /// A peer's public key that is not a point of P-256.
    public struct InvalidPublicKey: Error, Hashable, Sendable {}
}
