import Foundation
import Testing
@testable import BleuCore

@Suite("ATTError")
struct ATTErrorTests {
    @Test("every specified code has its own name and meaning")
    func specifiedCodes() {
        let specified = Array(UInt8(0x01)...0x13) + [0xFC, 0xFD, 0xFE, 0xFF]
        var names = Set<String>()
        for code in specified {
            let error = ATTError(code)
            #expect(error.name != "Reserved" && error.name != "Application Error", "0x\(String(code, radix: 16))")
            #expect(!error.meaning.isEmpty)
            names.insert(error.name)
        }
        #expect(names.count == specified.count)
    }

    @Test("the named constants carry the specification's values")
    func constants() {
        #expect(ATTError.invalidHandle.rawValue == 0x01)
        #expect(ATTError.readNotPermitted.rawValue == 0x02)
        #expect(ATTError.insufficientAuthentication.rawValue == 0x05)
        #expect(ATTError.attributeNotLong.rawValue == 0x0B)
        #expect(ATTError.invalidAttributeValueLength.rawValue == 0x0D)
        #expect(ATTError.insufficientEncryption.rawValue == 0x0F)
        #expect(ATTError.valueNotAllowed.rawValue == 0x13)
        #expect(ATTError.writeRequestRejected.rawValue == 0xFC)
        #expect(ATTError.outOfRange.rawValue == 0xFF)
    }

    @Test("application range 0x80–0x9F")
    func applicationRange() {
        for code in UInt8(0x80)...0x9F {
            #expect(ATTError.application(code)?.isApplicationError == true)
            #expect(ATTError(code).name == "Application Error")
        }
        #expect(ATTError.application(0x7F) == nil)
        #expect(ATTError.application(0xA0) == nil)
        #expect(!ATTError.readNotPermitted.isApplicationError)
    }

    @Test("reserved codes are kept and described as reserved")
    func reserved() {
        for code: UInt8 in [0x00, 0x14, 0x7F, 0xA0, 0xE0, 0xFB] {
            #expect(ATTError(code).name == "Reserved")
            #expect(ATTError(code).rawValue == code)
        }
    }

    @Test("every code comes with a remedy; specified codes with one of their own kind")
    func remedies() {
        let reservedRemedy = ATTError(0x14).remedy
        let applicationRemedy = ATTError(0x80).remedy
        #expect(reservedRemedy != applicationRemedy)
        for code in UInt8.min...UInt8.max {
            let error = ATTError(code)
            #expect(!error.remedy.isEmpty)
            if error.name != "Reserved" && !error.isApplicationError {
                #expect(error.remedy != reservedRemedy && error.remedy != applicationRemedy, "0x\(String(code, radix: 16))")
            }
        }
        #expect(ATTError.insufficientEncryption.remedy.contains("Pair"))
        #expect(ATTError.databaseOutOfSync.remedy.contains("Discover"))
    }

    @Test("description names code and meaning")
    func description() {
        #expect(ATTError.readNotPermitted.description == "ATT error 0x02 (Read Not Permitted): The attribute cannot be read.")
        #expect(ATTError(0x80).description.hasPrefix("ATT error 0x80 (Application Error)"))
    }
}

@Suite("BleuError and DisconnectReason")
struct BleuErrorTests {
    static let samples: [BleuError] = [
        .bluetoothUnavailable(.resetting), .bluetoothPoweredOff, .bluetoothUnauthorized,
        .peripheralNotFound(UUID()), .serviceNotFound(BluetoothUUID.Service.battery),
        .characteristicNotFound(BluetoothUUID.Characteristic.batteryLevel),
        .descriptorNotFound(BluetoothUUID.Descriptor.validRange), .connectionTimeout(UUID()),
        .connectionFailed(UUID(), reason: .link(.failedToEstablish)), .disconnected(UUID(), .supervisionTimeout),
        .notConnected(UUID()), .timeout(.read, after: .seconds(30)), .invalidData(.malformedPDU(opcode: 0x0B)),
        .att(.readNotPermitted), .notSupported(.creditBasedChannels), .sendQueueFull(UUID()),
        .valueTooLong(length: 200, maximum: 182), .limitReached(.connections(8)),
        .bufferOverflow(.values(of: BluetoothUUID.Characteristic.batteryLevel, limit: 64)),
        .pairingFailed(.smp(.confirmValueFailed)), .cancelled,
        .invalidState(.psmNotPublished(0x0080)),
    ]

