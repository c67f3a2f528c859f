import BleuCore
import CoreBluetoothEmulator
import Foundation
import Testing

/// The conversions from CoreBluetooth's vocabulary back to BleuCore's, which a backend written
/// against CoreBluetooth's API (BleuCoreBluetooth) reads its callbacks with.
@Suite("Conversions from CoreBluetooth to BleuCore")
struct InverseConversionTests {
    static let peer = UUID(uuidString: "00000000-0000-0000-0000-0000000000AB")!

    /// The error CoreBluetooth reports for `error`, read back.
    private func roundTrip(_ error: BleuError, during activity: CoreBluetoothActivity) -> BleuError {
        bleuError(fromCoreBluetooth: coreBluetoothError(for: error), peer: Self.peer, during: activity)
    }

    @Test("errors whose CoreBluetooth code names one situation come back as the same error")
    func exactRoundTrips() {
        let operation = CoreBluetoothActivity.operation(.read, linkEnd: nil)
        let exact: [(BleuError, CoreBluetoothActivity)] = [
            (.att(.readNotPermitted), operation),
            (.att(.insufficientEncryption), operation),
            (.att(ATTError(0x80)), operation),  // an application error keeps its code
            (.att(.outOfRange), operation),
            (.notConnected(Self.peer), operation),
            (.disconnected(Self.peer, .remoteUserTerminated), .operation(.read, linkEnd: .remoteUserTerminated)),
            (.disconnected(Self.peer, .supervisionTimeout), .operation(.read, linkEnd: .supervisionTimeout)),
            (.connectionTimeout(Self.peer), .connecting),
            (.timeout(.read, after: nil), operation),
            (.cancelled, operation),
            (.peripheralNotFound(Self.peer), .connecting),
            (.sendQueueFull(Self.peer), operation),
        ]
        for (error, activity) in exact {
            #expect(roundTrip(error, during: activity) == error, "\(error)")
        }
    }

