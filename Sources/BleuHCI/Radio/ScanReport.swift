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

    /// From an LE Advertising Report (event types 0 ADV_IND … 4 SCAN_RSP).
    init(_ report: LEAdvertisingReport) {
        address = report.address
        addressType = report.addressType
        isConnectable = report.eventType == 0 || report.eventType == 1
        isScannable = report.eventType == 0 || report.eventType == 2
        isScanResponse = report.eventType == 4
        data = report.data
        rssi = Int(report.rssi)
    }

    /// From an LE Extended Advertising Report (event type bits: 0 connectable, 1 scannable,
    /// 3 scan response; bits 5–6 data status: 0 complete, 1 incomplete, 2 truncated).
    init(_ report: LEExtendedAdvertisingReport) {
        address = report.address
        addressType = report.addressType
        isConnectable = report.eventType & 0x01 != 0
        isScannable = report.eventType & 0x02 != 0
        isScanResponse = report.eventType & 0x08 != 0
        data = report.data
        rssi = Int(report.rssi)
        isIncomplete = (report.eventType >> 5) & 0x03 == 1
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
