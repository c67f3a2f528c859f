import BleuCore

extension HCICommand {
    /// Reads a command packet (opcode, length, parameters; no H4 indicator). Opcodes this type
    /// does not model decode as ``raw(_:_:)``; a modelled command with the wrong parameter
    /// length throws.
    public init(decoding bytes: [UInt8]) throws(PacketDecodingError) {
        var header = ByteReader(bytes, packet: "HCI command")
        let opcode = HCIOpcode(rawValue: try header.u16())
        let length = Int(try header.u8())
        guard header.remaining == length else {
            throw header.error(.lengthMismatch(declared: length, actual: header.remaining))
        }
        let parameters = header.rest()
        self = try Self.decode(opcode, parameters)
    }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private static func decode(_ opcode: HCIOpcode, _ parameters: [UInt8]) throws(PacketDecodingError) -> HCICommand {
        var r = ByteReader(parameters, packet: "HCI command \(opcode)")
        let command: HCICommand
        switch opcode {
        case .reset: command = .reset
        case .setEventMask: command = .setEventMask(try r.u64())
        case .writeLEHostSupport:
            command = .writeLEHostSupport(leSupported: try r.u8() != 0)
            _ = try r.u8()
        case .readLocalVersionInformation: command = .readLocalVersionInformation
        case .readLocalSupportedCommands: command = .readLocalSupportedCommands
        case .readLocalSupportedFeatures: command = .readLocalSupportedFeatures
        case .readBufferSize: command = .readBufferSize
        case .readBDADDR: command = .readBDADDR
        case .readRSSI: command = .readRSSI(handle: try r.u16())
        case .disconnect: command = .disconnect(handle: try r.u16(), reason: try r.u8())
        case .leSetEventMask: command = .leSetEventMask(try r.u64())
        case .leReadBufferSize: command = .leReadBufferSize
        case .leReadBufferSizeV2: command = .leReadBufferSizeV2
        case .leReadLocalSupportedFeatures: command = .leReadLocalSupportedFeatures
        case .leSetRandomAddress: command = .leSetRandomAddress(try r.address())
        case .leSetAdvertisingParameters:
            command = .leSetAdvertisingParameters(LEAdvertisingParameters(
                intervalMin: HCITime.advertisingInterval.duration(try r.u16()),
                intervalMax: HCITime.advertisingInterval.duration(try r.u16()),
                advertisingType: LEAdvertisingType(rawValue: try r.u8()),
                ownAddressType: AddressType(rawValue: try r.u8()), peerAddressType: AddressType(rawValue: try r.u8()),
                peerAddress: try r.address(), channelMap: LEAdvertisingChannels(rawValue: try r.u8()), filterPolicy: try r.u8()))
        case .leSetAdvertisingData, .leSetScanResponseData:
            let length = Int(try r.u8())
            guard length <= 31 else { throw r.error(.invalidValue(field: "data length", value: length)) }
            let data = try r.take(31)
            let used = Array(data.prefix(length))
            command = opcode == .leSetAdvertisingData ? .leSetAdvertisingData(used) : .leSetScanResponseData(used)
        case .leSetAdvertisingEnable: command = .leSetAdvertisingEnable(try r.u8() != 0)
        case .leSetScanParameters:
            command = .leSetScanParameters(LEScanParameters(
                scanType: LEScanType(rawValue: try r.u8()), interval: HCITime.scanInterval.duration(try r.u16()),
                window: HCITime.scanInterval.duration(try r.u16()),
                ownAddressType: AddressType(rawValue: try r.u8()), filterPolicy: try r.u8()))
        case .leSetScanEnable: command = .leSetScanEnable(enable: try r.u8() != 0, filterDuplicates: try r.u8() != 0)
        case .leCreateConnection:
            command = .leCreateConnection(LECreateConnectionParameters(
                scanInterval: HCITime.scanInterval.duration(try r.u16()), scanWindow: HCITime.scanInterval.duration(try r.u16()),
                initiatorFilterPolicy: try r.u8(),
                peerAddressType: AddressType(rawValue: try r.u8()), peerAddress: try r.address(),
                ownAddressType: AddressType(rawValue: try r.u8()), connection: try LEConnectionParameters(reading: &r)))
        case .leCreateConnectionCancel: command = .leCreateConnectionCancel
        case .leConnectionUpdate:
            command = .leConnectionUpdate(handle: try r.u16(), try LEConnectionParameters(reading: &r))
        case .leReadRemoteFeatures: command = .leReadRemoteFeatures(handle: try r.u16())
        case .leRemoteConnectionParameterRequestReply:
            command = .leRemoteConnectionParameterRequestReply(handle: try r.u16(), try LEConnectionParameters(reading: &r))
        case .leRemoteConnectionParameterRequestNegativeReply:
            command = .leRemoteConnectionParameterRequestNegativeReply(handle: try r.u16(), reason: try r.u8())
        case .leSetDataLength:
            command = .leSetDataLength(handle: try r.u16(), txOctets: try r.u16(), txTime: HCITime.packetTime.duration(try r.u16()))
        case .leReadMaximumDataLength: command = .leReadMaximumDataLength
        case .leEnableEncryption:
            command = .leEnableEncryption(handle: try r.u16(), random: try r.u64(), ediv: try r.u16(),
                                          longTermKey: (try r.take(16)).reversed())
        case .leLongTermKeyRequestReply:
            command = .leLongTermKeyRequestReply(handle: try r.u16(), longTermKey: (try r.take(16)).reversed())
        case .leLongTermKeyRequestNegativeReply: command = .leLongTermKeyRequestNegativeReply(handle: try r.u16())
        case .leSetPHY:
            command = .leSetPHY(handle: try r.u16(), allPHYs: LEAllPHYs(rawValue: try r.u8()),
                                txPHYs: LEPHYSet(rawValue: try r.u8()), rxPHYs: LEPHYSet(rawValue: try r.u8()),
                                options: try r.u16())
        case .leSetExtendedAdvertisingParameters:
            command = .leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters(
                handle: try r.u8(), eventProperties: LEAdvertisingEventProperties(rawValue: try r.u16()),
                intervalMin: HCITime.extendedAdvertisingInterval.duration(try r.u24()),
                intervalMax: HCITime.extendedAdvertisingInterval.duration(try r.u24()),
                channelMap: LEAdvertisingChannels(rawValue: try r.u8()), ownAddressType: AddressType(rawValue: try r.u8()),
                peerAddressType: AddressType(rawValue: try r.u8()), peerAddress: try r.address(),
                filterPolicy: try r.u8(), txPower: try r.i8(), primaryPHY: LEPHY(rawValue: try r.u8()),
                secondaryMaxSkip: try r.u8(), secondaryPHY: LEPHY(rawValue: try r.u8()), sid: try r.u8(),
                scanRequestNotification: try r.u8() != 0))
        case .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData:
            let handle = try r.u8(), operation = try r.u8(), preference = try r.u8()
            let length = Int(try r.u8())
            let data = LEExtendedAdvertisingData(handle: handle, operation: operation, fragmentPreference: preference,
                                                 data: try r.take(length))
            command = opcode == .leSetExtendedAdvertisingData
                ? .leSetExtendedAdvertisingData(data) : .leSetExtendedScanResponseData(data)
        case .leSetExtendedAdvertisingEnable:
            let enable = try r.u8() != 0
            let count = Int(try r.u8())
            var sets: [LEAdvertisingSetEnable] = []
            for _ in 0..<count {
                sets.append(LEAdvertisingSetEnable(handle: try r.u8(), duration: HCITime.enableDuration.durationUnlessZero(try r.u16()),
                                                   maxEvents: try r.u8()))
            }
            command = .leSetExtendedAdvertisingEnable(enable: enable, sets: sets)
        case .leReadMaximumAdvertisingDataLength: command = .leReadMaximumAdvertisingDataLength
        case .leReadNumberOfSupportedAdvertisingSets: command = .leReadNumberOfSupportedAdvertisingSets
        case .leRemoveAdvertisingSet: command = .leRemoveAdvertisingSet(handle: try r.u8())
        case .leSetExtendedScanParameters:
            let own = AddressType(rawValue: try r.u8()), filter = try r.u8(), phys = LEPHYSet(rawValue: try r.u8())
            var entries: [LEExtendedScanPHY] = []
            for _ in 0..<phys.rawValue.nonzeroBitCount {
                entries.append(LEExtendedScanPHY(scanType: LEScanType(rawValue: try r.u8()),
                                                 interval: HCITime.extendedScanInterval.duration(try r.u16()),
                                                 window: HCITime.extendedScanInterval.duration(try r.u16())))
            }
            command = .leSetExtendedScanParameters(ownAddressType: own, filterPolicy: filter, phys: phys, entries)
        case .leSetExtendedScanEnable:
            command = .leSetExtendedScanEnable(enable: try r.u8() != 0, filterDuplicates: try r.u8(),
                                               duration: HCITime.enableDuration.durationUnlessZero(try r.u16()),
                                               period: HCITime.scanPeriod.durationUnlessZero(try r.u16()))
        case .leExtendedCreateConnection:
            let filter = try r.u8(), own = AddressType(rawValue: try r.u8()), peerType = AddressType(rawValue: try r.u8())
            let peer = try r.address()
            let phys = LEPHYSet(rawValue: try r.u8())
            var entries: [LEInitiatingPHY] = []
            for _ in 0..<phys.rawValue.nonzeroBitCount {
                entries.append(LEInitiatingPHY(scanInterval: HCITime.extendedScanInterval.duration(try r.u16()),
                                               scanWindow: HCITime.extendedScanInterval.duration(try r.u16()),
                                               connection: try LEConnectionParameters(reading: &r)))
            }
            command = .leExtendedCreateConnection(filterPolicy: filter, ownAddressType: own, peerAddressType: peerType,
                                                  peerAddress: peer, phys: phys, entries)
        default:
            return .raw(opcode, parameters)
        }
        try r.finish()
        return command
    }
}
