import BleuCore

/// The six connection-parameter fields HCI LE commands share (Core Spec Vol 4 Part E §7.8.12),
/// in the controller's units: intervals in 1.25 ms, timeout in 10 ms, CE lengths in 0.625 ms.
public struct LEConnectionParameters: Hashable, Sendable {
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var maxLatency: UInt16
    public var supervisionTimeout: UInt16
    public var minCELength: UInt16
    public var maxCELength: UInt16

    public init(intervalMin: UInt16 = 24, intervalMax: UInt16 = 40, maxLatency: UInt16 = 0,
                supervisionTimeout: UInt16 = 500, minCELength: UInt16 = 0, maxCELength: UInt16 = 0) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.maxLatency = maxLatency
        self.supervisionTimeout = supervisionTimeout
        self.minCELength = minCELength
        self.maxCELength = maxCELength
    }

    func encode(into bytes: inout [UInt8]) {
        for v in [intervalMin, intervalMax, maxLatency, supervisionTimeout, minCELength, maxCELength] { bytes.appendLE(v) }
    }

    init(reading r: inout ByteReader) throws(PacketDecodingError) {
        self.init(intervalMin: try r.u16(), intervalMax: try r.u16(), maxLatency: try r.u16(),
                  supervisionTimeout: try r.u16(), minCELength: try r.u16(), maxCELength: try r.u16())
    }
}

/// LE Set Advertising Parameters (§7.8.5). Intervals in 0.625 ms.
public struct LEAdvertisingParameters: Hashable, Sendable {
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    /// 0 ADV_IND (connectable, scannable), 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND.
    public var advertisingType: UInt8
    public var ownAddressType: AddressType
    public var peerAddressType: AddressType
    public var peerAddress: BluetoothAddress
    public var channelMap: UInt8
    public var filterPolicy: UInt8

    public init(intervalMin: UInt16 = 0x00A0, intervalMax: UInt16 = 0x00A0, advertisingType: UInt8 = 0,
                ownAddressType: AddressType = .publicDevice, peerAddressType: AddressType = .publicDevice,
                peerAddress: BluetoothAddress = .zero, channelMap: UInt8 = 0x07, filterPolicy: UInt8 = 0) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.advertisingType = advertisingType
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }
}

/// LE Set Scan Parameters (§7.8.10). Interval and window in 0.625 ms.
public struct LEScanParameters: Hashable, Sendable {
    /// 0 passive, 1 active (sends scan requests).
    public var scanType: UInt8
    public var interval: UInt16
    public var window: UInt16
    public var ownAddressType: AddressType
    public var filterPolicy: UInt8

    public init(scanType: UInt8 = 1, interval: UInt16 = 0x0010, window: UInt16 = 0x0010,
                ownAddressType: AddressType = .publicDevice, filterPolicy: UInt8 = 0) {
        self.scanType = scanType
        self.interval = interval
        self.window = window
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
    }
}

/// LE Create Connection (§7.8.12).
public struct LECreateConnectionParameters: Hashable, Sendable {
    public var scanInterval: UInt16
    public var scanWindow: UInt16
    public var initiatorFilterPolicy: UInt8
    public var peerAddressType: AddressType
    public var peerAddress: BluetoothAddress
    public var ownAddressType: AddressType
    public var connection: LEConnectionParameters

    public init(scanInterval: UInt16 = 0x0060, scanWindow: UInt16 = 0x0060, initiatorFilterPolicy: UInt8 = 0,
                peerAddressType: AddressType, peerAddress: BluetoothAddress,
                ownAddressType: AddressType = .publicDevice, connection: LEConnectionParameters = .init()) {
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.initiatorFilterPolicy = initiatorFilterPolicy
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.ownAddressType = ownAddressType
        self.connection = connection
    }
}

