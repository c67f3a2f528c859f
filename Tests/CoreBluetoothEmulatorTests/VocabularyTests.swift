// Checks this module's own stand-ins for CoreBluetooth's value types against the declarations
// fixture: names, raw values and string values. On Apple platforms CoreBluetooth provides the
// types, so there is nothing of ours to check.
#if !canImport(CoreBluetooth)
import CoreBluetoothEmulator
import Foundation
import Testing

@Suite("CoreBluetooth's vocabulary, against the declarations fixture")
struct VocabularyTests {
    /// An enumeration we mirror: each case name with our raw value, and a test of whether a raw
    /// value makes a case (to find cases the fixture does not list).
    struct MirroredEnum: Sendable {
        var cases: [String: Int]
        var hasCase: @Sendable (Int) -> Bool
    }

    /// Every enumeration of the fixture that this module declares, by fixture section. Each entry
    /// names the case in Swift, so a missing case fails to compile and a wrong raw value fails
    /// the test below.
    static let enums: [String: MirroredEnum] = [
        "CBManagerState": MirroredEnum(cases: [
            "unknown": CBManagerState.unknown.rawValue,
            "resetting": CBManagerState.resetting.rawValue,
            "unsupported": CBManagerState.unsupported.rawValue,
            "unauthorized": CBManagerState.unauthorized.rawValue,
            "poweredOff": CBManagerState.poweredOff.rawValue,
            "poweredOn": CBManagerState.poweredOn.rawValue,
        ], hasCase: { CBManagerState(rawValue: $0) != nil }),
        "CBManagerAuthorization": MirroredEnum(cases: [
            "notDetermined": CBManagerAuthorization.notDetermined.rawValue,
            "restricted": CBManagerAuthorization.restricted.rawValue,
            "denied": CBManagerAuthorization.denied.rawValue,
            "allowedAlways": CBManagerAuthorization.allowedAlways.rawValue,
        ], hasCase: { CBManagerAuthorization(rawValue: $0) != nil }),
        "CBPeripheralState": MirroredEnum(cases: [
            "disconnected": CBPeripheralState.disconnected.rawValue,
            "connecting": CBPeripheralState.connecting.rawValue,
            "connected": CBPeripheralState.connected.rawValue,
            "disconnecting": CBPeripheralState.disconnecting.rawValue,
        ], hasCase: { CBPeripheralState(rawValue: $0) != nil }),
        "CBCharacteristicWriteType": MirroredEnum(cases: [
            "withResponse": CBCharacteristicWriteType.withResponse.rawValue,
            "withoutResponse": CBCharacteristicWriteType.withoutResponse.rawValue,
        ], hasCase: { CBCharacteristicWriteType(rawValue: $0) != nil }),
        "CBPeripheralManagerConnectionLatency": MirroredEnum(cases: [
            "low": CBPeripheralManagerConnectionLatency.low.rawValue,
            "medium": CBPeripheralManagerConnectionLatency.medium.rawValue,
            "high": CBPeripheralManagerConnectionLatency.high.rawValue,
        ], hasCase: { CBPeripheralManagerConnectionLatency(rawValue: $0) != nil }),
        "CBPeripheralManagerAuthorizationStatus": MirroredEnum(cases: [
            "notDetermined": CBPeripheralManagerAuthorizationStatus.notDetermined.rawValue,
            "restricted": CBPeripheralManagerAuthorizationStatus.restricted.rawValue,
            "denied": CBPeripheralManagerAuthorizationStatus.denied.rawValue,
            "authorized": CBPeripheralManagerAuthorizationStatus.authorized.rawValue,
        ], hasCase: { CBPeripheralManagerAuthorizationStatus(rawValue: $0) != nil }),
        "CBConnectionEvent": MirroredEnum(cases: [
            "peerDisconnected": CBConnectionEvent.peerDisconnected.rawValue,
            "peerConnected": CBConnectionEvent.peerConnected.rawValue,
        ], hasCase: { CBConnectionEvent(rawValue: $0) != nil }),
        "CBError.Code": MirroredEnum(cases: [
            "unknown": CBError.Code.unknown.rawValue,
            "invalidParameters": CBError.Code.invalidParameters.rawValue,
            "invalidHandle": CBError.Code.invalidHandle.rawValue,
            "notConnected": CBError.Code.notConnected.rawValue,
            "outOfSpace": CBError.Code.outOfSpace.rawValue,
            "operationCancelled": CBError.Code.operationCancelled.rawValue,
            "connectionTimeout": CBError.Code.connectionTimeout.rawValue,
            "peripheralDisconnected": CBError.Code.peripheralDisconnected.rawValue,
            "uuidNotAllowed": CBError.Code.uuidNotAllowed.rawValue,
            "alreadyAdvertising": CBError.Code.alreadyAdvertising.rawValue,
            "connectionFailed": CBError.Code.connectionFailed.rawValue,
            "connectionLimitReached": CBError.Code.connectionLimitReached.rawValue,
            "unkownDevice": CBError.Code.unkownDevice.rawValue,
            "unknownDevice": CBError.Code.unknownDevice.rawValue,
            "operationNotSupported": CBError.Code.operationNotSupported.rawValue,
            "peerRemovedPairingInformation": CBError.Code.peerRemovedPairingInformation.rawValue,
            "encryptionTimedOut": CBError.Code.encryptionTimedOut.rawValue,
            "tooManyLEPairedDevices": CBError.Code.tooManyLEPairedDevices.rawValue,
            "leGattExceededBackgroundNotificationLimit": CBError.Code.leGattExceededBackgroundNotificationLimit.rawValue,
            "leGattNearBackgroundNotificationLimit": CBError.Code.leGattNearBackgroundNotificationLimit.rawValue,
        ], hasCase: { CBError.Code(rawValue: $0) != nil }),
        "CBATTError.Code": MirroredEnum(cases: [
            "success": CBATTError.Code.success.rawValue,
            "invalidHandle": CBATTError.Code.invalidHandle.rawValue,
            "readNotPermitted": CBATTError.Code.readNotPermitted.rawValue,
            "writeNotPermitted": CBATTError.Code.writeNotPermitted.rawValue,
            "invalidPdu": CBATTError.Code.invalidPdu.rawValue,
            "insufficientAuthentication": CBATTError.Code.insufficientAuthentication.rawValue,
            "requestNotSupported": CBATTError.Code.requestNotSupported.rawValue,
            "invalidOffset": CBATTError.Code.invalidOffset.rawValue,
            "insufficientAuthorization": CBATTError.Code.insufficientAuthorization.rawValue,
            "prepareQueueFull": CBATTError.Code.prepareQueueFull.rawValue,
            "attributeNotFound": CBATTError.Code.attributeNotFound.rawValue,
            "attributeNotLong": CBATTError.Code.attributeNotLong.rawValue,
            "insufficientEncryptionKeySize": CBATTError.Code.insufficientEncryptionKeySize.rawValue,
            "invalidAttributeValueLength": CBATTError.Code.invalidAttributeValueLength.rawValue,
            "unlikelyError": CBATTError.Code.unlikelyError.rawValue,
            "insufficientEncryption": CBATTError.Code.insufficientEncryption.rawValue,
            "unsupportedGroupType": CBATTError.Code.unsupportedGroupType.rawValue,
            "insufficientResources": CBATTError.Code.insufficientResources.rawValue,
        ], hasCase: { CBATTError.Code(rawValue: $0) != nil }),
    ]

