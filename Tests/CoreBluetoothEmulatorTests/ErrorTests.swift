import BleuCore
import CoreBluetoothEmulator
import Foundation
import Testing

@Suite("CBError and CBATTError")
struct ErrorTests {
    /// Which of the catch clauses CoreBluetooth code writes catches `error`.
    private func caughtBy(_ error: any Error) -> String {
        do {
            throw error
        } catch CBError.connectionFailed {
            return "CBError.connectionFailed"
        } catch CBATTError.insufficientEncryption {
            return "CBATTError.insufficientEncryption"
        } catch let error as CBError where error.code == .notConnected {
            return "CBError where code == .notConnected"
        } catch let error as CBATTError where error.code == .readNotPermitted {
            return "CBATTError where code == .readNotPermitted"
        } catch {
            return "other"
        }
    }

    @Test("catch CBError.connectionFailed and error.code patterns match their code and no other")
    func catchPatterns() {
        #expect(caughtBy(CBError(.connectionFailed)) == "CBError.connectionFailed")
        #expect(caughtBy(CBATTError(.insufficientEncryption)) == "CBATTError.insufficientEncryption")
        #expect(caughtBy(CBError(.notConnected)) == "CBError where code == .notConnected")
        #expect(caughtBy(CBATTError(.readNotPermitted)) == "CBATTError where code == .readNotPermitted")
        #expect(caughtBy(CBError(.connectionTimeout)) == "other")
        // Same raw value, other domain: CBATTError 10 is not CBError.connectionFailed (10).
        #expect(caughtBy(CBATTError(.attributeNotFound)) == "other")
        #expect(caughtBy(BleuError.connectionFailed(UUID(), reason: .unspecified)) == "other")
    }

    @Test("a code also matches in a switch over an error")
    func switchPatterns() {
        let error: any Error = CBError(.peripheralDisconnected)
        switch error {
        case CBError.connectionTimeout: Issue.record("matched the wrong code")
        case CBError.peripheralDisconnected: break
        default: Issue.record("did not match")
        }
    }

    @Test("errors carry their domain and code")
    func domainAndCode() {
        #expect(CBError.errorDomain == "CBErrorDomain")
        #expect(CBATTError.errorDomain == "CBATTErrorDomain")
        let error = CBError(.connectionLimitReached)
        #expect(error.code == .connectionLimitReached)
        #expect(error.errorCode == 11)
        #expect(CBATTError(.invalidOffset).errorCode == 7)
        #expect((CBATTError(.invalidOffset) as NSError).domain == "CBATTErrorDomain")
        #expect((CBError(.uuidNotAllowed) as NSError).code == 8)
    }
}

#if !canImport(CoreBluetooth)
@Suite("CBError and CBATTError of this module")
struct OwnErrorTests {
    @Test("unknownDevice is the misspelled real case unkownDevice")
    func unknownDeviceAlias() {
        #expect(CBError.Code.unknownDevice == .unkownDevice)
        #expect(CBError.unknownDevice == CBError.Code.unkownDevice)
        #expect(CBError.Code.unknownDevice.rawValue == 12)
    }

    @Test("errors describe themselves with CoreBluetooth's text, unless the user info gives one")
    func localizedDescription() {
        let disconnected: any Error = CBError(.peripheralDisconnected)
        #expect(disconnected.localizedDescription == "The specified device has disconnected from us.")
        let att: any Error = CBATTError(.insufficientEncryption)
        #expect(att.localizedDescription == "Encryption is insufficient.")
        let custom: any Error = CBError(.unknown, userInfo: [NSLocalizedDescriptionKey: "Custom."])
        #expect(custom.localizedDescription == "Custom.")
        #expect((CBError(.unknown, userInfo: ["extra": 1]).userInfo["extra"] as? Int) == 1)
    }

    @Test("errors are equal and hash alike by code, whatever the user info")
    func equality() {
        #expect(CBError(.notConnected) == CBError(.notConnected, userInfo: ["extra": 1]))
        #expect(CBError(.notConnected) != CBError(.connectionFailed))
        #expect(Set([CBError(.notConnected), CBError(.notConnected, userInfo: ["a": "b"]), CBError(.unknown)]).count == 2)
        #expect(CBATTError(.invalidHandle) != CBATTError(.readNotPermitted))
    }

    @Test("a CBATTError keeps an ATT code that Code has no case for")
    func unnamedATTCode() {
        let error = CBATTError(rawCode: 0x80)
        #expect(error.errorCode == 0x80)
        #expect(error.code == .unlikelyError)
        #expect((error as any Error).localizedDescription == "Unknown ATT error.")
        #expect(error != CBATTError(.unlikelyError))
        // As on Apple platforms, the code pattern compares the code received.
        #expect(!(CBATTError.unlikelyError ~= error))
        #expect(CBATTError.unlikelyError ~= CBATTError(.unlikelyError))
    }

    @Test("the errors are Sendable")
    func sendable() {
        let errors: [any Error & Sendable] = [CBError(.unknown), CBATTError(.success)]
        #expect(errors.count == 2)
    }
}
#endif
