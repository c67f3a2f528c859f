import BleuCore

/// The subevents of the LE Meta event (Core Spec Vol 4 Part E §7.7.65) this stack uses.
///
/// Times are `Duration`s, converted from and to the controller's unit for each field (given
/// below) as ``HCICommand``'s are: decoding keeps the controller's value exactly, in range or
/// not; encoding rounds to the nearest unit and clamps into the specification's range.
public enum LEMetaEvent: Hashable, Sendable {
    /// 0x01.
    case connectionComplete(LEConnectionComplete)
    /// 0x02: legacy advertising reports.
    case advertisingReport([LEAdvertisingReport])
    /// 0x03. `interval`: 1.25 ms units, 7.5 ms – 4 s; `supervisionTimeout`: 10 ms units, 100 ms – 32 s.
    case connectionUpdateComplete(status: UInt8, handle: UInt16, interval: Duration, latency: UInt16, supervisionTimeout: Duration)
    /// 0x04.
    case readRemoteFeaturesComplete(status: UInt8, handle: UInt16, features: UInt64)
    /// 0x05.
    case longTermKeyRequest(handle: UInt16, random: UInt64, ediv: UInt16)
    /// 0x06: the peer asks for new connection parameters. Intervals: 1.25 ms units, 7.5 ms – 4 s;
    /// `timeout` (supervision): 10 ms units, 100 ms – 32 s.
    case remoteConnectionParameterRequest(handle: UInt16, intervalMin: Duration, intervalMax: Duration, latency: UInt16,
                                          timeout: Duration)
    /// 0x07. Times: the longest air time of an LL data PDU, µs, 328 µs – 17,040 µs.
    case dataLengthChange(handle: UInt16, maxTxOctets: UInt16, maxTxTime: Duration, maxRxOctets: UInt16, maxRxTime: Duration)
    /// 0x0A: like ``connectionComplete(_:)`` with the resolvable private addresses.
    case enhancedConnectionComplete(LEConnectionComplete)
    /// 0x0C.
    case phyUpdateComplete(status: UInt8, handle: UInt16, txPHY: LEPHY, rxPHY: LEPHY)
    /// 0x0D: extended advertising reports.
    case extendedAdvertisingReport([LEExtendedAdvertisingReport])
    /// 0x12: an advertising set stopped, for example because a central connected.
    case advertisingSetTerminated(status: UInt8, advertisingHandle: UInt8, connectionHandle: UInt16, completedEvents: UInt8)
    /// 0x14.
    case channelSelectionAlgorithm(handle: UInt16, algorithm: UInt8)
    /// 0x29: ``enhancedConnectionComplete(_:)`` with the advertising set and sync handles.
    case enhancedConnectionCompleteV2(LEConnectionComplete)
    /// Any other subevent.
    case unknown(subevent: UInt8, parameters: [UInt8])

    /// The subevent code.
    public var subevent: UInt8 {
        switch self {
        case .connectionComplete: 0x01
        case .advertisingReport: 0x02
        case .connectionUpdateComplete: 0x03
        case .readRemoteFeaturesComplete: 0x04
        case .longTermKeyRequest: 0x05
        case .remoteConnectionParameterRequest: 0x06
        case .dataLengthChange: 0x07
        case .enhancedConnectionComplete: 0x0A
        case .phyUpdateComplete: 0x0C
        case .extendedAdvertisingReport: 0x0D
        case .advertisingSetTerminated: 0x12
        case .channelSelectionAlgorithm: 0x14
        case .enhancedConnectionCompleteV2: 0x29
        case .unknown(let subevent, _): subevent
        }
    }

