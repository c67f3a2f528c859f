import BleuCore
import CoreBluetoothEmulator
import Foundation
import Testing

@Suite("Conversions between CoreBluetooth's and BleuCore's values")
struct ConversionTests {
    @Test("UUIDs convert both ways at every width, and a base alias stays short",
          arguments: ["180D", "1234ABCD", "E20A39F4-73F5-4BC4-A12F-17D1AD07A961"])
    func uuids(_ text: String) throws {
        let bleu = try #require(BluetoothUUID(string: text))
        let coreBluetooth = CBUUID(bleu)
        #expect(coreBluetooth.uuidString == text)
        #expect(coreBluetooth == CBUUID(string: text))
        #expect(BluetoothUUID(coreBluetooth) == bleu)
        #expect(BluetoothUUID(CBUUID(data: coreBluetooth.data)) == bleu)
    }

    @Test("a 128-bit base UUID alias converts to the short UUID")
    func baseAlias() {
        let alias = CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB")
        #expect(BluetoothUUID(alias) == BluetoothUUID(0x180D))
        #expect(CBUUID(BluetoothUUID(0x180D)).uuidString == "180D")
    }

    /// Each BleuCore characteristic property with the CoreBluetooth one of the same meaning.
    static let propertyPairs: [(CharacteristicProperties, CBCharacteristicProperties, UInt)] = [
        (.broadcast, .broadcast, 0x01), (.read, .read, 0x02),
        (.writeWithoutResponse, .writeWithoutResponse, 0x04), (.write, .write, 0x08),
        (.notify, .notify, 0x10), (.indicate, .indicate, 0x20),
        (.authenticatedSignedWrites, .authenticatedSignedWrites, 0x40),
        (.extendedProperties, .extendedProperties, 0x80),
    ]

    @Test("each characteristic property converts both ways to the same bit")
    func characteristicProperties() {
        for (bleu, coreBluetooth, bit) in Self.propertyPairs {
            #expect(CBCharacteristicProperties(bleu) == coreBluetooth)
            #expect(CBCharacteristicProperties(bleu).rawValue == bit)
            #expect(CharacteristicProperties(coreBluetooth) == bleu)
        }
        let all = CharacteristicProperties(rawValue: 0xFF)
        #expect(CharacteristicProperties(CBCharacteristicProperties(all)) == all)
        #expect(CBCharacteristicProperties([.read, .notify]) == [.read, .notify])
    }

    @Test("CoreBluetooth's encrypted notify and indicate declare notify and indicate")
    func encryptedSubscriptions() {
        #expect(CharacteristicProperties(CBCharacteristicProperties.notifyEncryptionRequired) == .notify)
        #expect(CharacteristicProperties(CBCharacteristicProperties.indicateEncryptionRequired) == .indicate)
        #expect(CharacteristicProperties([.read, .notifyEncryptionRequired, .indicateEncryptionRequired])
            == [.read, .notify, .indicate])
    }

    @Test("attribute permissions convert both ways; authentication becomes encryption, authorization has no counterpart")
    func attributePermissions() {
        let pairs: [(AttributePermissions, CBAttributePermissions, UInt)] = [
            (.readable, .readable, 0x01), (.writeable, .writeable, 0x02),
            (.readEncryptionRequired, .readEncryptionRequired, 0x04),
            (.writeEncryptionRequired, .writeEncryptionRequired, 0x08),
        ]
        for (bleu, coreBluetooth, bit) in pairs {
            #expect(CBAttributePermissions(bleu) == coreBluetooth)
            #expect(CBAttributePermissions(bleu).rawValue == bit)
        }
        #expect(AttributePermissions(CBAttributePermissions.readable) == .readable)
        #expect(AttributePermissions(CBAttributePermissions.writeable) == .writeable)
        // CoreBluetooth's encryption requirement alone permits the access, to trusted devices.
        #expect(AttributePermissions(CBAttributePermissions.readEncryptionRequired) == [.readable, .readEncryptionRequired])
        #expect(AttributePermissions(CBAttributePermissions.writeEncryptionRequired) == [.writeable, .writeEncryptionRequired])
        #expect(CBAttributePermissions(AttributePermissions([.readable, .readAuthenticationRequired]))
            == [.readable, .readEncryptionRequired])
        #expect(CBAttributePermissions(AttributePermissions([.writeable, .writeAuthenticationRequired]))
            == [.writeable, .writeEncryptionRequired])
        #expect(CBAttributePermissions(AttributePermissions([.readable, .writeable, .readSecureConnectionsRequired, .writeSecureConnectionsRequired]))
            == [.readable, .writeable, .readEncryptionRequired, .writeEncryptionRequired])
        #expect(CBAttributePermissions(AttributePermissions([.readable, .readAuthorizationRequired, .writeAuthorizationRequired]))
            == .readable)
    }

    @Test("each manager state converts to CoreBluetooth's state of the same name")
    func managerState() {
        let expected: [ManagerState: Int] = [
            .unknown: 0, .resetting: 1, .unsupported: 2, .unauthorized: 3, .poweredOff: 4, .poweredOn: 5,
        ]
        #expect(Set(expected.keys) == Set(ManagerState.allCases))
        for (state, raw) in expected {
            #expect(CBManagerState(state).rawValue == raw, "\(state)")
        }
        #expect(CBManagerState(.poweredOn) == .poweredOn)
        #expect(CBManagerState(.poweredOff) == .poweredOff)
    }

    @Test("ATT error codes 0x01…0x11 convert both ways; others become unlikelyError")
    func attErrorCodes() {
        for raw in UInt8(0x01)...0x11 {
            let code = CBATTError.Code(ATTError(raw))
            #expect(code.rawValue == Int(raw))
            #expect(ATTError(code) == ATTError(raw))
        }
        #expect(CBATTError.Code(ATTError.readNotPermitted) == .readNotPermitted)
        #expect(CBATTError.Code(ATTError.insufficientEncryption) == .insufficientEncryption)
        #expect(ATTError(CBATTError.Code.success) == nil)
        #expect(ATTError(CBATTError.Code.invalidAttributeValueLength) == .invalidAttributeValueLength)
        #expect(CBATTError.Code(ATTError(0x00)) == .unlikelyError)
        #if !canImport(CoreBluetooth)
        // A native enum has no value for these; on Apple platforms the code may keep its raw value.
        #expect(CBATTError.Code(ATTError.valueNotAllowed) == .unlikelyError)
        #expect(CBATTError.Code(ATTError(0x80)) == .unlikelyError)
        #endif
    }
}

