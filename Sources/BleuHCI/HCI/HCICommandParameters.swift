import BleuCore

// Times are `Duration`s. The codec converts each to the controller's unit for the field — the
// unit and the specification's range are in each property's documentation — rounding to the
// nearest unit (a half unit up) and clamping into the range, as a controller refuses a command
// with a value outside it; decoding keeps the bytes' value exactly, in range or not.

/// The six connection-parameter fields HCI LE commands share (Core Spec Vol 4 Part E §7.8.12).
public struct LEConnectionParameters: Hashable, Sendable {
    /// The shortest connection interval acceptable: 1.25 ms units, 7.5 ms – 4 s (clamped).
    public var intervalMin: Duration
    /// The longest connection interval acceptable: 1.25 ms units, 7.5 ms – 4 s (clamped).
    public var intervalMax: Duration
    /// Connection events the peripheral may skip (0–499).
    public var maxLatency: UInt16
    /// How long the link survives without a packet: 10 ms units, 100 ms – 32 s (clamped).
    public var supervisionTimeout: Duration
    /// A hint of the connection event's length: 0.625 ms units, 0 – 40.959375 s (clamped).
    public var minCELength: Duration
    /// A hint of the connection event's length: 0.625 ms units, 0 – 40.959375 s (clamped).
    public var maxCELength: Duration

    /// Connection parameters; the defaults ask for a 30–50 ms interval and a 5 s supervision timeout.
    public init(intervalMin: Duration = .milliseconds(30), intervalMax: Duration = .milliseconds(50), maxLatency: UInt16 = 0,
                supervisionTimeout: Duration = .seconds(5), minCELength: Duration = .zero, maxCELength: Duration = .zero) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.maxLatency = maxLatency
        self.supervisionTimeout = supervisionTimeout
        self.minCELength = minCELength
        self.maxCELength = maxCELength
    }

    func encode(into bytes: inout [UInt8]) {
        bytes.appendLE(HCITime.connectionInterval.count16(intervalMin))
        bytes.appendLE(HCITime.connectionInterval.count16(intervalMax))
        bytes.appendLE(maxLatency)
        bytes.appendLE(HCITime.supervisionTimeout.count16(supervisionTimeout))
        bytes.appendLE(HCITime.connectionEventLength.count16(minCELength))
        bytes.appendLE(HCITime.connectionEventLength.count16(maxCELength))
    }

    init(reading r: inout ByteReader) throws(PacketDecodingError) {
        self.init(intervalMin: HCITime.connectionInterval.duration(try r.u16()),
                  intervalMax: HCITime.connectionInterval.duration(try r.u16()), maxLatency: try r.u16(),
                  supervisionTimeout: HCITime.supervisionTimeout.duration(try r.u16()),
                  minCELength: HCITime.connectionEventLength.duration(try r.u16()),
                  maxCELength: HCITime.connectionEventLength.duration(try r.u16()))
    }
}

/// LE Set Advertising Parameters (§7.8.5).
public struct LEAdvertisingParameters: Hashable, Sendable {
    /// The shortest time between advertising events: 0.625 ms units, 20 ms – 10.24 s (clamped).
    public var intervalMin: Duration
    /// The longest time between advertising events: 0.625 ms units, 20 ms – 10.24 s (clamped).
    public var intervalMax: Duration
    /// Which legacy PDU to advertise with.
    public var advertisingType: LEAdvertisingType
    public var ownAddressType: AddressType
    public var peerAddressType: AddressType
    public var peerAddress: BluetoothAddress
    /// The primary advertising channels used.
    public var channelMap: LEAdvertisingChannels
    public var filterPolicy: UInt8