    /// Errors whose payloads carry what a caller switches on: one or more of each payload type's
    /// cases with associated values.
    static let payloads: [BleuError] = [
        .connectionFailed(UUID(), reason: .commandRejected(status: 0x0C)),
        .connectionFailed(UUID(), reason: .channelRefused(psm: 0x0081, result: 0x0004)),
        .connectionFailed(UUID(), reason: .platform(.init(domain: "CBErrorDomain", code: 10, message: "failed"))),
        .timeout(.attRequest(opcode: 0x0A), after: nil), .timeout(.openChannel(psm: 0x0080), after: .seconds(5)),
        .timeout(.remoteCall(method: "Thermometer.read()"), after: .seconds(10)),
        .invalidData(.unexpectedResponse(request: 0x0A, response: 0x09)),
        .invalidData(.preparedWriteMismatch(handle: 0x0012, offset: 18)),
        .invalidData(.channelProtocolViolation(.sduOverMTU(length: 600, mtu: 512))),
        .invalidData(.advertisingData(.doesNotFit(field: "local name", needed: 30, available: 28))),
        .notSupported(.characteristicProperties(BluetoothUUID.Characteristic.batteryLevel, [.read], .subscribe)),
        .notSupported(.advertisingField(adType: 0xFF)), .notSupported(.explicitPairing),
        .limitReached(.queuedOperations(64)), .limitReached(.attributes(512)),
        .bufferOverflow(.streamCredit(16)),
        .pairingFailed(.channelSecurity(psm: 0x0080, result: 0x0008)),
        .pairingFailed(.encryption(status: 0x06)),
        .pairingFailed(.timeout),
        .invalidState(.serviceIncluded(BluetoothUUID.Service.battery, by: BluetoothUUID.Service.deviceInformation)),
        .invalidState(.invalidConfiguration(setting: "centralMTU", requirement: "600 is outside 23–517")),
        .invalidState(.handlerNotAllowed(BluetoothUUID.Characteristic.batteryLevel, .write, [.read])),
    ]

    /// Fails to compile when a case is added without a sample above (the switch is exhaustive),
    /// so the description tests below cover every case.
    static func caseIndex(_ error: BleuError) -> Int {
        switch error {
        case .bluetoothUnavailable: 0
        case .bluetoothPoweredOff: 1
        case .bluetoothUnauthorized: 2
        case .peripheralNotFound: 3
        case .serviceNotFound: 4
        case .characteristicNotFound: 5
        case .descriptorNotFound: 6
        case .connectionTimeout: 7
        case .connectionFailed: 8
        case .disconnected: 9
        case .notConnected: 10
        case .timeout: 11
        case .invalidData: 12
        case .att: 13
        case .notSupported: 14
        case .sendQueueFull: 15
        case .valueTooLong: 16
        case .limitReached: 17
        case .bufferOverflow: 18
        case .pairingFailed: 19
        case .cancelled: 20
        case .invalidState: 21
        }
    }

    @Test("every case has a distinct, actionable description")
    func descriptions() {
        #expect(Set(Self.samples.map(Self.caseIndex)) == Set(0...21), "one sample per case")
        let texts = Self.samples.map(\.description)
        #expect(Set(texts).count == texts.count)
        let remedies = Self.samples.map(\.remedy)
        #expect(Set(remedies).count == remedies.count, "each case gives its own advice")
        for error in Self.samples {
            #expect(!error.summary.isEmpty && !error.remedy.isEmpty, "\(error)")
            #expect(error.description == "\(error.summary) \(error.remedy)")
            #expect(error.localizedDescription == error.description)
            // The advice is a sentence of its own, not a restatement of what failed.
            #expect(error.remedy.first?.isUppercase == true && error.remedy.hasSuffix("."), "\(error.remedy)")
            #expect(!error.summary.contains(error.remedy) && !error.remedy.contains(error.summary), "\(error)")
        }
        #expect(BleuError.timeout(.read, after: .seconds(30)).description.contains("raise the timeout"))
        #expect(BleuError.timeout(.read, after: .seconds(30)).summary == "Read timed out after 30.0 seconds.")
        #expect(BleuError.bluetoothUnavailable(.unsupported).remedy != BleuError.bluetoothUnavailable(.resetting).remedy)
        #expect(BleuError.att(.readNotPermitted).description.contains("Read Not Permitted"))
        #expect(BleuError.disconnected(UUID(), .supervisionTimeout).description.contains("supervision timeout"))
        #expect(BleuError.bluetoothPoweredOff.localizedDescription.contains("Turn Bluetooth on"))
    }

    @Test("Codable round trip, typed payloads included")
    func codable() throws {
        let all = Self.samples + Self.payloads
        let data = try JSONEncoder().encode(all)
        #expect(try JSONDecoder().decode([BleuError].self, from: data) == all)
    }

