import BleuCore
import Foundation
import Testing
@testable import BleuGATT

@Suite("Declarations")
struct DeclarationTests {
    /// The README's example service (ReadmeExampleTests.swift).
    typealias ThermostatService = ReadmeThermostatService

    // Core Spec Vol 3 Part G §3.3.3.5: Format uint8, Exponent sint8, Unit uint16, Name Space
    // uint8, Description uint16. sint16 (0x0E), exponent −2 (0xFE), °C (0x272F), Bluetooth SIG
    // name space (0x01), description 0x0000 → 0E FE 2F 27 01 00 00.
    @Test("a presentation format descriptor is the specification's 7 bytes")
    func presentationFormat() throws {
        let format = PresentationFormat(format: .sint16, exponent: -2, unit: PresentationFormat.Unit.degreeCelsius)
        #expect(format.descriptor.uuid == BluetoothUUID(0x2904))
        #expect(format.descriptor.value == bytes("0E FE 2F 27 01 00 00"))
        #expect(try PresentationFormat(decoding: bytes("0E FE 2F 27 01 00 00")) == format)
        // A vendor's description in the SIG name space: uint8 percentage, "first" (0x0001).
        let second = PresentationFormat(format: .uint8, unit: PresentationFormat.Unit.percentage, description: 0x0001)
        #expect(second.descriptor.value == bytes("04 00 AD 27 01 01 00"))
        expectRejected(PresentationFormat.codec, bytes("0E FE 2F 27 01 00"), .invalidLength)
    }

    @Test("a service type produces the ServiceDefinition any backend hosts")
    func serviceDefinition() throws {
        let definition = try ThermostatService.declaration.definition()
        #expect(definition.uuid == ThermostatService.uuid)
        #expect(definition.isPrimary)
        #expect(definition.characteristics.count == 2)
        let target = definition.characteristics[0]
        #expect(target.properties == [.read, .write, .notify])
        #expect(target.permissions == [.readable, .writeable])
        #expect(target.value == nil)
        #expect(target.descriptors.map(\.uuid) == [BluetoothUUID(0x2901), BluetoothUUID(0x2904)])
        #expect(target.descriptors[0].value == Data("Target temperature".utf8))
        #expect(target.descriptors[1].value == bytes("0E FE 2F 27 01 00 00"))
        #expect(definition.characteristics[1].permissions == [.readable, .writeable])
        #expect(ThermostatService.declaration.characteristicUUIDs == [ThermostatService.target.uuid, ThermostatService.mode.uuid])
    }

    @Test("permissions follow the properties unless given")
    func permissions() {
        #expect(AttributePermissions(for: [.notify]) == [])
        #expect(AttributePermissions(for: [.read, .indicate]) == [.readable])
        #expect(AttributePermissions(for: [.writeWithoutResponse]) == [.writeable])
        let secured = BatteryService.level.with(permissions: [.readable, .readEncryptionRequired])
        #expect(secured.declaration.permissions == [.readable, .readEncryptionRequired])
        let writable = HealthThermometerService.measurementInterval.with(properties: [.read, .write, .indicate])
        #expect(writable.permissions == [.readable, .writeable])
    }

    @Test("a static value needs a read-only characteristic")
    func staticValueRules() throws {
        let fixed = try ServiceDeclaration(BatteryService.uuid) {
            try BatteryService.level.with(properties: [.read]).value(80)
        }
        #expect(try fixed.definition().characteristics[0].value == bytes("50"))
        let notifying = try ServiceDeclaration(BatteryService.uuid) {
            try BatteryService.level.value(80)
        }
        #expect(throws: BleuError.self) { try notifying.definition() }
        #expect(codecError { () throws(GATTCodecError) in try BatteryService.level.value(120) }?.path == ["Battery Level"])
    }

    @Test("the builder takes if, if let, for and static values")
    func builder() throws {
        let includeSerial = true
        let revision: String? = nil
        let extra = [DeviceInformationService.hardwareRevision, DeviceInformationService.softwareRevision]
        let service = try DeviceInformationService.declaration {
            try DeviceInformationService.manufacturerName.value("Acme")
            if includeSerial {
                try DeviceInformationService.serialNumber.value("SN-1")
            } else {
                DeviceInformationService.modelNumber
            }
            if let revision {
                try DeviceInformationService.firmwareRevision.value(revision)
            }
            for characteristic in extra {
                characteristic
            }
        }
        #expect(service.characteristics.map(\.uuid) == [BluetoothUUID(0x2A29), BluetoothUUID(0x2A25), BluetoothUUID(0x2A27), BluetoothUUID(0x2A28)])
        #expect(service.characteristic(BluetoothUUID(0x2A25))?.value == Data("SN-1".utf8))
    }

    @Test("a central finds a typed characteristic among the discovered ones by UUID (and service)")
    func findRemote() {
        let peripheral = UUID()
        let remote = [
            RemoteCharacteristic(peripheral: peripheral, service: BluetoothUUID(0x180D), uuid: BluetoothUUID(0x2A37),
                                 properties: [.notify], handle: 0x10, valueHandle: 0x11, endHandle: 0x12),
            RemoteCharacteristic(peripheral: peripheral, service: BluetoothUUID(0x180F), uuid: BluetoothUUID(0x2A19),
                                 properties: [.read], handle: 0x20, valueHandle: 0x21, endHandle: 0x21),
            RemoteCharacteristic(peripheral: peripheral, service: BluetoothUUID(0x1234), uuid: BluetoothUUID(0x2A19),
                                 properties: [.read], handle: 0x30, valueHandle: 0x31, endHandle: 0x31),
        ]
        #expect(HeartRateService.measurement.find(in: remote)?.valueHandle == 0x11)
        #expect(BatteryService.level.find(in: remote)?.valueHandle == 0x21)
        #expect(BatteryService.level.find(in: remote, inService: BluetoothUUID(0x1234))?.valueHandle == 0x31)
        #expect(HeartRateService.bodySensorLocation.find(in: remote) == nil)
        let published = PublishedCharacteristic(service: BluetoothUUID(0x180F), uuid: BluetoothUUID(0x2A19),
                                                properties: [.read], permissions: [.readable], valueHandle: 3)
        #expect(BatteryService.level.matches(published, inService: BatteryService.uuid))
        #expect(!HeartRateService.measurement.matches(published))
    }

    @Test("every catalogue service produces a definition whose UUIDs carry the SIG's names")
    func catalogue() throws {
        let services: [any GATTService.Type] = [BatteryService.self, DeviceInformationService.self, HeartRateService.self,
                                                HealthThermometerService.self, CurrentTimeService.self, EnvironmentalSensingService.self]
        for service in services {
            let definition = try service.declaration.definition()
            #expect(definition.uuid.name != nil)
            #expect(!definition.characteristics.isEmpty)
            for characteristic in service.declaration.characteristics {
                #expect(characteristic.name == characteristic.uuid.name, "\(characteristic.uuid)")
            }
        }
        #expect(BatteryService.level.description == "Battery Level (2A19) [read, notify]")
    }
}