    /// Every option set of the fixture that this module declares: member name → our bits.
    static let optionSets: [String: [String: UInt]] = [
        "CBCharacteristicProperties": [
            "broadcast": CBCharacteristicProperties.broadcast.rawValue,
            "read": CBCharacteristicProperties.read.rawValue,
            "writeWithoutResponse": CBCharacteristicProperties.writeWithoutResponse.rawValue,
            "write": CBCharacteristicProperties.write.rawValue,
            "notify": CBCharacteristicProperties.notify.rawValue,
            "indicate": CBCharacteristicProperties.indicate.rawValue,
            "authenticatedSignedWrites": CBCharacteristicProperties.authenticatedSignedWrites.rawValue,
            "extendedProperties": CBCharacteristicProperties.extendedProperties.rawValue,
            "notifyEncryptionRequired": CBCharacteristicProperties.notifyEncryptionRequired.rawValue,
            "indicateEncryptionRequired": CBCharacteristicProperties.indicateEncryptionRequired.rawValue,
        ],
        "CBAttributePermissions": [
            "readable": CBAttributePermissions.readable.rawValue,
            "writeable": CBAttributePermissions.writeable.rawValue,
            "readEncryptionRequired": CBAttributePermissions.readEncryptionRequired.rawValue,
            "writeEncryptionRequired": CBAttributePermissions.writeEncryptionRequired.rawValue,
        ],
    ]

