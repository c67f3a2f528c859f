/// Current Time (0x2A2B): an ``ExactTime256`` and an ``AdjustReason``, 10 bytes.
/// GATT Specification Supplement, "Current Time"; Current Time Service.
public struct CurrentTime: GATTStructure, Hashable {
    /// The server's local date and time, to 1/256 s.
    public var exactTime256: ExactTime256
    /// Why the time last changed, if it did.
    public var adjustReason: AdjustReason

    /// A current time; no adjust reason by default.
    public init(exactTime256: ExactTime256, adjustReason: AdjustReason = []) {
        self.exactTime256 = exactTime256
        self.adjustReason = adjustReason
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        exactTime256 = try reader.decode(ExactTime256.codec, field: "Exact Time 256")
        adjustReason = try reader.decode(AdjustReason.codec, field: "Adjust Reason")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        try writer.encode(exactTime256, with: ExactTime256.codec, field: "Exact Time 256")
        try writer.encode(adjustReason, with: AdjustReason.codec, field: "Adjust Reason")
    }
}

/// Adjust Reason: why the time last changed. Bits 4–7 are reserved for future use and kept
/// as they come. GATT Specification Supplement, "Current Time", field Adjust Reason.
public struct AdjustReason: OptionSet, Sendable, Hashable {
    /// The Adjust Reason byte, reserved bits included.
    public let rawValue: UInt8

    /// The reasons these bits say.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Bit 0: the time was set by hand.
    public static let manualTimeUpdate = AdjustReason(rawValue: 0x01)
    /// Bit 1: the time was set from an external reference.
    public static let externalReferenceTimeUpdate = AdjustReason(rawValue: 0x02)
    /// Bit 2: the time zone changed.
    public static let changeOfTimeZone = AdjustReason(rawValue: 0x04)
    /// Bit 3: daylight saving time began or ended.
    public static let changeOfDST = AdjustReason(rawValue: 0x08)

    /// The bits the specification defines.
    public static let defined: AdjustReason = [.manualTimeUpdate, .externalReferenceTimeUpdate, .changeOfTimeZone, .changeOfDST]

    /// One byte; reserved bits are kept.
    public static var codec: BitFieldCodec<AdjustReason> { .bitField(defined) }
}
