import BleuCore

/// The Characteristic Extended Properties descriptor's bit field (0x2900), Core Spec Vol 3
/// Part G §3.3.3.1: a `uint16` whose bit 0 is Reliable Write and bit 1 Writable Auxiliaries;
/// the other bits are reserved.
public struct CharacteristicExtendedProperties: OptionSet, Sendable, Hashable {
    /// The bit field's value.
    public let rawValue: UInt16
    /// The properties with these bits, including reserved ones.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Bit 0: the characteristic value can be written with the reliable write procedure
    /// (queued writes checked by the server's echo).
    public static let reliableWrite = CharacteristicExtendedProperties(rawValue: 1 << 0)
    /// Bit 1: the Characteristic User Description descriptor (0x2901) can be written.
    public static let writableAuxiliaries = CharacteristicExtendedProperties(rawValue: 1 << 1)
}

/// The Client Characteristic Configuration descriptor's bit field (0x2902), Core Spec Vol 3
/// Part G §3.3.3.3: a `uint16` whose bit 0 enables notifications and bit 1 indications, for
/// the client that wrote it; the other bits are reserved.
public struct ClientCharacteristicConfiguration: OptionSet, Sendable, Hashable {
    /// The bit field's value.
    public let rawValue: UInt16
    /// The configuration with these bits, including reserved ones.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Bit 0: the server notifies the value to this client.
    public static let notification = ClientCharacteristicConfiguration(rawValue: 1 << 0)
    /// Bit 1: the server indicates the value to this client.
    public static let indication = ClientCharacteristicConfiguration(rawValue: 1 << 1)
}

/// The Server Characteristic Configuration descriptor's bit field (0x2903), Core Spec Vol 3
/// Part G §3.3.3.4: a `uint16` whose bit 0 makes the server broadcast the value in its
/// advertising data; the other bits are reserved.
public struct ServerCharacteristicConfiguration: OptionSet, Sendable, Hashable {
    /// The bit field's value.
    public let rawValue: UInt16
    /// The configuration with these bits, including reserved ones.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Bit 0: the value is broadcast in advertising data while the server advertises.
    public static let broadcast = ServerCharacteristicConfiguration(rawValue: 1 << 0)
}

/// The Valid Range descriptor's value (0x2906, GATT Specification Supplement, "Valid Range"):
/// the lower then the upper inclusive bound, each in the format of the characteristic the
/// descriptor describes, so its codec is the characteristic's.
public struct ValidRange<Bound: Sendable>: Sendable {
    /// The lowest value allowed (inclusive).
    public var lower: Bound
    /// The highest value allowed (inclusive).
    public var upper: Bound

    /// The range from `lower` through `upper`.
    public init(lower: Bound, upper: Bound) {
        self.lower = lower
        self.upper = upper
    }
}

extension ValidRange: Equatable where Bound: Equatable {}
extension ValidRange: Hashable where Bound: Hashable {}

extension ValidRange where Bound: Comparable {
    /// The range as a Swift closed range; `nil` when the peripheral's lower bound is above
    /// its upper one.
    public var closedRange: ClosedRange<Bound>? {
        lower <= upper ? lower...upper : nil
    }
}

/// The codec of a ``ValidRange``: two values of one codec, back to back.
public struct ValidRangeCodec<Bound: Sendable>: GATTCodec {
    /// The codec of each bound: the described characteristic's.
    public let bound: any GATTCodec<Bound>

    /// A range of values of `bound`'s format.
    public init(bound: some GATTCodec<Bound>) {
        self.bound = bound
    }