    /// Fixture sections with raw values that are not value types of this module (the manager
    /// classes nest them).
    static let notVocabulary: Set<String> = ["CBCentralManager.Feature"]

    @Test("every enum case of the fixture exists with the fixture's raw value, and no other case does")
    func enumRawValues() throws {
        let fixture = try DeclarationsFixture.load()
        for (section, mirrored) in Self.enums {
            let listed = fixture.declarations.filter {
                $0.section == section && ($0.text.hasPrefix("case ") || $0.text.hasPrefix("static var "))
            }
            #expect(!listed.isEmpty, "the fixture has no section \(section)")
            for declaration in listed {
                let name = try #require(declaration.name)
                let raw = try #require(declaration.raw, "\(section).\(name) has no raw value in the fixture")
                #expect(mirrored.cases[name] == raw, "\(section).\(name): ours \(String(describing: mirrored.cases[name])), fixture \(raw)")
            }
            // Every raw value making a case is one the fixture lists.
            let fixtureRaws = Set(listed.compactMap(\.raw))
            for raw in -1...1024 where mirrored.hasCase(raw) {
                #expect(fixtureRaws.contains(raw), "\(section) has a case with raw value \(raw) that the fixture does not list")
            }
        }
    }

    @Test("every option of the fixture's option sets exists with the fixture's bits")
    func optionSetRawValues() throws {
        let fixture = try DeclarationsFixture.load()
        for (section, members) in Self.optionSets {
            let listed = fixture.declarations(in: section, startingWith: "static var ")
            #expect(listed.count == members.count, "\(section): the fixture lists \(listed.count) options, we map \(members.count)")
            for declaration in listed {
                let name = try #require(declaration.name)
                let raw = try #require(declaration.raw, "\(section).\(name) has no raw value in the fixture")
                #expect(members[name] == UInt(raw), "\(section).\(name): ours \(String(describing: members[name])), fixture \(raw)")
            }
        }
    }

    @Test("every fixture section with raw values is checked here")
    func everyRawValueSectionIsCovered() throws {
        let fixture = try DeclarationsFixture.load()
        let sections = Set(fixture.declarations.filter { $0.raw != nil }.map(\.section))
        let covered = Set(Self.enums.keys).union(Self.optionSets.keys).union(Self.notVocabulary)
        #expect(sections.subtracting(covered).isEmpty, "unchecked sections: \(sections.subtracting(covered).sorted())")
    }

    @Test("CBError's static shorthands are the fixture's, each the code of its name")
    func cbErrorShorthands() throws {
        let shorthands: [String: CBError.Code] = [
            "unknown": CBError.unknown, "invalidParameters": CBError.invalidParameters,
            "invalidHandle": CBError.invalidHandle, "notConnected": CBError.notConnected,
            "outOfSpace": CBError.outOfSpace, "operationCancelled": CBError.operationCancelled,
            "connectionTimeout": CBError.connectionTimeout, "peripheralDisconnected": CBError.peripheralDisconnected,
            "uuidNotAllowed": CBError.uuidNotAllowed, "alreadyAdvertising": CBError.alreadyAdvertising,
            "connectionFailed": CBError.connectionFailed, "connectionLimitReached": CBError.connectionLimitReached,
            "unkownDevice": CBError.unkownDevice, "unknownDevice": CBError.unknownDevice,
            "operationNotSupported": CBError.operationNotSupported,
            "peerRemovedPairingInformation": CBError.peerRemovedPairingInformation,
            "encryptionTimedOut": CBError.encryptionTimedOut, "tooManyLEPairedDevices": CBError.tooManyLEPairedDevices,
            "leGattExceededBackgroundNotificationLimit": CBError.leGattExceededBackgroundNotificationLimit,
            "leGattNearBackgroundNotificationLimit": CBError.leGattNearBackgroundNotificationLimit,
        ]
        try checkShorthands(shorthands.mapValues(\.rawValue), section: "CBError", codes: "CBError.Code")
        try checkErrorDomain(section: "CBError", ours: CBError.errorDomain, expected: "CBErrorDomain")
    }

