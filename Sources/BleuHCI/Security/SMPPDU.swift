import BleuATT
import BleuCore

/// A Security Manager Protocol PDU (Core Specification Vol 3 Part H §3), carried on L2CAP
/// channel 0x0006. Symmetric ``encoded`` / ``init(decoding:)``; each PDU's layout is declared
/// once (``fields(_:)``) and run in both directions.
///
/// Keys, confirm and random values, check values and public key coordinates are held **most
/// significant octet first**, as ``SecurityFunctions`` takes them; on the air they travel least
/// significant octet first, and the codec reverses them. Every PDU has a fixed length: a PDU
/// with bytes missing or left over does not decode.
public enum SMPPDU: Hashable, Sendable {
    /// 0x01: the central starts pairing.
    case pairingRequest(PairingFeatures)
    /// 0x02: the peripheral's answer.
    case pairingResponse(PairingFeatures)
    /// 0x03: a 16-octet confirm value.
    case pairingConfirm([UInt8])
    /// 0x04: a 16-octet random value (a nonce with Secure Connections).
    case pairingRandom([UInt8])
    /// 0x05: pairing ends, for this reason.
    case pairingFailed(SMPReason)
    /// 0x06: the LTK (legacy pairing's distribution).
    case encryptionInformation(longTermKey: [UInt8])
    /// 0x07: the EDIV and Rand that identify the LTK just sent.
    case centralIdentification(ediv: UInt16, rand: UInt64)
    /// 0x08: the IRK.
    case identityInformation(identityResolvingKey: [UInt8])
    /// 0x09: the identity address the IRK belongs to.
    case identityAddressInformation(type: AddressType, address: BluetoothAddress)
    /// 0x0A: the CSRK.
    case signingInformation(signatureKey: [UInt8])
    /// 0x0B: the peripheral asks the central to pair (or encrypt with a bond).
    case securityRequest(AuthenticationRequirements)
    /// 0x0C: a P-256 public key, two 32-octet coordinates.
    case pairingPublicKey(x: [UInt8], y: [UInt8])
    /// 0x0D: a 16-octet DHKey check value.
    case pairingDHKeyCheck([UInt8])
    /// 0x0E: progress of a passkey entry.
    case keypressNotification(KeypressNotification)

    /// The command code.
    public var code: UInt8 {
        switch self {
        case .pairingRequest: 0x01
        case .pairingResponse: 0x02
        case .pairingConfirm: 0x03
        case .pairingRandom: 0x04
        case .pairingFailed: 0x05
        case .encryptionInformation: 0x06
        case .centralIdentification: 0x07
        case .identityInformation: 0x08
        case .identityAddressInformation: 0x09
        case .signingInformation: 0x0A
        case .securityRequest: 0x0B
        case .pairingPublicKey: 0x0C
        case .pairingDHKeyCheck: 0x0D
        case .keypressNotification: 0x0E
        }
    }

    /// A PDU of `code` with blank fields, for decoding into; `nil` for an unknown code.
    static func blank(_ code: UInt8) -> SMPPDU? {
        let features = PairingFeatures(ioCapability: .noInputNoOutput, authentication: [], initiatorKeys: [], responderKeys: [])
        let value = [UInt8](repeating: 0, count: 16)
        return switch code {
        case 0x01: .pairingRequest(features)
        case 0x02: .pairingResponse(features)
        case 0x03: .pairingConfirm(value)
        case 0x04: .pairingRandom(value)
        case 0x05: .pairingFailed(.unspecifiedReason)
        case 0x06: .encryptionInformation(longTermKey: value)
        case 0x07: .centralIdentification(ediv: 0, rand: 0)
        case 0x08: .identityInformation(identityResolvingKey: value)
        case 0x09: .identityAddressInformation(type: .publicDevice, address: .zero)
        case 0x0A: .signingInformation(signatureKey: value)
        case 0x0B: .securityRequest([])
        case 0x0C: .pairingPublicKey(x: [], y: [])
        case 0x0D: .pairingDHKeyCheck(value)
        case 0x0E: .keypressNotification(.entryStarted)
        default: nil
        }
    }