    public func encode(_ value: ValidRange<Bound>, to writer: inout GATTWriter) throws(GATTCodecError) {
        try writer.encode(value.lower, with: AnyCodec(bound), field: "Lower Inclusive Value")
        try writer.encode(value.upper, with: AnyCodec(bound), field: "Upper Inclusive Value")
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> ValidRange<Bound> {
        let lower = try reader.decode(AnyCodec(bound), field: "Lower Inclusive Value")
        let upper = try reader.decode(AnyCodec(bound), field: "Upper Inclusive Value")
        return ValidRange(lower: lower, upper: upper)
    }
}

/// An existential codec as a concrete one, for the generic field helpers.
struct AnyCodec<Value: Sendable>: GATTCodec {
    let base: any GATTCodec<Value>
    init(_ base: any GATTCodec<Value>) { self.base = base }
    func encode(_ value: Value, to writer: inout GATTWriter) throws(GATTCodecError) {
        try base.encode(value, to: &writer)
    }
    func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Value {
        try base.decode(from: &reader)
    }
}

extension GATTDescriptor where Value == CharacteristicExtendedProperties {
    /// Characteristic Extended Properties (0x2900), Core Spec Vol 3 Part G §3.3.3.1: a `uint16`
    /// bit field; reserved bits are kept.
    public static var extendedProperties: Self {
        Self(BluetoothUUID.Descriptor.characteristicExtendedProperties,
             codec: .bitField([CharacteristicExtendedProperties.reliableWrite, .writableAuxiliaries]))
    }
}

extension GATTDescriptor where Value == String {
    /// Characteristic User Description (0x2901), Core Spec Vol 3 Part G §3.3.3.2: UTF-8 text
    /// of any length the attribute allows, without a terminator.
    public static var userDescription: Self {
        // Named as the Core Specification names it (the assigned-numbers table says "Descriptor").
        Self(BluetoothUUID.Descriptor.characteristicUserDescription, name: "Characteristic User Description", codec: .utf8String)
    }
}

extension GATTDescriptor where Value == ClientCharacteristicConfiguration {
    /// Client Characteristic Configuration (0x2902), Core Spec Vol 3 Part G §3.3.3.3: a
    /// `uint16` bit field, notifications and indications for this client; reserved bits are kept.
    /// Read it to see what the server holds for this client; turn it on and off with a
    /// subscription, not a write.
    public static var clientCharacteristicConfiguration: Self {
        Self(BluetoothUUID.Descriptor.clientCharacteristicConfiguration,
             codec: .bitField([ClientCharacteristicConfiguration.notification, .indication]))
    }
}

extension GATTDescriptor where Value == ServerCharacteristicConfiguration {
    /// Server Characteristic Configuration (0x2903), Core Spec Vol 3 Part G §3.3.3.4: a
    /// `uint16` bit field with the broadcast bit; reserved bits are kept.
    public static var serverCharacteristicConfiguration: Self {
        Self(BluetoothUUID.Descriptor.serverCharacteristicConfiguration,
             codec: .bitField(ServerCharacteristicConfiguration.broadcast))
    }
}

extension GATTDescriptor where Value == PresentationFormat {
    /// Characteristic Presentation Format (0x2904), Core Spec Vol 3 Part G §3.3.3.5: seven
    /// bytes, decoded by the same ``PresentationFormat`` a peripheral hosts.
    public static var presentationFormat: Self {
        Self(BluetoothUUID.Descriptor.characteristicPresentationFormat, codec: PresentationFormat.codec)
    }
}

extension GATTDescriptor {
    /// Valid Range (0x2906, GATT Specification Supplement): lower and upper inclusive bounds in
    /// the format `bound` reads, such as `.validRange(.uint16)`.
    public static func validRange<Bound>(_ bound: some GATTCodec<Bound>) -> Self where Value == ValidRange<Bound> {
        Self(BluetoothUUID.Descriptor.validRange, codec: ValidRangeCodec(bound: bound))
    }

    /// Valid Range (0x2906) of `characteristic`: its bounds in the characteristic's own codec.
    public static func validRange<Bound>(of characteristic: Characteristic<Bound>) -> Self where Value == ValidRange<Bound> {
        Self(BluetoothUUID.Descriptor.validRange, codec: ValidRangeCodec(bound: AnyCodec(characteristic.codec)))
    }
}
