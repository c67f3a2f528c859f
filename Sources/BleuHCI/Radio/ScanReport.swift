import BleuCore

/// A peer's address as the radio tells peers apart.
struct PeerKey: Hashable, Sendable {
    var address: BluetoothAddress
    /// Public (0/2) or random (1/3): identity types fold onto their base type.
    var isRandom: Bool
}

/// One advertising report, legacy or extended, in the form the scan collector reads.
struct ScanReport: Sendable, Hashable {
    var address: BluetoothAddress
    var addressType: AddressType
    var isConnectable: Bool
    var isScannable: Bool
    var isScanResponse: Bool
    var data: [UInt8]
    var rssi: Int
    /// Extended reports: more fragments of this data follow.
    var isIncomplete = false

    /// From an LE Advertising Report (event types ADV_IND … SCAN_RSP).
    init(_ report: LEAdvertisingReport) {
        address = report.address
        addressType = report.addressType
        isConnectable = report.eventType.isConnectable
        isScannable = report.eventType.isScannable
        isScanResponse = report.eventType == .scanResponse
        data = report.data
        rssi = Int(report.rssi)
    }

    /// From an LE Extended Advertising Report (connectable, scannable, scan response; data
    /// status 1, incomplete with more to come).
    init(_ report: LEExtendedAdvertisingReport) {
        address = report.address
        addressType = report.addressType
        isConnectable = report.eventType.contains(.connectable)
        isScannable = report.eventType.contains(.scannable)
        isScanResponse = report.eventType.contains(.scanResponse)
        data = report.data
        rssi = Int(report.rssi)
        isIncomplete = report.eventType.dataStatus == 1
    }

    init(address: BluetoothAddress, addressType: AddressType, isConnectable: Bool, isScannable: Bool,
         isScanResponse: Bool, data: [UInt8], rssi: Int) {
        self.address = address
        self.addressType = addressType
        self.isConnectable = isConnectable
        self.isScannable = isScannable
        self.isScanResponse = isScanResponse
        self.data = data
        self.rssi = rssi
    }
}
