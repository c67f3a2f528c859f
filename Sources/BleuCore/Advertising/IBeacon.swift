import Foundation

/// An iBeacon advertisement: Apple manufacturer data (company 0x004C) of type 0x02, length 0x15,
/// then the proximity UUID, major and minor (big-endian) and the measured power at one metre.
public struct IBeacon: Sendable, Hashable, Codable {
    /// Apple's Bluetooth SIG company identifier.
    public static let appleCompanyID: UInt16 = 0x004C

    /// The beacon's proximity UUID: the organisation or deployment.
    public var proximityUUID: UUID
    /// The major value: a group of beacons, such as a store.
    public var major: UInt16
    /// The minor value: one beacon within the group.
    public var minor: UInt16
    /// The calibrated RSSI at one metre, in dBm.
    public var measuredPower: Int8

    public init(proximityUUID: UUID, major: UInt16, minor: UInt16, measuredPower: Int8) {
        self.proximityUUID = proximityUUID
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
    }

    /// Decodes the beacon from manufacturer data; `nil` when the data is not an iBeacon
    /// (another company, another type, or not exactly 23 bytes).
    public init?(manufacturerData: ManufacturerData) {
        let b = Array(manufacturerData.data)
        guard manufacturerData.companyID == Self.appleCompanyID, b.count == 23,
              b[0] == 0x02, b[1] == 0x15 else { return nil }
        proximityUUID = BluetoothUUID(bigEndianBytes: Array(b[2..<18])).uuid
        major = UInt16(b[18]) << 8 | UInt16(b[19])
        minor = UInt16(b[20]) << 8 | UInt16(b[21])
        measuredPower = Int8(bitPattern: b[22])
    }

    /// The manufacturer data that advertises this beacon.
    public var manufacturerData: ManufacturerData {
        var bytes: [UInt8] = [0x02, 0x15]
        bytes += BluetoothUUID(uuid: proximityUUID).bytes
        bytes += [UInt8(major >> 8), UInt8(truncatingIfNeeded: major),
                  UInt8(minor >> 8), UInt8(truncatingIfNeeded: minor),
                  UInt8(bitPattern: measuredPower)]
        return ManufacturerData(companyID: Self.appleCompanyID, data: Data(bytes))
    }
}