    @Test("CBATTError's static shorthands are the fixture's, each the code of its name")
    func cbATTErrorShorthands() throws {
        let shorthands: [String: CBATTError.Code] = [
            "success": CBATTError.success, "invalidHandle": CBATTError.invalidHandle,
            "readNotPermitted": CBATTError.readNotPermitted, "writeNotPermitted": CBATTError.writeNotPermitted,
            "invalidPdu": CBATTError.invalidPdu, "insufficientAuthentication": CBATTError.insufficientAuthentication,
            "requestNotSupported": CBATTError.requestNotSupported, "invalidOffset": CBATTError.invalidOffset,
            "insufficientAuthorization": CBATTError.insufficientAuthorization,
            "prepareQueueFull": CBATTError.prepareQueueFull, "attributeNotFound": CBATTError.attributeNotFound,
            "attributeNotLong": CBATTError.attributeNotLong,
            "insufficientEncryptionKeySize": CBATTError.insufficientEncryptionKeySize,
            "invalidAttributeValueLength": CBATTError.invalidAttributeValueLength,
            "unlikelyError": CBATTError.unlikelyError, "insufficientEncryption": CBATTError.insufficientEncryption,
            "unsupportedGroupType": CBATTError.unsupportedGroupType,
            "insufficientResources": CBATTError.insufficientResources,
        ]
        try checkShorthands(shorthands.mapValues(\.rawValue), section: "CBATTError", codes: "CBATTError.Code")
        try checkErrorDomain(section: "CBATTError", ours: CBATTError.errorDomain, expected: "CBATTErrorDomain")
    }

    /// The fixture's static shorthands of `section` are exactly `shorthands`' names, and each
    /// gives the raw value the fixture lists for the code of that name.
    private func checkShorthands(_ shorthands: [String: Int], section: String, codes: String) throws {
        let fixture = try DeclarationsFixture.load()
        let listed = Set(fixture.declarations(in: section, startingWith: "static var ")
            .filter { $0.text.contains(": \(section).Code") }.compactMap(\.name))
        #expect(listed == Set(shorthands.keys), "\(section) shorthands differ: \(listed.symmetricDifference(shorthands.keys).sorted())")
        let rawByName = Dictionary(
            fixture.declarations.filter { $0.section == codes }.compactMap { d in d.name.flatMap { n in d.raw.map { (n, $0) } } },
            uniquingKeysWith: { first, _ in first })
        for (name, raw) in shorthands {
            #expect(rawByName[name] == raw, "\(section).\(name) gives \(raw), the fixture's \(codes).\(name) is \(String(describing: rawByName[name]))")
        }
    }

    /// The fixture lists the error type's `errorDomain`, and ours is CoreBluetooth's domain.
    private func checkErrorDomain(section: String, ours: String, expected: String) throws {
        let fixture = try DeclarationsFixture.load()
        #expect(fixture.declarations(in: section, startingWith: "static var errorDomain: String").count == 1)
        #expect(ours == expected)
    }

