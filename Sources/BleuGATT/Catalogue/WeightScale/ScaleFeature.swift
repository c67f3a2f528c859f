/// The supported-feature bits of a ``ScaleFeature``: the first ``bitCount`` bits of its
/// `uint32`, before the resolutions.
public protocol ScaleFeatureBits: OptionSet, Sendable, Hashable where RawValue == UInt32 {
    /// How many bits, from bit 0, the features take; the mass resolution follows them.
    static var bitCount: Int { get }
    /// The specification's name of the mass resolution field, used in errors.
    static var massResolutionName: String { get }
}

/// The `uint32` the Weight Scale Feature (``WeightScaleFeature``) and Body Composition Feature
/// (``BodyCompositionFeature``) share (GATT Specification Supplement, "Weight Scale Feature",
/// "Body Composition Feature"): the supported-feature bits from bit 0, then a 4-bit mass
/// resolution and a 3-bit height resolution. The bits above are reserved, written 0 and ignored
/// when read; reserved resolution values are refused (``GATTCodecError/Kind/valueNotAllowed``).
public struct ScaleFeature<Supported: ScaleFeatureBits>: GATTStructure, Hashable {
    /// The features supported; bits beyond ``ScaleFeatureBits/bitCount`` are written 0.
    public var supported: Supported
    /// How finely masses (the weight) are measured.
    public var massResolution: MassMeasurementResolution
    /// How finely height is measured.
    public var heightResolution: HeightMeasurementResolution

    /// The features and resolutions; both resolutions default to not specified.
    public init(supported: Supported = [], massResolution: MassMeasurementResolution = .notSpecified,
                heightResolution: HeightMeasurementResolution = .notSpecified) {
        self.supported = supported
        self.massResolution = massResolution
        self.heightResolution = heightResolution
    }

    private static var supportedBits: UInt32 { (1 << UInt32(Supported.bitCount)) - 1 }

    private static var massBits: PackedEnumeration<MassMeasurementResolution> {
        PackedEnumeration(shift: Supported.bitCount, width: 4, field: Supported.massResolutionName)
    }

    private static var heightBits: PackedEnumeration<HeightMeasurementResolution> {
        PackedEnumeration(shift: Supported.bitCount + 4, width: 3, field: "Height Measurement Resolution")
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let raw = try reader.readInteger(UInt32.self)
        self.init(supported: Supported(rawValue: raw & Self.supportedBits), massResolution: try Self.massBits.decode(from: raw),
                  heightResolution: try Self.heightBits.decode(from: raw))
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(supported.rawValue & Self.supportedBits
                            | Self.massBits.bits(of: massResolution) | Self.heightBits.bits(of: heightResolution))
    }
}