/// LE Set Extended Advertising Parameters, version 1 (§7.8.53). Intervals in 0.625 ms (24 bits).
public struct LEExtendedAdvertisingParameters: Hashable, Sendable {
    public var handle: UInt8
    /// Bit 0 connectable, 1 scannable, 2 directed, 3 high duty, 4 legacy PDUs, 5 anonymous, 6 TX power.
    public var eventProperties: UInt16
    public var intervalMin: UInt32
    public var intervalMax: UInt32
    public var channelMap: UInt8
    public var ownAddressType: AddressType
    public var peerAddressType: AddressType
    public var peerAddress: BluetoothAddress
    public var filterPolicy: UInt8
    /// 127 means "no preference".
    public var txPower: Int8
    public var primaryPHY: UInt8
    public var secondaryMaxSkip: UInt8
    public var secondaryPHY: UInt8
    public var sid: UInt8
    public var scanRequestNotification: Bool

    public init(handle: UInt8 = 0, eventProperties: UInt16 = 0b1_0011, intervalMin: UInt32 = 0xA0,
                intervalMax: UInt32 = 0xA0, channelMap: UInt8 = 0x07, ownAddressType: AddressType = .publicDevice,
                peerAddressType: AddressType = .publicDevice, peerAddress: BluetoothAddress = .zero,
                filterPolicy: UInt8 = 0, txPower: Int8 = 127, primaryPHY: UInt8 = 1, secondaryMaxSkip: UInt8 = 0,
                secondaryPHY: UInt8 = 1, sid: UInt8 = 0, scanRequestNotification: Bool = false) {
        self.handle = handle
        self.eventProperties = eventProperties
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.channelMap = channelMap
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.filterPolicy = filterPolicy
        self.txPower = txPower
        self.primaryPHY = primaryPHY
        self.secondaryMaxSkip = secondaryMaxSkip
        self.secondaryPHY = secondaryPHY
        self.sid = sid
        self.scanRequestNotification = scanRequestNotification
    }
}

/// LE Set Extended Advertising Data / Scan Response Data (§7.8.54, §7.8.55).
public struct LEExtendedAdvertisingData: Hashable, Sendable {
    public var handle: UInt8
    /// 0 intermediate fragment, 1 first, 2 last, 3 complete, 4 unchanged data.
    public var operation: UInt8
    public var fragmentPreference: UInt8
    public var data: [UInt8]

    public init(handle: UInt8 = 0, operation: UInt8 = 3, fragmentPreference: UInt8 = 1, data: [UInt8]) {
        self.handle = handle
        self.operation = operation
        self.fragmentPreference = fragmentPreference
        self.data = data
    }
}

/// One advertising set in LE Set Extended Advertising Enable (§7.8.56).
public struct LEAdvertisingSetEnable: Hashable, Sendable {
    public var handle: UInt8
    /// In 10 ms; 0 advertises until disabled.
    public var duration: UInt16
    public var maxEvents: UInt8

    public init(handle: UInt8 = 0, duration: UInt16 = 0, maxEvents: UInt8 = 0) {
        self.handle = handle
        self.duration = duration
        self.maxEvents = maxEvents
    }
}

/// The scan settings for one PHY in LE Set Extended Scan Parameters (§7.8.64).
public struct LEExtendedScanPHY: Hashable, Sendable {
    public var scanType: UInt8
    public var interval: UInt16
    public var window: UInt16

    public init(scanType: UInt8 = 1, interval: UInt16 = 0x0010, window: UInt16 = 0x0010) {
        self.scanType = scanType
        self.interval = interval
        self.window = window
    }
}

/// The settings for one PHY in LE Extended Create Connection (§7.8.66).
public struct LEInitiatingPHY: Hashable, Sendable {
    public var scanInterval: UInt16
    public var scanWindow: UInt16
    public var connection: LEConnectionParameters

    public init(scanInterval: UInt16 = 0x0060, scanWindow: UInt16 = 0x0060, connection: LEConnectionParameters = .init()) {
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.connection = connection
    }
}
