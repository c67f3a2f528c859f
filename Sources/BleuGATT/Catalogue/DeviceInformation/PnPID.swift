/// PnP ID (0x2A50): the identifiers of a Plug and Play device, 7 bytes — Vendor ID Source
/// (uint8), Vendor ID, Product ID and Product Version (uint16 each). GATT Specification
/// Supplement, "PnP ID".
public struct PnPID: GATTStructure, Hashable {
    /// Who assigned the Vendor ID; other values are reserved and rejected.
    public enum VendorIDSource: UInt8, Sendable, Hashable, CaseIterable {
        /// A Bluetooth SIG company identifier (Assigned Numbers).
        case bluetoothSIG = 1
        /// A USB Implementers Forum vendor ID.
        case usbImplementersForum = 2
    }

    /// Which list ``vendorID`` comes from.
    public var vendorIDSource: VendorIDSource
    /// The vendor: a Bluetooth SIG company identifier or a USB vendor ID, as ``vendorIDSource`` says.
    public var vendorID: UInt16
    /// The product, as its vendor numbers it.
    public var productID: UInt16
    /// The product's version, as its vendor numbers it (often BCD: 0x0110 is 1.1.0).
    public var productVersion: UInt16

    /// A PnP ID from its four fields.
    public init(vendorIDSource: VendorIDSource, vendorID: UInt16, productID: UInt16, productVersion: UInt16) {
        self.vendorIDSource = vendorIDSource
        self.vendorID = vendorID
        self.productID = productID
        self.productVersion = productVersion
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        vendorIDSource = try reader.decode(.enumeration(VendorIDSource.self), field: "Vendor ID Source")
        vendorID = try reader.decode(.uint16, field: "Vendor ID")
        productID = try reader.decode(.uint16, field: "Product ID")
        productVersion = try reader.decode(.uint16, field: "Product Version")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(vendorIDSource.rawValue)
        writer.writeInteger(vendorID)
        writer.writeInteger(productID)
        writer.writeInteger(productVersion)
    }
}