    /// The LE Meta event's parameters: the subevent code, then the subevent's fields.
    public var parameters: [UInt8] {
        var b: [UInt8] = [subevent]
        switch self {
        case .connectionComplete(let c): c.encode(into: &b, version: 0)
        case .enhancedConnectionComplete(let c): c.encode(into: &b, version: 1)
        case .enhancedConnectionCompleteV2(let c): c.encode(into: &b, version: 2)
        case .advertisingReport(let reports):
            b.append(UInt8(truncatingIfNeeded: reports.count))
            for r in reports { r.encode(into: &b) }
        case let .connectionUpdateComplete(status, handle, interval, latency, timeout):
            b.append(status)
            for v in [handle, HCITime.connectionInterval.count16(interval), latency, HCITime.supervisionTimeout.count16(timeout)] {
                b.appendLE(v)
            }
        case let .readRemoteFeaturesComplete(status, handle, features):
            b.append(status)
            b.appendLE(handle)
            b.appendLE(features)
        case let .longTermKeyRequest(handle, random, ediv):
            b.appendLE(handle)
            b.appendLE(random)
            b.appendLE(ediv)
        case let .remoteConnectionParameterRequest(handle, min, max, latency, timeout):
            for v in [handle, HCITime.connectionInterval.count16(min), HCITime.connectionInterval.count16(max), latency,
                      HCITime.supervisionTimeout.count16(timeout)] { b.appendLE(v) }
        case let .dataLengthChange(handle, txOctets, txTime, rxOctets, rxTime):
            for v in [handle, txOctets, HCITime.packetTime.count16(txTime), rxOctets, HCITime.packetTime.count16(rxTime)] {
                b.appendLE(v)
            }
        case let .phyUpdateComplete(status, handle, tx, rx):
            b.append(status)
            b.appendLE(handle)
            b += [tx.rawValue, rx.rawValue]
        case .extendedAdvertisingReport(let reports):
            b.append(UInt8(truncatingIfNeeded: reports.count))
            for r in reports { r.encode(into: &b) }
        case let .advertisingSetTerminated(status, advertisingHandle, connectionHandle, completedEvents):
            b += [status, advertisingHandle]
            b.appendLE(connectionHandle)
            b.append(completedEvents)
        case let .channelSelectionAlgorithm(handle, algorithm):
            b.appendLE(handle)
            b.append(algorithm)
        case .unknown(_, let parameters):
            b += parameters
        }
        return b
    }

    /// Reads the LE Meta event's parameters (subevent code first).
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        var head = ByteReader(bytes, packet: "LE Meta event")
        let subevent = try head.u8()
        var r = ByteReader(head.rest(), packet: "LE Meta event 0x\(hex2(subevent))")
        switch subevent {
        case 0x01: self = .connectionComplete(try LEConnectionComplete(reading: &r, version: 0))
        case 0x0A: self = .enhancedConnectionComplete(try LEConnectionComplete(reading: &r, version: 1))
        case 0x29: self = .enhancedConnectionCompleteV2(try LEConnectionComplete(reading: &r, version: 2))
        case 0x02:
            let count = Int(try r.u8())
            var reports: [LEAdvertisingReport] = []
            for _ in 0..<count { reports.append(try LEAdvertisingReport(reading: &r)) }
            self = .advertisingReport(reports)
        case 0x03:
            self = .connectionUpdateComplete(status: try r.u8(), handle: try r.u16(),
                                             interval: HCITime.connectionInterval.duration(try r.u16()), latency: try r.u16(),
                                             supervisionTimeout: HCITime.supervisionTimeout.duration(try r.u16()))
        case 0x04:
            self = .readRemoteFeaturesComplete(status: try r.u8(), handle: try r.u16(), features: try r.u64())
        case 0x05:
            self = .longTermKeyRequest(handle: try r.u16(), random: try r.u64(), ediv: try r.u16())
        case 0x06:
            self = .remoteConnectionParameterRequest(handle: try r.u16(),
                                                     intervalMin: HCITime.connectionInterval.duration(try r.u16()),
                                                     intervalMax: HCITime.connectionInterval.duration(try r.u16()),
                                                     latency: try r.u16(),
                                                     timeout: HCITime.supervisionTimeout.duration(try r.u16()))
        case 0x07:
            self = .dataLengthChange(handle: try r.u16(), maxTxOctets: try r.u16(),
                                     maxTxTime: HCITime.packetTime.duration(try r.u16()),
                                     maxRxOctets: try r.u16(), maxRxTime: HCITime.packetTime.duration(try r.u16()))
        case 0x0C:
            self = .phyUpdateComplete(status: try r.u8(), handle: try r.u16(), txPHY: LEPHY(rawValue: try r.u8()),
                                      rxPHY: LEPHY(rawValue: try r.u8()))
        case 0x0D:
            let count = Int(try r.u8())
            var reports: [LEExtendedAdvertisingReport] = []
            for _ in 0..<count { reports.append(try LEExtendedAdvertisingReport(reading: &r)) }
            self = .extendedAdvertisingReport(reports)
        case 0x12:
            self = .advertisingSetTerminated(status: try r.u8(), advertisingHandle: try r.u8(),
                                             connectionHandle: try r.u16(), completedEvents: try r.u8())
        case 0x14:
            self = .channelSelectionAlgorithm(handle: try r.u16(), algorithm: try r.u8())
        default:
            self = .unknown(subevent: subevent, parameters: r.rest())
        }
        try r.finish()
    }
}

