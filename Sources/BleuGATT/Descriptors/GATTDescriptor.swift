import BleuCore
import Foundation

/// A GATT characteristic descriptor whose value is a Swift type: its UUID and the codec
/// between the type and the bytes on air.
///
/// The descriptors of the Core Specification and of the Environmental Sensing Service come
/// declared (``userDescription``, ``presentationFormat``, ``clientCharacteristicConfiguration``,
/// ``validRange(_:)``, …); declare your own with a codec:
///
/// ```swift
/// static let calibration = GATTDescriptor<UInt16>("9F1E0101-7B51-4C9A-9E2A-1B2C3D4E5F60",
///                                                  name: "Calibration", codec: .uint16)
/// let description = try await client.read(.userDescription, of: characteristic)   // String
/// let offset = try await client.read(calibration, of: characteristic)              // UInt16
/// ```
///
/// A peripheral hosts the same declaration with ``definition(_:)``, so both ends share one codec.
public struct GATTDescriptor<Value: Sendable>: Sendable {
    /// The descriptor's type: a 16-bit SIG number, or a 128-bit UUID of your own.
    public var uuid: BluetoothUUID
    /// The name errors use: the SIG's name for a known UUID, else the UUID.
    public var name: String
    /// The codec between values and bytes.
    public var codec: any GATTCodec<Value>

    /// A descriptor with this UUID and codec; `name` defaults to the SIG's name or the UUID.
    public init(_ uuid: BluetoothUUID, name: String? = nil, codec: some GATTCodec<Value>) {
        self.uuid = uuid
        self.name = name ?? uuid.name ?? uuid.uuidString
        self.codec = codec
    }

    /// The bytes of `value`. Throws ``GATTCodecError`` (its path starting with ``name``) for a
    /// value the layout cannot carry.
    public func encode(_ value: Value) throws(GATTCodecError) -> Data {
        try codec.encode(value, named: name)
    }

    /// The value these bytes hold. Throws ``GATTCodecError`` (its path starting with ``name``)
    /// for too few or too many bytes, or a value the specification does not allow.
    public func decode(_ data: Data) throws(GATTCodecError) -> Value {
        try codec.decode(data, named: name)
    }

    /// The descriptor with a static value, for a ``Characteristic``'s `descriptors` on a
    /// peripheral. Throws ``GATTCodecError`` when `value` cannot be encoded.
    public func definition(_ value: Value) throws(GATTCodecError) -> DescriptorDefinition {
        DescriptorDefinition(uuid: uuid, value: try encode(value))
    }

    /// Whether a discovered descriptor is this one.
    public func matches(_ remote: RemoteDescriptor) -> Bool {
        remote.uuid == uuid
    }
}

extension GATTDescriptor: CustomStringConvertible {
    /// For example `"Characteristic User Description (2901)"`.
    public var description: String {
        "\(name) (\(uuid.uuidString))"
    }
}