    @Test("errors whose code is shared come back as the kind of error, with CoreBluetooth's domain, code and text")
    func kindRoundTrips() {
        let operation = CoreBluetoothActivity.operation(.write, linkEnd: nil)
        guard case .connectionFailed(Self.peer, let reason) = roundTrip(.connectionFailed(Self.peer, reason: .link(.failedToEstablish)),
                                                                       during: .connecting) else {
            Issue.record("a failed connection comes back as connectionFailed"); return
        }
        #expect(reason == .platform(BleuError.PlatformError(domain: CBErrorDomain, code: CBError.Code.connectionFailed.rawValue,
                                                            message: "The connection has failed unexpectedly.")))
        guard case .limitReached(.platform(let limit)) = roundTrip(.limitReached(.connections(8)), during: .connecting),
              case .notSupported(.platform) = roundTrip(.notSupported(.creditBasedChannels), during: operation),
              case .invalidData(.platform) = roundTrip(.invalidData(.malformedPDU(opcode: 0x0B)), during: operation),
              case .pairingFailed(.platform) = bleuError(fromCoreBluetooth: CBError(.peerRemovedPairingInformation), peer: Self.peer,
                                              during: operation),
              case .att(ATTError.invalidHandle) = roundTrip(.characteristicNotFound(BluetoothUUID(0x2A37)), during: operation)
        else {
            Issue.record("each code maps to its kind of BleuError"); return
        }
        #expect(limit.domain == CBErrorDomain && limit.code == CBError.Code.connectionLimitReached.rawValue)
    }

    @Test("what was under way, and how the link ended along with the error, decide what a disconnection and a timeout mean")
    func activityDecides() {
        func read(_ code: CBError.Code, linkEnd: DisconnectReason?) -> BleuError {
            bleuError(fromCoreBluetooth: CBError(code), peer: Self.peer, during: .operation(.read, linkEnd: linkEnd))
        }
        #expect(read(.peripheralDisconnected, linkEnd: nil) == .disconnected(Self.peer, .remoteUserTerminated))
        #expect(read(.peripheralDisconnected, linkEnd: .poweredOff) == .disconnected(Self.peer, .poweredOff))
        #expect(read(.connectionTimeout, linkEnd: nil) == .timeout(.read, after: nil))
        #expect(read(.connectionTimeout, linkEnd: .localHostTerminated) == .timeout(.read, after: nil),
                "the stack closes the link after an ATT transaction timeout")
        #expect(read(.connectionTimeout, linkEnd: .supervisionTimeout) == .disconnected(Self.peer, .supervisionTimeout))
        guard case .connectionFailed = bleuError(fromCoreBluetooth: CBError(.peripheralDisconnected), peer: Self.peer,
                                                 during: .connecting) else {
            Issue.record("a peer gone while connecting is a failed connection"); return
        }
        #expect(bleuError(fromCoreBluetooth: CBError(.connectionTimeout), peer: Self.peer, during: .connecting)
            == .connectionTimeout(Self.peer))
        #expect(errorDependsOnLinkEnd(CBError(.connectionTimeout)))
        #expect(errorDependsOnLinkEnd(CBError(.peripheralDisconnected)))
        #expect(!errorDependsOnLinkEnd(CBError(.notConnected)))
        #expect(!errorDependsOnLinkEnd(CBATTError(.readNotPermitted)))
    }

    @Test("errors from outside CoreBluetooth's domains fail the operation or the connection with their text")
    func foreignErrors() {
        struct Unexpected: Error, CustomStringConvertible { var description: String { "unexpected" } }
        guard case .invalidState = bleuError(fromCoreBluetooth: Unexpected(), peer: Self.peer, during: .operation(.read, linkEnd: nil)),
              case .connectionFailed(Self.peer, _) = bleuError(fromCoreBluetooth: Unexpected(), peer: Self.peer, during: .connecting),
              case .invalidState = bleuError(fromCoreBluetooth: CBError(.alreadyAdvertising), peer: nil, during: .operation(.advertise, linkEnd: nil))
        else {
            Issue.record("foreign errors map by what was under way"); return
        }
    }

    @Test("a disconnection's reason survives CoreBluetooth's didDisconnectPeripheral error, as far as its codes tell")
    func disconnectReasons() {
        for reason in [DisconnectReason.localHostTerminated, .remoteUserTerminated, .supervisionTimeout, .failedToEstablish] {
            #expect(disconnectReason(fromCoreBluetooth: coreBluetoothDisconnectionError(for: reason)) == reason, "\(reason)")
        }
        #expect(coreBluetoothDisconnectionError(for: .localHostTerminated) == nil)
        #expect(disconnectReason(fromCoreBluetooth: coreBluetoothDisconnectionError(for: .poweredOff)) == .remoteUserTerminated)
        #expect(disconnectReason(fromCoreBluetooth: coreBluetoothDisconnectionError(for: .hci(0x3B))) == .remoteUserTerminated)
    }

    @Test("manager states convert both ways")
    func managerStates() {
        for state in ManagerState.allCases {
            #expect(ManagerState(CBManagerState(state)) == state)
        }
    }

    @Test("scan options survive CoreBluetooth's scan arguments")
    func scanArguments() {
        let samples = [
            ScanOptions(),
            ScanOptions(services: [BluetoothUUID(0x180D)], allowDuplicates: true),
            ScanOptions(services: nil, allowDuplicates: false, solicitedServices: [BluetoothUUID(0x1812)]),
        ]
        for options in samples {
            let arguments = coreBluetoothScanArguments(options)
            #expect(scanOptions(services: arguments.services, options: arguments.options) == options)
        }
        let arguments = coreBluetoothScanArguments(ScanOptions(allowDuplicates: true))
        #expect((arguments.options[CBCentralManagerScanOptionAllowDuplicatesKey] as? NSNumber)?.boolValue == true)
        #expect(arguments.options[CBCentralManagerScanOptionSolicitedServiceUUIDsKey] == nil)
    }

    @Test("descriptor values convert to CoreBluetooth's types and back to the same bytes")
    func descriptorValues() {
        let samples: [(BluetoothUUID, Data)] = [
            (BluetoothUUID.Descriptor.characteristicUserDescription, Data("Wrist".utf8)),
            (BluetoothUUID.Descriptor.clientCharacteristicConfiguration, Data([0x01, 0x00])),
            (BluetoothUUID.Descriptor.characteristicExtendedProperties, Data([0x01, 0x00])),
            (BluetoothUUID(0x2904), Data([0x04, 0x00, 0x27, 0xAD, 0x01, 0x00, 0x00])),
            (BluetoothUUID.Descriptor.clientCharacteristicConfiguration, Data([0x01])),  // not a 16-bit field: kept as bytes
        ]
        for (type, bytes) in samples {
            let value = coreBluetoothDescriptorValue(bytes, type: type)
            #expect(descriptorBytes(fromCoreBluetooth: value, type: type) == bytes, "\(type)")
        }
        #expect(coreBluetoothDescriptorValue(Data("Wrist".utf8), type: BluetoothUUID.Descriptor.characteristicUserDescription) as? String
            == "Wrist")
        #expect((coreBluetoothDescriptorValue(Data([0x02, 0x00]), type: BluetoothUUID.Descriptor.clientCharacteristicConfiguration)
            as? NSNumber)?.intValue == 2)
        #expect(descriptorBytes(fromCoreBluetooth: nil, type: BluetoothUUID(0x2904)) == Data())
        #expect(descriptorBytes(fromCoreBluetooth: NSNumber(value: 3), type: BluetoothUUID(0x2904)) == nil)
        #expect(descriptorBytes(fromCoreBluetooth: [1, 2], type: BluetoothUUID(0x2904)) == nil)
    }
}
