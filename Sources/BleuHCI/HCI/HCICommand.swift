import BleuCore

/// An HCI command the host sends (Core Spec Vol 4 Part E §7), with symmetric
/// ``encoded`` / ``init(decoding:)``. Commands this stack does not model travel as ``raw(_:_:)``.
public enum HCICommand: Hashable, Sendable {
    case reset
    case setEventMask(UInt64)
    case writeLEHostSupport(leSupported: Bool)
    case readLocalVersionInformation
    case readLocalSupportedCommands
    case readLocalSupportedFeatures
    case readBufferSize
    case readBDADDR
    case readRSSI(handle: UInt16)
    case disconnect(handle: UInt16, reason: UInt8)
    case leSetEventMask(UInt64)
    case leReadBufferSize
    case leReadBufferSizeV2
    case leReadLocalSupportedFeatures
    case leSetRandomAddress(BluetoothAddress)
    case leSetAdvertisingParameters(LEAdvertisingParameters)
    /// Up to 31 bytes; sent padded to 31 with the length in front.
    case leSetAdvertisingData([UInt8])
    case leSetScanResponseData([UInt8])
    case leSetAdvertisingEnable(Bool)
    case leSetScanParameters(LEScanParameters)
    case leSetScanEnable(enable: Bool, filterDuplicates: Bool)
    case leCreateConnection(LECreateConnectionParameters)
    case leCreateConnectionCancel
    case leConnectionUpdate(handle: UInt16, LEConnectionParameters)
    case leReadRemoteFeatures(handle: UInt16)
    case leRemoteConnectionParameterRequestReply(handle: UInt16, LEConnectionParameters)
    case leRemoteConnectionParameterRequestNegativeReply(handle: UInt16, reason: UInt8)
    /// `txTime`: the longest air time of an LL data PDU, in µs, 328 µs – 17,040 µs (clamped).
    case leSetDataLength(handle: UInt16, txOctets: UInt16, txTime: Duration)
    /// The central starts (or restarts) encryption with a key (LE Enable Encryption, §7.8.24):
    /// the Rand and EDIV that name it (both 0 for a Secure Connections key) and the key, most
    /// significant octet first.
    case leEnableEncryption(handle: UInt16, random: UInt64, ediv: UInt16, longTermKey: [UInt8])
    /// The peripheral answers an LE Long Term Key Request with the key, most significant octet
    /// first (§7.8.25).
    case leLongTermKeyRequestReply(handle: UInt16, longTermKey: [UInt8])
    /// The peripheral has no key for an LE Long Term Key Request (§7.8.26).
    case leLongTermKeyRequestNegativeReply(handle: UInt16)
    case leReadMaximumDataLength
    case leSetPHY(handle: UInt16, allPHYs: LEAllPHYs, txPHYs: LEPHYSet, rxPHYs: LEPHYSet, options: UInt16)
    case leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters)
    case leSetExtendedAdvertisingData(LEExtendedAdvertisingData)
    case leSetExtendedScanResponseData(LEExtendedAdvertisingData)
    case leSetExtendedAdvertisingEnable(enable: Bool, sets: [LEAdvertisingSetEnable])
    case leReadMaximumAdvertisingDataLength
    case leReadNumberOfSupportedAdvertisingSets
    case leRemoveAdvertisingSet(handle: UInt8)
    /// One entry per PHY in `phys` (LE 1M, LE Coded), in bit order.
    case leSetExtendedScanParameters(ownAddressType: AddressType, filterPolicy: UInt8, phys: LEPHYSet, [LEExtendedScanPHY])
    /// `duration`: how long to scan, 10 ms units, 10 ms – 655.35 s (clamped), `nil` until
    /// disabled; `period`: how often to start such a scan, 1.28 s units, 1.28 s – 83,884.8 s
    /// (clamped), `nil` for no periodic scanning.
    case leSetExtendedScanEnable(enable: Bool, filterDuplicates: UInt8, duration: Duration?, period: Duration?)
    /// One entry per PHY in `phys` (LE 1M, LE 2M, LE Coded), in bit order.
    case leExtendedCreateConnection(filterPolicy: UInt8, ownAddressType: AddressType, peerAddressType: AddressType,
                                    peerAddress: BluetoothAddress, phys: LEPHYSet, [LEInitiatingPHY])
    /// Any other command: its opcode and parameter bytes.
    case raw(HCIOpcode, [UInt8])

    /// The command's opcode.
    public var opcode: HCIOpcode {
        switch self {
        case .reset: .reset
        case .setEventMask: .setEventMask
        case .writeLEHostSupport: .writeLEHostSupport
        case .readLocalVersionInformation: .readLocalVersionInformation
        case .readLocalSupportedCommands: .readLocalSupportedCommands
        case .readLocalSupportedFeatures: .readLocalSupportedFeatures
        case .readBufferSize: .readBufferSize
        case .readBDADDR: .readBDADDR
        case .readRSSI: .readRSSI
        case .disconnect: .disconnect
        case .leSetEventMask: .leSetEventMask
        case .leReadBufferSize: .leReadBufferSize
        case .leReadBufferSizeV2: .leReadBufferSizeV2
        case .leReadLocalSupportedFeatures: .leReadLocalSupportedFeatures
        case .leSetRandomAddress: .leSetRandomAddress
        case .leSetAdvertisingParameters: .leSetAdvertisingParameters
        case .leSetAdvertisingData: .leSetAdvertisingData
        case .leSetScanResponseData: .leSetScanResponseData
        case .leSetAdvertisingEnable: .leSetAdvertisingEnable
        case .leSetScanParameters: .leSetScanParameters
        case .leSetScanEnable: .leSetScanEnable
        case .leCreateConnection: .leCreateConnection
        case .leCreateConnectionCancel: .leCreateConnectionCancel
        case .leConnectionUpdate: .leConnectionUpdate
        case .leReadRemoteFeatures: .leReadRemoteFeatures
        case .leRemoteConnectionParameterRequestReply: .leRemoteConnectionParameterRequestReply
        case .leRemoteConnectionParameterRequestNegativeReply: .leRemoteConnectionParameterRequestNegativeReply
        case .leSetDataLength: .leSetDataLength
        case .leEnableEncryption: .leEnableEncryption
        case .leLongTermKeyRequestReply: .leLongTermKeyRequestReply
        case .leLongTermKeyRequestNegativeReply: .leLongTermKeyRequestNegativeReply
        case .leReadMaximumDataLength: .leReadMaximumDataLength
        case .leSetPHY: .leSetPHY
        case .leSetExtendedAdvertisingParameters: .leSetExtendedAdvertisingParameters
        case .leSetExtendedAdvertisingData: .leSetExtendedAdvertisingData
        case .leSetExtendedScanResponseData: .leSetExtendedScanResponseData
        case .leSetExtendedAdvertisingEnable: .leSetExtendedAdvertisingEnable
        case .leReadMaximumAdvertisingDataLength: .leReadMaximumAdvertisingDataLength
        case .leReadNumberOfSupportedAdvertisingSets: .leReadNumberOfSupportedAdvertisingSets
        case .leRemoveAdvertisingSet: .leRemoveAdvertisingSet
        case .leSetExtendedScanParameters: .leSetExtendedScanParameters
        case .leSetExtendedScanEnable: .leSetExtendedScanEnable
        case .leExtendedCreateConnection: .leExtendedCreateConnection
        case .raw(let opcode, _): opcode
        }
    }

    /// The parameter bytes, without the opcode and length header.
    public var parameters: [UInt8] {
        var b: [UInt8] = []
        switch self {
        case .reset, .readLocalVersionInformation, .readLocalSupportedCommands, .readLocalSupportedFeatures,
             .readBufferSize, .readBDADDR, .leReadBufferSize, .leReadBufferSizeV2, .leReadLocalSupportedFeatures,
             .leCreateConnectionCancel, .leReadMaximumDataLength, .leReadMaximumAdvertisingDataLength,
             .leReadNumberOfSupportedAdvertisingSets:
            break
        case .setEventMask(let mask), .leSetEventMask(let mask):
            b.appendLE(mask)
        case .writeLEHostSupport(let on):
            b += [on ? 1 : 0, 0]
        case .readRSSI(let handle), .leReadRemoteFeatures(let handle), .leLongTermKeyRequestNegativeReply(let handle):
            b.appendLE(handle)
        case let .disconnect(handle, reason), let .leRemoteConnectionParameterRequestNegativeReply(handle, reason):
            b.appendLE(handle)
            b.append(reason)
        case .leSetRandomAddress(let address):
            b.append(address)
        case .leSetAdvertisingParameters(let p):
            b.appendLE(HCITime.advertisingInterval.count16(p.intervalMin))
            b.appendLE(HCITime.advertisingInterval.count16(p.intervalMax))
            b += [p.advertisingType.rawValue, p.ownAddressType.rawValue, p.peerAddressType.rawValue]
            b.append(p.peerAddress)
            b += [p.channelMap.rawValue, p.filterPolicy]
        case .leSetAdvertisingData(let data), .leSetScanResponseData(let data):
            let clipped = data.prefix(31)
            b.append(UInt8(clipped.count))
            b += clipped
            b += [UInt8](repeating: 0, count: 31 - clipped.count)
        case .leSetAdvertisingEnable(let on):
            b.append(on ? 1 : 0)
        case .leSetScanParameters(let p):
            b.append(p.scanType.rawValue)
            b.appendLE(HCITime.scanInterval.count16(p.interval))
            b.appendLE(HCITime.scanInterval.count16(p.window))
            b += [p.ownAddressType.rawValue, p.filterPolicy]
        case let .leSetScanEnable(enable, filterDuplicates):
            b += [enable ? 1 : 0, filterDuplicates ? 1 : 0]
        case .leCreateConnection(let p):
            b.appendLE(HCITime.scanInterval.count16(p.scanInterval))
            b.appendLE(HCITime.scanInterval.count16(p.scanWindow))
            b += [p.initiatorFilterPolicy, p.peerAddressType.rawValue]
            b.append(p.peerAddress)
            b.append(p.ownAddressType.rawValue)
            p.connection.encode(into: &b)
        case let .leConnectionUpdate(handle, p), let .leRemoteConnectionParameterRequestReply(handle, p):
            b.appendLE(handle)
            p.encode(into: &b)
        case let .leSetDataLength(handle, octets, time):
            b.appendLE(handle)
            b.appendLE(octets)
            b.appendLE(HCITime.packetTime.count16(time))
        case let .leEnableEncryption(handle, random, ediv, key):
            b.appendLE(handle)
            b.appendLE(random)
            b.appendLE(ediv)
            b += Self.keyOctets(key)
        case let .leLongTermKeyRequestReply(handle, key):
            b.appendLE(handle)
            b += Self.keyOctets(key)
        case let .leSetPHY(handle, all, tx, rx, options):
            b.appendLE(handle)
            b += [all.rawValue, tx.rawValue, rx.rawValue]
            b.appendLE(options)
        case .leSetExtendedAdvertisingParameters(let p):
            b.append(p.handle)
            b.appendLE(p.eventProperties.rawValue)
            b.appendLE24(HCITime.extendedAdvertisingInterval.count(p.intervalMin))
            b.appendLE24(HCITime.extendedAdvertisingInterval.count(p.intervalMax))
            b += [p.channelMap.rawValue, p.ownAddressType.rawValue, p.peerAddressType.rawValue]
            b.append(p.peerAddress)
            b += [p.filterPolicy, UInt8(bitPattern: p.txPower), p.primaryPHY.rawValue, p.secondaryMaxSkip,
                  p.secondaryPHY.rawValue, p.sid, p.scanRequestNotification ? 1 : 0]
        case .leSetExtendedAdvertisingData(let d), .leSetExtendedScanResponseData(let d):
            b += [d.handle, d.operation, d.fragmentPreference, UInt8(truncatingIfNeeded: d.data.count)]
            b += d.data
        case let .leSetExtendedAdvertisingEnable(enable, sets):
            b += [enable ? 1 : 0, UInt8(truncatingIfNeeded: sets.count)]
            for set in sets {
                b.append(set.handle)
                b.appendLE(HCITime.enableDuration.count16(set.duration))
                b.append(set.maxEvents)
            }
        case .leRemoveAdvertisingSet(let handle):
            b.append(handle)
        case let .leSetExtendedScanParameters(own, filter, phys, entries):
            b += [own.rawValue, filter, phys.rawValue]
            for e in entries {
                b.append(e.scanType.rawValue)
                b.appendLE(HCITime.extendedScanInterval.count16(e.interval))
                b.appendLE(HCITime.extendedScanInterval.count16(e.window))
            }
        case let .leSetExtendedScanEnable(enable, filter, duration, period):
            b += [enable ? 1 : 0, filter]
            b.appendLE(HCITime.enableDuration.count16(duration))
            b.appendLE(HCITime.scanPeriod.count16(period))
        case let .leExtendedCreateConnection(filter, own, peerType, peer, phys, entries):
            b += [filter, own.rawValue, peerType.rawValue]
            b.append(peer)
            b.append(phys.rawValue)
            for e in entries {
                b.appendLE(HCITime.extendedScanInterval.count16(e.scanInterval))
                b.appendLE(HCITime.extendedScanInterval.count16(e.scanWindow))
                e.connection.encode(into: &b)
            }
        case .raw(_, let parameters):
            b = parameters
        }
        return b
    }

    /// The HCI command packet: opcode, parameter length, parameters (no H4 indicator).
    public var encoded: [UInt8] {
        let p = parameters
        var b: [UInt8] = []
        b.appendLE(opcode.rawValue)
        b.append(UInt8(truncatingIfNeeded: p.count))
        return b + p
    }

    /// A key as HCI carries it: 16 octets, least significant first (a shorter key is padded
    /// with zeros in its most significant octets).
    static func keyOctets(_ key: [UInt8]) -> [UInt8] {
        let padded = [UInt8](repeating: 0, count: max(0, 16 - key.count)) + key.suffix(16)
        return padded.reversed()
    }

    /// The command as an H4 packet.
    public var h4Packet: H4Packet { H4Packet(type: .command, body: encoded) }
}