/// The fields of the LE (Enhanced) Connection Complete events.
public struct LEConnectionComplete: Hashable, Sendable {
    public var status: UInt8
    public var handle: UInt16
    /// Which end of the connection this device is.
    public var role: LEConnectionRole
    public var peerAddressType: AddressType
    public var peerAddress: BluetoothAddress
    /// Enhanced events only (zero otherwise).
    public var localResolvablePrivateAddress: BluetoothAddress
    /// Enhanced events only (zero otherwise).
    public var peerResolvablePrivateAddress: BluetoothAddress
    /// The connection interval: 1.25 ms units, 7.5 ms – 4 s.
    public var interval: Duration
    public var latency: UInt16
    /// The supervision timeout: 10 ms units, 100 ms – 32 s.
    public var supervisionTimeout: Duration
    public var centralClockAccuracy: UInt8
    /// Version 2 only: the advertising set a peripheral connection came from (0xFF none).
    public var advertisingHandle: UInt8
    /// Version 2 only.
    public var syncHandle: UInt16

    public init(status: UInt8 = 0, handle: UInt16, role: LEConnectionRole, peerAddressType: AddressType,
                peerAddress: BluetoothAddress, localResolvablePrivateAddress: BluetoothAddress = .zero,
                peerResolvablePrivateAddress: BluetoothAddress = .zero, interval: Duration = .milliseconds(30), latency: UInt16 = 0,
                supervisionTimeout: Duration = .seconds(5), centralClockAccuracy: UInt8 = 0, advertisingHandle: UInt8 = 0xFF,
                syncHandle: UInt16 = 0xFFFF) {
        self.status = status
        self.handle = handle
        self.role = role
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.localResolvablePrivateAddress = localResolvablePrivateAddress
        self.peerResolvablePrivateAddress = peerResolvablePrivateAddress
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        self.centralClockAccuracy = centralClockAccuracy
        self.advertisingHandle = advertisingHandle
        self.syncHandle = syncHandle
    }

    func encode(into b: inout [UInt8], version: Int) {
        b.append(status)
        b.appendLE(handle)
        b += [role.rawValue, peerAddressType.rawValue]
        b.append(peerAddress)
        if version >= 1 {
            b.append(localResolvablePrivateAddress)
            b.append(peerResolvablePrivateAddress)
        }
        for v in [HCITime.connectionInterval.count16(interval), latency, HCITime.supervisionTimeout.count16(supervisionTimeout)] {
            b.appendLE(v)
        }
        b.append(centralClockAccuracy)
        if version >= 2 {
            b.append(advertisingHandle)
            b.appendLE(syncHandle)
        }
    }

    init(reading r: inout ByteReader, version: Int) throws(PacketDecodingError) {
        status = try r.u8()
        handle = try r.u16()
        role = LEConnectionRole(rawValue: try r.u8())
        peerAddressType = AddressType(rawValue: try r.u8())
        peerAddress = try r.address()
        localResolvablePrivateAddress = version >= 1 ? try r.address() : .zero
        peerResolvablePrivateAddress = version >= 1 ? try r.address() : .zero
        interval = HCITime.connectionInterval.duration(try r.u16())
        latency = try r.u16()
        supervisionTimeout = HCITime.supervisionTimeout.duration(try r.u16())
        centralClockAccuracy = try r.u8()
        advertisingHandle = version >= 2 ? try r.u8() : 0xFF
        syncHandle = version >= 2 ? try r.u16() : 0xFFFF
    }
}

/// One report of the LE Advertising Report event.
public struct LEAdvertisingReport: Hashable, Sendable {
    /// Which legacy PDU was received.
    public var eventType: LEAdvertisingReportType
    public var addressType: AddressType
    public var address: BluetoothAddress
    /// The AD structures, at most 31 bytes.
    public var data: [UInt8]
    /// dBm; 127 when not available.
    public var rssi: Int8