    /// Codes the PDU's fields after the code with `coder`: writes them, or reads them into this PDU.
    public mutating func fields<C: ATTFieldCoder>(_ coder: inout C) throws(C.Failure) {
        switch self {
        case .pairingRequest(var features):
            try Self.code(&features, &coder)
            self = .pairingRequest(features)
        case .pairingResponse(var features):
            try Self.code(&features, &coder)
            self = .pairingResponse(features)
        case .pairingConfirm(var value):
            try coder.mostSignificantFirst(&value, count: 16)
            self = .pairingConfirm(value)
        case .pairingRandom(var value):
            try coder.mostSignificantFirst(&value, count: 16)
            self = .pairingRandom(value)
        case .pairingFailed(let reason):
            var raw = reason.rawValue
            try coder.u8(&raw)
            self = .pairingFailed(SMPReason(rawValue: raw))
        case .encryptionInformation(var key):
            try coder.mostSignificantFirst(&key, count: 16)
            self = .encryptionInformation(longTermKey: key)
        case .centralIdentification(var ediv, let rand):
            try coder.u16(&ediv)
            var bytes = (0..<8).map { UInt8(truncatingIfNeeded: rand >> (8 * $0)) }
            try coder.bytes(&bytes, count: 8)
            self = .centralIdentification(ediv: ediv, rand: bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) })
        case .identityInformation(var key):
            try coder.mostSignificantFirst(&key, count: 16)
            self = .identityInformation(identityResolvingKey: key)
        case .identityAddressInformation(let type, let address):
            var raw = type.rawValue
            var bytes = address.littleEndianBytes
            try coder.u8(&raw)
            try coder.bytes(&bytes, count: 6)
            self = .identityAddressInformation(type: AddressType(rawValue: raw), address: BluetoothAddress(littleEndianBytes: bytes))
        case .signingInformation(var key):
            try coder.mostSignificantFirst(&key, count: 16)
            self = .signingInformation(signatureKey: key)
        case .securityRequest(let authentication):
            var raw = authentication.rawValue
            try coder.u8(&raw)
            self = .securityRequest(AuthenticationRequirements(rawValue: raw))
        case .pairingPublicKey(var x, var y):
            try coder.mostSignificantFirst(&x, count: 32)
            try coder.mostSignificantFirst(&y, count: 32)
            self = .pairingPublicKey(x: x, y: y)
        case .pairingDHKeyCheck(var value):
            try coder.mostSignificantFirst(&value, count: 16)
            self = .pairingDHKeyCheck(value)
        case .keypressNotification(let notification):
            var raw = notification.rawValue
            try coder.u8(&raw)
            self = .keypressNotification(KeypressNotification(rawValue: raw))
        }
    }

    private static func code<C: ATTFieldCoder>(_ features: inout PairingFeatures, _ coder: inout C) throws(C.Failure) {
        var io = features.ioCapability.rawValue
        var oob: UInt8 = features.oobDataPresent ? 1 : 0
        var authentication = features.authentication.rawValue
        var size = features.maximumKeySize
        var initiator = features.initiatorKeys.rawValue
        var responder = features.responderKeys.rawValue
        try coder.u8(&io)
        try coder.u8(&oob)
        try coder.u8(&authentication)
        try coder.u8(&size)
        try coder.u8(&initiator)
        try coder.u8(&responder)
        guard oob <= 1 else { throw coder.invalid("OOB data flag", Int(oob)) }
        features = PairingFeatures(ioCapability: IOCapability(rawValue: io), oobDataPresent: oob == 1,
                                   authentication: AuthenticationRequirements(rawValue: authentication), maximumKeySize: size,
                                   initiatorKeys: KeyDistribution(rawValue: initiator), responderKeys: KeyDistribution(rawValue: responder))
    }

    /// The code, then the fields.
    public var encoded: [UInt8] {
        var encoder = ATTFieldEncoder(capacity: 65)
        var code = self.code
        encoder.u8(&code)
        var copy = self
        copy.fields(&encoder)
        return encoder.bytes
    }

    /// Decodes a PDU; throws for an empty PDU, an unknown code (answer it with Pairing Failed,
    /// Command Not Supported) and a length other than the code's.
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        var reader = ByteReader(bytes, packet: "SMP PDU")
        let code = try reader.u8()
        guard var pdu = Self.blank(code) else { throw reader.error(.unknownType(UInt32(code))) }
        var decoder = ATTFieldDecoder(reader)
        try pdu.fields(&decoder)
        try decoder.reader.finish()
        self = pdu
    }
}

extension ATTFieldCoder {
    /// `count` octets sent least significant first, held most significant first.
    mutating func mostSignificantFirst(_ value: inout [UInt8], count: Int) throws(Failure) {
        var wire = Array(value.reversed())
        try bytes(&wire, count: count)
        value = wire.reversed()
    }
}
