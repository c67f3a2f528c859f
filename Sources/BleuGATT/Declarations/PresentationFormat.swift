import BleuCore
import Foundation

/// A Characteristic Presentation Format descriptor (0x2904): how to show a characteristic's
/// value. Seven bytes: Format (uint8), Exponent (sint8), Unit (uint16, a unit UUID), Name
/// Space (uint8) and Description (uint16), Core Spec Vol 3 Part G §3.3.3.5.
public struct PresentationFormat: GATTStructure, Hashable {
    /// The Format field: the value's data type (Assigned Numbers §2.4.1).
    public struct Format: RawRepresentable, Sendable, Hashable {
        /// The Format field's byte.
        public let rawValue: UInt8
        /// The format with this byte, including ones this type does not name.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// `boolean`: 0 false, 1 true.
        public static let boolean = Format(rawValue: 0x01)
        /// Unsigned 8-bit integer.
        public static let uint8 = Format(rawValue: 0x04)
        /// Unsigned 16-bit integer.
        public static let uint16 = Format(rawValue: 0x06)
        /// Unsigned 24-bit integer.
        public static let uint24 = Format(rawValue: 0x07)
        /// Unsigned 32-bit integer.
        public static let uint32 = Format(rawValue: 0x08)
        /// Unsigned 64-bit integer.
        public static let uint64 = Format(rawValue: 0x0A)
        /// Signed 8-bit integer (two's complement).
        public static let sint8 = Format(rawValue: 0x0C)
        /// Signed 16-bit integer.
        public static let sint16 = Format(rawValue: 0x0E)
        /// Signed 24-bit integer.
        public static let sint24 = Format(rawValue: 0x0F)
        /// Signed 32-bit integer.
        public static let sint32 = Format(rawValue: 0x10)
        /// Signed 64-bit integer.
        public static let sint64 = Format(rawValue: 0x12)
        /// IEEE-754 32-bit floating point.
        public static let float32 = Format(rawValue: 0x14)
        /// IEEE-754 64-bit floating point.
        public static let float64 = Format(rawValue: 0x15)
        /// IEEE 11073 16-bit SFLOAT.
        public static let medfloat16 = Format(rawValue: 0x16)
        /// IEEE 11073 32-bit FLOAT.
        public static let medfloat32 = Format(rawValue: 0x17)
        /// UTF-8 string (`utf8s`).
        public static let utf8String = Format(rawValue: 0x19)
        /// UTF-16 string (`utf16s`).
        public static let utf16String = Format(rawValue: 0x1A)
        /// An opaque structure.
        public static let structure = Format(rawValue: 0x1B)
    }

    /// Units from the SIG's Assigned Numbers (§3.5), as the 16-bit UUIDs the Unit field holds.
    public enum Unit {
        /// 0x2700, "unitless": a count or a ratio.
        public static let unitless: UInt16 = 0x2700
        /// 0x2703, time in seconds.
        public static let second: UInt16 = 0x2703
        /// 0x2724, pressure in pascals.
        public static let pascal: UInt16 = 0x2724
        /// 0x272F, Celsius temperature in degrees Celsius.
        public static let degreeCelsius: UInt16 = 0x272F
        /// 0x27AC, thermodynamic temperature in degrees Fahrenheit.
        public static let degreeFahrenheit: UInt16 = 0x27AC
        /// 0x27AD, percentage.
        public static let percentage: UInt16 = 0x27AD
        /// 0x27AF, period in beats per minute.
        public static let beatsPerMinute: UInt16 = 0x27AF
    }

    /// The Name Space of descriptions the Bluetooth SIG assigns.
    public static let bluetoothSIGNamespace: UInt8 = 0x01

    /// The value's data type.
    public var format: Format
    /// The value is `raw × 10^exponent` for integer formats.
    public var exponent: Int8
    /// The unit's 16-bit UUID, such as ``Unit/degreeCelsius``.
    public var unit: UInt16
    /// Who defines ``description``: ``bluetoothSIGNamespace`` for the SIG's list.
    public var namespace: UInt8
    /// A description from the name space, such as 0x0000 "unknown", 0x0001 "first".
    public var description: UInt16

    /// A presentation format; by default unitless, without exponent, description 0 ("unknown")
    /// in the SIG's name space.
    public init(format: Format, exponent: Int8 = 0, unit: UInt16 = Unit.unitless,
                namespace: UInt8 = PresentationFormat.bluetoothSIGNamespace, description: UInt16 = 0) {
        self.format = format
        self.exponent = exponent
        self.unit = unit
        self.namespace = namespace
        self.description = description
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        format = Format(rawValue: try reader.decode(.uint8, field: "Format"))
        exponent = try reader.decode(.sint8, field: "Exponent")
        unit = try reader.decode(.uint16, field: "Unit")
        namespace = try reader.decode(.uint8, field: "Name Space")
        description = try reader.decode(.uint16, field: "Description")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(format.rawValue)
        writer.writeInteger(exponent)
        writer.writeInteger(unit)
        writer.writeInteger(namespace)
        writer.writeInteger(description)
    }

    /// The descriptor, ready for a ``/BleuCore/CharacteristicDefinition``.
    public var descriptor: DescriptorDefinition {
        // Every field is a fixed-width integer the layout carries whole, so encoding cannot fail.
        var writer = GATTWriter()
        try? encode(to: &writer)
        return DescriptorDefinition(uuid: BluetoothUUID.Descriptor.characteristicPresentationFormat, value: writer.data)
    }
}