    /// Advertising parameters; the defaults advertise ADV_IND every 100 ms on all three channels.
    public init(intervalMin: Duration = .milliseconds(100), intervalMax: Duration = .milliseconds(100),
                advertisingType: LEAdvertisingType = .connectableScannableUndirected,
                ownAddressType: AddressType = .publicDevice, peerAddressType: AddressType = .publicDevice,
                peerAddress: BluetoothAddress = .zero, channelMap: LEAdvertisingChannels = .all, filterPolicy: UInt8 = 0) {
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

/// LE Set Scan Parameters (§7.8.10).
public struct LEScanParameters: Hashable, Sendable {
    /// Passive or active (scan requests).
    public var scanType: LEScanType
    /// How often a scan starts: 0.625 ms units, 2.5 ms – 10.24 s (clamped).
    public var interval: Duration
    /// How long each scan lasts, at most the interval: 0.625 ms units, 2.5 ms – 10.24 s (clamped).
    public var window: Duration
    public var ownAddressType: AddressType
    public var filterPolicy: UInt8

    /// Scan parameters; the defaults scan actively, 10 ms every 10 ms.
    public init(scanType: LEScanType = .active, interval: Duration = .milliseconds(10), window: Duration = .milliseconds(10),
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
    /// How often the initiator scans: 0.625 ms units, 2.5 ms – 10.24 s (clamped).
    public var scanInterval: Duration
    /// How long each scan lasts: 0.625 ms units, 2.5 ms – 10.24 s (clamped).
    public var scanWindow: Duration
    public var initiatorFilterPolicy: UInt8
    public var peerAddressType: AddressType
    public var peerAddress: BluetoothAddress
    public var ownAddressType: AddressType
    public var connection: LEConnectionParameters

    /// Parameters to connect to `peerAddress`; the defaults scan 60 ms every 60 ms.
    public init(scanInterval: Duration = .milliseconds(60), scanWindow: Duration = .milliseconds(60),
                initiatorFilterPolicy: UInt8 = 0, peerAddressType: AddressType, peerAddress: BluetoothAddress,
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

/// LE Set Extended Advertising Parameters, version 1 (§7.8.53).
public struct LEExtendedAdvertisingParameters: Hashable, Sendable {
    public var handle: UInt8
    /// What kind of advertising the set does.
    public var eventProperties: LEAdvertisingEventProperties
    /// The shortest time between advertising events: 0.625 ms units, 20 ms – 10,485.759375 s (clamped).
    public var intervalMin: Duration
    /// The longest time between advertising events: 0.625 ms units, 20 ms – 10,485.759375 s (clamped).
    public var intervalMax: Duration
    /// The primary advertising channels used.
    public var channelMap: LEAdvertisingChannels
    public var ownAddressType: AddressType
    public var peerAddressType: AddressType
    public var peerAddress: BluetoothAddress
    public var filterPolicy: UInt8
    /// 127 means "no preference".
    public var txPower: Int8
    /// The PHY of the primary advertising channels: LE 1M or LE Coded.
    public var primaryPHY: LEPHY
    public var secondaryMaxSkip: UInt8
    /// The PHY of the secondary advertising channel (extended PDUs only).
    public var secondaryPHY: LEPHY
    public var sid: UInt8
    public var scanRequestNotification: Bool

    /// Advertising-set parameters; the defaults advertise connectable, scannable legacy PDUs
    /// every 100 ms on all three channels, on LE 1M.
    public init(handle: UInt8 = 0, eventProperties: LEAdvertisingEventProperties = [.connectable, .scannable, .legacy],
                intervalMin: Duration = .milliseconds(100), intervalMax: Duration = .milliseconds(100),
                channelMap: LEAdvertisingChannels = .all, ownAddressType: AddressType = .publicDevice,
                peerAddressType: AddressType = .publicDevice, peerAddress: BluetoothAddress = .zero,
                filterPolicy: UInt8 = 0, txPower: Int8 = 127, primaryPHY: LEPHY = .le1M, secondaryMaxSkip: UInt8 = 0,
                secondaryPHY: LEPHY = .le1M, sid: UInt8 = 0, scanRequestNotification: Bool = false) {
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
    /// How long the set advertises: 10 ms units, 10 ms – 655.35 s (clamped); `nil` advertises
    /// until disabled.
    public var duration: Duration?
    public var maxEvents: UInt8

    public init(handle: UInt8 = 0, duration: Duration? = nil, maxEvents: UInt8 = 0) {
        self.handle = handle
        self.duration = duration
        self.maxEvents = maxEvents
    }
}

/// The scan settings for one PHY in LE Set Extended Scan Parameters (§7.8.64).
public struct LEExtendedScanPHY: Hashable, Sendable {
    /// Passive or active (scan requests).
    public var scanType: LEScanType
    /// How often a scan starts: 0.625 ms units, 2.5 ms – 40.959375 s (clamped).
    public var interval: Duration
    /// How long each scan lasts: 0.625 ms units, 2.5 ms – 40.959375 s (clamped).
    public var window: Duration

    /// Scan settings; the defaults scan actively, 10 ms every 10 ms.
    public init(scanType: LEScanType = .active, interval: Duration = .milliseconds(10), window: Duration = .milliseconds(10)) {
        self.scanType = scanType
        self.interval = interval
        self.window = window
    }
}

/// The settings for one PHY in LE Extended Create Connection (§7.8.66).
public struct LEInitiatingPHY: Hashable, Sendable {
    /// How often the initiator scans: 0.625 ms units, 2.5 ms – 40.959375 s (clamped).
    public var scanInterval: Duration
    /// How long each scan lasts: 0.625 ms units, 2.5 ms – 40.959375 s (clamped).
    public var scanWindow: Duration
    public var connection: LEConnectionParameters

    /// Initiating settings; the defaults scan 60 ms every 60 ms.
    public init(scanInterval: Duration = .milliseconds(60), scanWindow: Duration = .milliseconds(60),
                connection: LEConnectionParameters = .init()) {
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.connection = connection
    }
}