@Suite("The CoreBluetooth error for each Bleu error")
struct ErrorConversionTests {
    static let peer = UUID(uuidString: "F0E1D2C3-0000-4000-8000-000000000001")!

    /// The name of a BleuError's case. A `switch` without `default`: a new case stops this file
    /// compiling until it is added here, and then to the samples below.
    static func caseName(_ error: BleuError) -> String {
        switch error {
        case .bluetoothUnavailable: "bluetoothUnavailable"
        case .bluetoothPoweredOff: "bluetoothPoweredOff"
        case .bluetoothUnauthorized: "bluetoothUnauthorized"
        case .peripheralNotFound: "peripheralNotFound"
        case .serviceNotFound: "serviceNotFound"
        case .characteristicNotFound: "characteristicNotFound"
        case .descriptorNotFound: "descriptorNotFound"
        case .connectionTimeout: "connectionTimeout"
        case .connectionFailed: "connectionFailed"
        case .disconnected: "disconnected"
        case .notConnected: "notConnected"
        case .timeout: "timeout"
        case .invalidData: "invalidData"
        case .att: "att"
        case .notSupported: "notSupported"
        case .sendQueueFull: "sendQueueFull"
        case .valueTooLong: "valueTooLong"
        case .limitReached: "limitReached"
        case .bufferOverflow: "bufferOverflow"
        case .pairingFailed: "pairingFailed"
        case .cancelled: "cancelled"
        case .invalidState: "invalidState"
        }
    }

    static let caseCount = 22