    @Test("every global string constant of the fixture exists with Apple's value")
    func globalConstants() throws {
        // Ours, by name: each entry names the constant in Swift, so a missing one fails to compile.
        let ours: [String: String] = [
            "CBCentralManagerOptionShowPowerAlertKey": CBCentralManagerOptionShowPowerAlertKey,
            "CBCentralManagerOptionRestoreIdentifierKey": CBCentralManagerOptionRestoreIdentifierKey,
            "CBCentralManagerScanOptionAllowDuplicatesKey": CBCentralManagerScanOptionAllowDuplicatesKey,
            "CBCentralManagerScanOptionSolicitedServiceUUIDsKey": CBCentralManagerScanOptionSolicitedServiceUUIDsKey,
            "CBConnectPeripheralOptionNotifyOnConnectionKey": CBConnectPeripheralOptionNotifyOnConnectionKey,
            "CBConnectPeripheralOptionNotifyOnDisconnectionKey": CBConnectPeripheralOptionNotifyOnDisconnectionKey,
            "CBConnectPeripheralOptionNotifyOnNotificationKey": CBConnectPeripheralOptionNotifyOnNotificationKey,
            "CBConnectPeripheralOptionStartDelayKey": CBConnectPeripheralOptionStartDelayKey,
            "CBConnectPeripheralOptionEnableTransportBridgingKey": CBConnectPeripheralOptionEnableTransportBridgingKey,
            "CBConnectPeripheralOptionRequiresANCS": CBConnectPeripheralOptionRequiresANCS,
            "CBConnectPeripheralOptionEnableAutoReconnect": CBConnectPeripheralOptionEnableAutoReconnect,
            "CBCentralManagerRestoredStatePeripheralsKey": CBCentralManagerRestoredStatePeripheralsKey,
            "CBCentralManagerRestoredStateScanServicesKey": CBCentralManagerRestoredStateScanServicesKey,
            "CBCentralManagerRestoredStateScanOptionsKey": CBCentralManagerRestoredStateScanOptionsKey,
            "CBAdvertisementDataLocalNameKey": CBAdvertisementDataLocalNameKey,
            "CBAdvertisementDataManufacturerDataKey": CBAdvertisementDataManufacturerDataKey,
            "CBAdvertisementDataServiceDataKey": CBAdvertisementDataServiceDataKey,
            "CBAdvertisementDataServiceUUIDsKey": CBAdvertisementDataServiceUUIDsKey,
            "CBAdvertisementDataOverflowServiceUUIDsKey": CBAdvertisementDataOverflowServiceUUIDsKey,
            "CBAdvertisementDataTxPowerLevelKey": CBAdvertisementDataTxPowerLevelKey,
            "CBAdvertisementDataIsConnectable": CBAdvertisementDataIsConnectable,
            "CBAdvertisementDataSolicitedServiceUUIDsKey": CBAdvertisementDataSolicitedServiceUUIDsKey,
            "CBPeripheralManagerOptionShowPowerAlertKey": CBPeripheralManagerOptionShowPowerAlertKey,
            "CBPeripheralManagerOptionRestoreIdentifierKey": CBPeripheralManagerOptionRestoreIdentifierKey,
            "CBPeripheralManagerRestoredStateServicesKey": CBPeripheralManagerRestoredStateServicesKey,
            "CBPeripheralManagerRestoredStateAdvertisementDataKey": CBPeripheralManagerRestoredStateAdvertisementDataKey,
        ]
        // The strings CoreBluetooth uses, as its own code reads and writes them.
        let apple: [String: String] = [
            "CBCentralManagerOptionShowPowerAlertKey": "kCBInitOptionShowPowerAlert",
            "CBCentralManagerOptionRestoreIdentifierKey": "kCBInitOptionRestoreIdentifier",
            "CBCentralManagerScanOptionAllowDuplicatesKey": "kCBScanOptionAllowDuplicates",
            "CBCentralManagerScanOptionSolicitedServiceUUIDsKey": "kCBScanOptionSolicitedServiceUUIDs",
            "CBConnectPeripheralOptionNotifyOnConnectionKey": "kCBConnectOptionNotifyOnConnection",
            "CBConnectPeripheralOptionNotifyOnDisconnectionKey": "kCBConnectOptionNotifyOnDisconnection",
            "CBConnectPeripheralOptionNotifyOnNotificationKey": "kCBConnectOptionNotifyOnNotification",
            "CBConnectPeripheralOptionStartDelayKey": "kCBConnectOptionStartDelay",
            "CBConnectPeripheralOptionEnableTransportBridgingKey": "kCBConnectOptionEnableTransportBridging",
            "CBConnectPeripheralOptionRequiresANCS": "kCBConnectOptionRequiresANCS",
            "CBConnectPeripheralOptionEnableAutoReconnect": "kCBConnectOptionEnableAutoReconnect",
            "CBCentralManagerRestoredStatePeripheralsKey": "kCBRestoredPeripherals",
            "CBCentralManagerRestoredStateScanServicesKey": "kCBRestoredScanServices",
            "CBCentralManagerRestoredStateScanOptionsKey": "kCBRestoredScanOptions",
            "CBAdvertisementDataLocalNameKey": "kCBAdvDataLocalName",
            "CBAdvertisementDataManufacturerDataKey": "kCBAdvDataManufacturerData",
            "CBAdvertisementDataServiceDataKey": "kCBAdvDataServiceData",
            "CBAdvertisementDataServiceUUIDsKey": "kCBAdvDataServiceUUIDs",
            "CBAdvertisementDataOverflowServiceUUIDsKey": "kCBAdvDataOverflowServiceUUIDs",
            "CBAdvertisementDataTxPowerLevelKey": "kCBAdvDataTxPowerLevel",
            "CBAdvertisementDataIsConnectable": "kCBAdvDataIsConnectable",
            "CBAdvertisementDataSolicitedServiceUUIDsKey": "kCBAdvDataSolicitedServiceUUIDs",
            "CBPeripheralManagerOptionShowPowerAlertKey": "kCBInitOptionShowPowerAlert",
            "CBPeripheralManagerOptionRestoreIdentifierKey": "kCBInitOptionRestoreIdentifier",
            "CBPeripheralManagerRestoredStateServicesKey": "kCBRestoredServices",
            "CBPeripheralManagerRestoredStateAdvertisementDataKey": "kCBRestoredAdvertisement",
        ]
        let fixture = try DeclarationsFixture.load()
        let listed = fixture.declarations.filter { $0.section.hasPrefix("Global constants") && $0.text.hasPrefix("let ") }
        #expect(listed.count == 26)
        #expect(Set(listed.compactMap(\.name)) == Set(ours.keys))
        #expect(Set(apple.keys) == Set(ours.keys))
        for (name, value) in ours {
            #expect(value == apple[name], "\(name) is \"\(value)\"; CoreBluetooth's is \"\(apple[name] ?? "?")\"")
        }
        #expect(CBErrorDomain == "CBErrorDomain")
        #expect(CBATTErrorDomain == "CBATTErrorDomain")
    }