    @Test("a payload says what failed: the summary names its handle, PSM, limit or setting")
    func payloadSummaries() {
        let texts = Self.payloads.map(\.summary)
        #expect(Set(texts).count == texts.count, "distinct payloads read differently")
        #expect(BleuError.invalidData(.preparedWriteMismatch(handle: 0x0012, offset: 18)).summary.contains("0x0012"))
        #expect(BleuError.timeout(.openChannel(psm: 0x0080), after: nil).summary.contains("0x0080"))
        #expect(BleuError.limitReached(.queuedOperations(64)).summary.contains("64"))
        #expect(BleuError.invalidState(.invalidConfiguration(setting: "centralMTU", requirement: "600 is outside 23–517"))
            .summary.contains("centralMTU 600 is outside 23–517"))
        #expect(BleuError.connectionFailed(UUID(), reason: .commandRejected(status: 0x0C)).summary.contains("0x0C"))
    }

    @Test("a caller branches on the cause, not on prose")
    func switchable() {
        func advice(_ error: BleuError) -> String {
            switch error {
            case .limitReached(.connections(let count)): "disconnect one of \(count)"
            case .notSupported(.characteristicProperties(_, _, .subscribe)): "poll instead"
            case .invalidState(.psmNotPublished(let psm)): "publish 0x\(String(psm, radix: 16))"
            case .timeout(.remoteCall(let method), let after?): "\(method) after \(after)"
            default: "other"
            }
        }
        #expect(advice(.limitReached(.connections(8))) == "disconnect one of 8")
        #expect(advice(.notSupported(.characteristicProperties(BluetoothUUID.Characteristic.batteryLevel, [.read], .subscribe)))
            == "poll instead")
        #expect(advice(.notSupported(.characteristicProperties(BluetoothUUID.Characteristic.batteryLevel, [.read], .write)))
            == "other")
        #expect(advice(.invalidState(.psmNotPublished(0x80))) == "publish 0x80")
        #expect(advice(.timeout(.remoteCall(method: "read()"), after: .seconds(1))) == "read() after 1.0 seconds")
    }

    @Test("disconnect reasons map to HCI codes and back")
    func hciCodes() {
        let named: [DisconnectReason] = [.localHostTerminated, .remoteUserTerminated, .supervisionTimeout,
                                         .failedToEstablish, .poweredOff]
        for reason in named {
            #expect(DisconnectReason(hciCode: reason.hciCode) == reason, "\(reason)")
        }
        #expect(Set(named.map(\.hciCode)).count == named.count, "named cases have distinct codes")
        for code in UInt8.min...UInt8.max {
            let reason = DisconnectReason(hciCode: code)
            #expect(reason.hciCode == code)
            // Exhaustive, so a new named case has to join `named` above.
            switch reason {
            case .localHostTerminated, .remoteUserTerminated, .supervisionTimeout, .failedToEstablish, .poweredOff:
                #expect(named.contains(reason))
            case .hci:
                #expect(!named.map(\.hciCode).contains(code), "0x\(String(code, radix: 16)) has a named case")
            }
        }
        #expect(DisconnectReason(hciCode: 0x15) == .poweredOff)
        #expect(DisconnectReason(hciCode: 0x3B) == .hci(0x3B))
        #expect(DisconnectReason.supervisionTimeout.hciCode == 0x08)
        #expect(DisconnectReason.hci(0x3B).description.contains("0x3B"))
    }

    @Test("manager states map to errors")
    func stateErrors() {
        #expect(ManagerState.poweredOn.unavailableError == nil)
        #expect(ManagerState.poweredOff.unavailableError == .bluetoothPoweredOff)
        #expect(ManagerState.unauthorized.unavailableError == .bluetoothUnauthorized)
        #expect(ManagerState.unsupported.unavailableError == .bluetoothUnavailable(.unsupported))
    }
}

@Suite("Attribute vocabulary")
struct AttributeVocabularyTests {
    @Test("characteristic property bits are the specification's")
    func propertyBits() {
        let expected: [(CharacteristicProperties, UInt8)] = [
            (.broadcast, 0x01), (.read, 0x02), (.writeWithoutResponse, 0x04), (.write, 0x08),
            (.notify, 0x10), (.indicate, 0x20), (.authenticatedSignedWrites, 0x40), (.extendedProperties, 0x80),
        ]
        for (property, bit) in expected { #expect(property.rawValue == bit) }
        #expect(CharacteristicProperties([.read, .notify]).description == "[read, notify]")
    }

    @Test("permission bits match CoreBluetooth's for the shared four")
    func permissionBits() {
        #expect(AttributePermissions.readable.rawValue == 0x01)
        #expect(AttributePermissions.writeable.rawValue == 0x02)
        #expect(AttributePermissions.readEncryptionRequired.rawValue == 0x04)
        #expect(AttributePermissions.writeEncryptionRequired.rawValue == 0x08)
    }
}