    /// Each Bleu error with the domain and code CoreBluetooth reports in its situation.
    static let samples: [(BleuError, String, Int)] = [
        (.bluetoothUnavailable(.resetting), "CBErrorDomain", 0),
        (.bluetoothPoweredOff, "CBErrorDomain", 0),
        (.bluetoothUnauthorized, "CBErrorDomain", 0),
        (.peripheralNotFound(peer), "CBErrorDomain", 12),
        (.serviceNotFound(BluetoothUUID(0x180D)), "CBErrorDomain", 2),
        (.characteristicNotFound(BluetoothUUID(0x2A37)), "CBErrorDomain", 2),
        (.descriptorNotFound(BluetoothUUID(0x2902)), "CBErrorDomain", 2),
        (.connectionTimeout(peer), "CBErrorDomain", 6),
        (.connectionFailed(peer, reason: .link(.failedToEstablish)), "CBErrorDomain", 10),
        (.disconnected(peer, .remoteUserTerminated), "CBErrorDomain", 7),
        (.disconnected(peer, .supervisionTimeout), "CBErrorDomain", 6),
        (.disconnected(peer, .failedToEstablish), "CBErrorDomain", 10),
        (.disconnected(peer, .poweredOff), "CBErrorDomain", 7),
        (.disconnected(peer, .localHostTerminated), "CBErrorDomain", 7),
        (.disconnected(peer, .hci(0x3B)), "CBErrorDomain", 7),
        (.notConnected(peer), "CBErrorDomain", 3),
        (.timeout(.read, after: .seconds(30)), "CBErrorDomain", 6),
        (.invalidData(.malformedPDU(opcode: 0x0B)), "CBErrorDomain", 1),
        (.att(.readNotPermitted), "CBATTErrorDomain", 2),
        (.att(.insufficientResources), "CBATTErrorDomain", 0x11),
        (.att(ATTError(0x80)), "CBATTErrorDomain", 0x80),
        (.notSupported(.characteristicProperties(BluetoothUUID(0x2A37), [.read], .subscribe)), "CBErrorDomain", 13),
        (.sendQueueFull(peer), "CBErrorDomain", 4),
        (.valueTooLong(length: 600, maximum: 512), "CBATTErrorDomain", 13),
        (.limitReached(.connections(8)), "CBErrorDomain", 11),
        (.bufferOverflow(.values(of: BluetoothUUID(0x2A37), limit: 64)), "CBErrorDomain", 4),
        (.pairingFailed(.smp(.confirmValueFailed)), "CBATTErrorDomain", 15),
        (.cancelled, "CBErrorDomain", 5),
        (.invalidState(.serviceNotPublished(BluetoothUUID(0x180F))), "CBErrorDomain", 1),
    ]

    @Test("the samples cover every case of BleuError")
    func samplesCoverEveryCase() {
        #expect(Set(Self.samples.map { Self.caseName($0.0) }).count == Self.caseCount)
    }

    @Test("each Bleu error becomes the CoreBluetooth error of its situation, with the Bleu error underneath")
    func bleuErrors() {
        for (error, domain, code) in Self.samples {
            let converted = coreBluetoothError(for: error) as NSError
            #expect(converted.domain == domain, "\(error)")
            #expect(converted.code == code, "\(error)")
            #expect((converted.userInfo[NSUnderlyingErrorKey] as? BleuError) == error, "\(error)")
        }
    }

    @Test("the converted errors describe themselves as CoreBluetooth does")
    func descriptions() {
        #expect(coreBluetoothError(for: BleuError.disconnected(Self.peer, .remoteUserTerminated)).localizedDescription
            == "The specified device has disconnected from us.")
        #expect(coreBluetoothError(for: BleuError.disconnected(Self.peer, .supervisionTimeout)).localizedDescription
            == "The connection has timed out unexpectedly.")
        #expect(coreBluetoothError(for: BleuError.att(.readNotPermitted)).localizedDescription
            == "Reading is not permitted.")
        #expect(coreBluetoothError(for: ATTError(0x80)).localizedDescription == "Unknown ATT error.")
    }

    @Test("converted errors match CoreBluetooth's catch patterns")
    func catchPatterns() {
        do {
            throw coreBluetoothError(for: BleuError.connectionFailed(Self.peer, reason: .link(.failedToEstablish)))
        } catch CBError.connectionFailed {
        } catch {
            Issue.record("not caught as CBError.connectionFailed: \(error)")
        }
        do {
            throw coreBluetoothError(for: BleuError.pairingFailed(.smp(.passkeyEntryFailed)))
        } catch CBATTError.insufficientEncryption {
        } catch {
            Issue.record("not caught as CBATTError.insufficientEncryption: \(error)")
        }
    }

    @Test("other errors: ATT errors keep their code, CoreBluetooth errors pass through, the rest map by kind")
    func otherErrors() {
        let att = coreBluetoothError(for: ATTError.writeNotPermitted) as NSError
        #expect(att.domain == "CBATTErrorDomain" && att.code == 3)
        let application = coreBluetoothError(for: ATTError(0x9F)) as NSError
        #expect(application.domain == "CBATTErrorDomain" && application.code == 0x9F)
        #expect((coreBluetoothError(for: CBError(.alreadyAdvertising)) as? CBError)?.code == .alreadyAdvertising)
        #expect((coreBluetoothError(for: CBATTError(.invalidOffset)) as? CBATTError)?.code == .invalidOffset)
        #expect((coreBluetoothError(for: CancellationError()) as? CBError)?.code == .operationCancelled)
        #expect((coreBluetoothError(for: AdvertisingDataError.doesNotFit(field: "local name", needed: 40, available: 31))
            as? CBError)?.code == .invalidParameters)
        struct Unexpected: Error {}
        let unknown = coreBluetoothError(for: Unexpected()) as NSError
        #expect(unknown.domain == "CBErrorDomain" && unknown.code == 0)
        #expect(unknown.userInfo[NSUnderlyingErrorKey] is Unexpected)
    }
}