    @Test("the connection event matching options are the fixture's, with CoreBluetooth's strings")
    func connectionEventMatchingOptions() throws {
        let ours: [String: String] = [
            "peripheralUUIDs": CBConnectionEventMatchingOption.peripheralUUIDs.rawValue,
            "serviceUUIDs": CBConnectionEventMatchingOption.serviceUUIDs.rawValue,
        ]
        let fixture = try DeclarationsFixture.load()
        let listed = fixture.declarations(in: "CBConnectionEventMatchingOption", startingWith: "static let ")
        #expect(Set(listed.compactMap(\.name)) == Set(ours.keys))
        #expect(ours["peripheralUUIDs"] == "kCBConnectionEventMatchingOptionPeripheralUUIDs")
        #expect(ours["serviceUUIDs"] == "kCBConnectionEventMatchingOptionServiceUUIDs")
        #expect(CBConnectionEventMatchingOption(rawValue: "kCBConnectionEventMatchingOptionServiceUUIDs") == .serviceUUIDs)
        let options: [CBConnectionEventMatchingOption: Any] = [.serviceUUIDs: [CBUUID(string: "180D")]]
        #expect(options[.serviceUUIDs] != nil && options[.peripheralUUIDs] == nil)
    }

    @Test("CBL2CAPPSM is UInt16, as the fixture declares")
    func l2capPSM() throws {
        let fixture = try DeclarationsFixture.load()
        #expect(fixture.declarations(in: "CBL2CAPPSM", startingWith: "typealias ").map(\.text) == ["typealias CBL2CAPPSM = UInt16"])
        #expect(CBL2CAPPSM.self == UInt16.self)
    }
}
#endif