    public init(eventType: LEAdvertisingReportType, addressType: AddressType, address: BluetoothAddress, data: [UInt8], rssi: Int8) {
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.data = data
        self.rssi = rssi
    }

    func encode(into b: inout [UInt8]) {
        b += [eventType.rawValue, addressType.rawValue]
        b.append(address)
        b.append(UInt8(truncatingIfNeeded: data.count))
        b += data
        b.append(UInt8(bitPattern: rssi))
    }

    init(reading r: inout ByteReader) throws(PacketDecodingError) {
        eventType = LEAdvertisingReportType(rawValue: try r.u8())
        addressType = AddressType(rawValue: try r.u8())
        address = try r.address()
        let length = Int(try r.u8())
        guard length <= 31 else { throw r.error(.invalidValue(field: "advertising data length", value: length)) }
        data = try r.take(length)
        rssi = try r.i8()
    }
}

/// One report of the LE Extended Advertising Report event.
public struct LEExtendedAdvertisingReport: Hashable, Sendable {
    /// What the advertiser allows, and whether the data is complete.
    public var eventType: LEExtendedAdvertisingEventType
    public var addressType: AddressType
    public var address: BluetoothAddress
    /// The PHY of the primary advertising channel: LE 1M or LE Coded.
    public var primaryPHY: LEPHY
    /// The PHY of the secondary advertising channel; `nil` (0x00) when nothing was received on it.
    public var secondaryPHY: LEPHY?
    public var sid: UInt8
    public var txPower: Int8
    public var rssi: Int8
    /// The periodic advertising interval: 1.25 ms units, 7.5 ms – 81.91875 s; `nil` (0) when
    /// the advertiser does no periodic advertising.
    public var periodicInterval: Duration?
    public var directAddressType: AddressType
    public var directAddress: BluetoothAddress
    public var data: [UInt8]

    public init(eventType: LEExtendedAdvertisingEventType, addressType: AddressType, address: BluetoothAddress,
                primaryPHY: LEPHY = .le1M, secondaryPHY: LEPHY? = nil, sid: UInt8 = 0xFF, txPower: Int8 = 127, rssi: Int8,
                periodicInterval: Duration? = nil,
                directAddressType: AddressType = .publicDevice, directAddress: BluetoothAddress = .zero, data: [UInt8]) {
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.sid = sid
        self.txPower = txPower
        self.rssi = rssi
        self.periodicInterval = periodicInterval
        self.directAddressType = directAddressType
        self.directAddress = directAddress
        self.data = data
    }

    /// Whether a central may connect to the advertiser.
    public var isConnectable: Bool { eventType.contains(.connectable) }
    /// Whether this report carries a scan response.
    public var isScanResponse: Bool { eventType.contains(.scanResponse) }

    func encode(into b: inout [UInt8]) {
        b.appendLE(eventType.rawValue)
        b.append(addressType.rawValue)
        b.append(address)
        b += [primaryPHY.rawValue, secondaryPHY?.rawValue ?? 0, sid, UInt8(bitPattern: txPower), UInt8(bitPattern: rssi)]
        b.appendLE(HCITime.periodicAdvertisingInterval.count16(periodicInterval))
        b.append(directAddressType.rawValue)
        b.append(directAddress)
        b.append(UInt8(truncatingIfNeeded: data.count))
        b += data
    }

    init(reading r: inout ByteReader) throws(PacketDecodingError) {
        eventType = LEExtendedAdvertisingEventType(rawValue: try r.u16())
        addressType = AddressType(rawValue: try r.u8())
        address = try r.address()
        primaryPHY = LEPHY(rawValue: try r.u8())
        let secondary = try r.u8()
        secondaryPHY = secondary == 0 ? nil : LEPHY(rawValue: secondary)
        sid = try r.u8()
        txPower = try r.i8()
        rssi = try r.i8()
        periodicInterval = HCITime.periodicAdvertisingInterval.durationUnlessZero(try r.u16())
        directAddressType = AddressType(rawValue: try r.u8())
        directAddress = try r.address()
        data = try r.take(Int(try r.u8()))
    }
}
