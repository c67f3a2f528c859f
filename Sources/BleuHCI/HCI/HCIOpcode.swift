import BleuCore

/// An HCI command opcode: a 6-bit group (OGF) and a 10-bit command (OCF), Core Spec Vol 4
/// Part E §5.4.1.
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The opcode of command `ocf` in group `ogf`.
    public init(ogf: UInt8, ocf: UInt16) {
        rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    /// The opcode group field.
    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    /// The opcode command field.
    public var ocf: UInt16 { rawValue & 0x03FF }

    // Link control (OGF 0x01)
    public static let disconnect = HCIOpcode(ogf: 0x01, ocf: 0x0006)
    public static let readRemoteVersionInformation = HCIOpcode(ogf: 0x01, ocf: 0x001D)
    // Controller and baseband (OGF 0x03)
    public static let setEventMask = HCIOpcode(ogf: 0x03, ocf: 0x0001)
    public static let reset = HCIOpcode(ogf: 0x03, ocf: 0x0003)
    public static let writeLEHostSupport = HCIOpcode(ogf: 0x03, ocf: 0x006D)
    // Informational (OGF 0x04)
    public static let readLocalVersionInformation = HCIOpcode(ogf: 0x04, ocf: 0x0001)
    public static let readLocalSupportedCommands = HCIOpcode(ogf: 0x04, ocf: 0x0002)
    public static let readLocalSupportedFeatures = HCIOpcode(ogf: 0x04, ocf: 0x0003)
    public static let readBufferSize = HCIOpcode(ogf: 0x04, ocf: 0x0005)
    public static let readBDADDR = HCIOpcode(ogf: 0x04, ocf: 0x0009)
    // Status (OGF 0x05)
    public static let readRSSI = HCIOpcode(ogf: 0x05, ocf: 0x0005)
    // LE controller (OGF 0x08)
    public static let leSetEventMask = HCIOpcode(ogf: 0x08, ocf: 0x0001)
    public static let leReadBufferSize = HCIOpcode(ogf: 0x08, ocf: 0x0002)
    public static let leReadLocalSupportedFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0003)
    public static let leSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0005)
    public static let leSetAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0006)
    public static let leSetAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0008)
    public static let leSetScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0009)
    public static let leSetAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x000A)
    public static let leSetScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x000B)
    public static let leSetScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x000C)
    public static let leCreateConnection = HCIOpcode(ogf: 0x08, ocf: 0x000D)
    public static let leCreateConnectionCancel = HCIOpcode(ogf: 0x08, ocf: 0x000E)
    public static let leConnectionUpdate = HCIOpcode(ogf: 0x08, ocf: 0x0013)
    public static let leReadRemoteFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0016)
    public static let leEnableEncryption = HCIOpcode(ogf: 0x08, ocf: 0x0019)
    public static let leLongTermKeyRequestReply = HCIOpcode(ogf: 0x08, ocf: 0x001A)
    public static let leLongTermKeyRequestNegativeReply = HCIOpcode(ogf: 0x08, ocf: 0x001B)
    public static let leRemoteConnectionParameterRequestReply = HCIOpcode(ogf: 0x08, ocf: 0x0020)
    public static let leRemoteConnectionParameterRequestNegativeReply = HCIOpcode(ogf: 0x08, ocf: 0x0021)
    public static let leSetDataLength = HCIOpcode(ogf: 0x08, ocf: 0x0022)
    public static let leReadMaximumDataLength = HCIOpcode(ogf: 0x08, ocf: 0x002F)
    public static let leSetPHY = HCIOpcode(ogf: 0x08, ocf: 0x0032)
    public static let leSetAdvertisingSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0035)
    public static let leSetExtendedAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0036)
    public static let leSetExtendedAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0037)
    public static let leSetExtendedScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0038)
    public static let leSetExtendedAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x0039)
    public static let leReadMaximumAdvertisingDataLength = HCIOpcode(ogf: 0x08, ocf: 0x003A)
    public static let leReadNumberOfSupportedAdvertisingSets = HCIOpcode(ogf: 0x08, ocf: 0x003B)
    public static let leRemoveAdvertisingSet = HCIOpcode(ogf: 0x08, ocf: 0x003C)
    public static let leSetExtendedScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x0041)
    public static let leSetExtendedScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x0042)
    public static let leExtendedCreateConnection = HCIOpcode(ogf: 0x08, ocf: 0x0043)
    public static let leReadBufferSizeV2 = HCIOpcode(ogf: 0x08, ocf: 0x0060)

    public var description: String {
        "0x\(hex4(rawValue)) (OGF 0x\(hex2(ogf)), OCF 0x\(hex4(ocf)))"
    }
}
