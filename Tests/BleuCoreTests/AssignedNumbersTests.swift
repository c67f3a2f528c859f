import Foundation
import Testing
@testable import BleuCore

/// The names of UUIDs, companies and appearances, from the generated tables.
@Suite("Assigned numbers: names")
struct AssignedNumbersTests {
    @Test("UUIDs of every kind carry their SIG names; unassigned and vendor UUIDs carry none")
    func uuidNames() {
        #expect(BluetoothUUID(0x180F).name == "Battery Service")
        #expect(BluetoothUUID(0x180F).description == "180F (Battery Service)")
        #expect(BluetoothUUID(0x2A19).description == "2A19 (Battery Level)")
        #expect(BluetoothUUID(0x2902).name == "Client Characteristic Configuration")
        #expect(BluetoothUUID.Declaration.primaryService.name == "Primary Service")
        #expect(BluetoothUUID.Declaration.characteristic.name == "Characteristic")
        #expect(BluetoothUUID.Characteristic.encryptedDataKeyMaterial.name == "Encrypted Data Key Material")
        #expect(BluetoothUUID(0xFEAA).description == "FEAA (Eddystone)")         // a member UUID (Google)
        #expect(BluetoothUUID(0x2BF5).name == "LE GATT Security Levels")
        #expect(BluetoothUUID(0x1859).name != nil)                               // the last service of the data
        #expect(BluetoothUUID(0xFFF0).name == nil)
        #expect(BluetoothUUID(0x1524).name == nil)                               // a vendor's alias, not assigned
        #expect(BluetoothUUID(uuid32: 0x0001_180F).name == nil)
        #expect(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E").name == nil)  // a vendor's 128-bit UUID
        #expect(BluetoothUUID("0000180F-0000-1000-8000-00805F9B34FB").name == "Battery Service")
    }

    @Test("every public UUID constant has a name")
    func constantsAreNamed() {
        let constants: [BluetoothUUID] = [
            BluetoothUUID.Service.genericAccess, BluetoothUUID.Service.battery, BluetoothUUID.Service.environmentalSensing,
            BluetoothUUID.Characteristic.peripheralPrivacyFlag, BluetoothUUID.Characteristic.udiForMedicalDevices,
            BluetoothUUID.Characteristic.barometricPressureTrend, BluetoothUUID.Descriptor.validRange,
            BluetoothUUID.Declaration.secondaryService, BluetoothUUID.Declaration.include,
        ]
        for uuid in constants {
            #expect(uuid.name != nil, "\(uuid)")
        }
    }

    @Test("the fitness profiles' constants carry the SIG's names")
    func fitnessNames() {
        let named: [(BluetoothUUID, String)] = [
            (BluetoothUUID.Service.cyclingSpeedAndCadence, "Cycling Speed and Cadence"),
            (BluetoothUUID.Characteristic.cscMeasurement, "CSC Measurement"),
            (BluetoothUUID.Characteristic.cscFeature, "CSC Feature"),
            (BluetoothUUID.Characteristic.sensorLocation, "Sensor Location"),
            (BluetoothUUID.Characteristic.scControlPoint, "SC Control Point"),
            (BluetoothUUID.Service.runningSpeedAndCadence, "Running Speed and Cadence"),
            (BluetoothUUID.Characteristic.rscMeasurement, "RSC Measurement"),
            (BluetoothUUID.Characteristic.rscFeature, "RSC Feature"),
            (BluetoothUUID.Service.cyclingPower, "Cycling Power"),
            (BluetoothUUID.Characteristic.cyclingPowerMeasurement, "Cycling Power Measurement"),
            (BluetoothUUID.Characteristic.cyclingPowerVector, "Cycling Power Vector"),
            (BluetoothUUID.Characteristic.cyclingPowerFeature, "Cycling Power Feature"),
            (BluetoothUUID.Characteristic.cyclingPowerControlPoint, "Cycling Power Control Point"),
            (BluetoothUUID.Service.fitnessMachine, "Fitness Machine"),
            (BluetoothUUID.Characteristic.fitnessMachineFeature, "Fitness Machine Feature"),
            (BluetoothUUID.Characteristic.indoorBikeData, "Indoor Bike Data"),
            (BluetoothUUID.Characteristic.fitnessMachineControlPoint, "Fitness Machine Control Point"),
            (BluetoothUUID.Characteristic.fitnessMachineStatus, "Fitness Machine Status"),
        ]
        for (uuid, name) in named {
            #expect(uuid.name == name, "\(uuid)")
        }
    }

    @Test("company identifiers carry their names; manufacturer data names its company")
    func companies() {
        #expect(CompanyIdentifier(0x004C).name == "Apple, Inc.")
        #expect(CompanyIdentifier(0x004C).description == "0x004C (Apple, Inc.)")
        #expect(CompanyIdentifier(0x0059).name == "Nordic Semiconductor ASA")
        #expect(CompanyIdentifier(0x0000).name == "Ericsson AB")
        #expect(CompanyIdentifier(0x00E0).name == "Google")
        #expect(CompanyIdentifier(0xFFF0).name == nil)
        #expect(CompanyIdentifier(0xFFF0).description == "0xFFF0")
        #expect(CompanyIdentifier(0x0100) < CompanyIdentifier(0x0101))
        let data = ManufacturerData(companyID: 0x0006, data: Data([1, 2]))
        #expect(data.company == CompanyIdentifier(rawValue: 0x0006))
        #expect(data.company.name == "Microsoft")
        // Names outside ASCII and with quotes come back whole.
        #expect(CompanyIdentifier(0x0225).name == "Nestlé Nespresso S.A.")
        #expect(CompanyIdentifier(0x025C).name == "NetEase（Hangzhou）Network co.Ltd.")
        #expect(CompanyIdentifier(0x0380).name == "LLC \"MEGA-F service\"")
        #expect(CompanyIdentifier(0xFFFF).name?.hasPrefix("Bluetooth SIG Specification Reserved Default Vendor ID") == true)
    }

    @Test("an appearance splits into category and subcategory, both named")
    func appearances() {
        let keyboard = Appearance(0x03C1)
        #expect(keyboard.category == 15)
        #expect(keyboard.subcategory == 1)
        #expect(keyboard.categoryName == "Human Interface Device")
        #expect(keyboard.subcategoryName == "Keyboard")
        #expect(keyboard.description == "0x03C1 (Human Interface Device: Keyboard)")
        #expect(Appearance(category: 15, subcategory: 1) == keyboard)
        #expect(Appearance(category: 0x7FF, subcategory: 0xFF).rawValue == 0xFFFF)  // extra bits dropped

        let generic = Appearance(0x03C0)
        #expect(generic.subcategoryName == nil)
        #expect(generic.description == "0x03C0 (Human Interface Device)")
        #expect(Appearance(0x03FF).description == "0x03FF (Human Interface Device, subcategory 63)")
        #expect(Appearance(0x00C1).description == "0x00C1 (Watch: Sports Watch)")
        #expect(Appearance(0x0000).description == "0x0000 (Unknown)")
        #expect(Appearance(0xFFC0).categoryName == nil)
        #expect(Appearance(0xFFC0).description == "0xFFC0")
    }

    @Test("every table is sorted, its names are whole lines, and no 16-bit UUID has two kinds")
    func tablesAreWellFormed() {
        let tables: [(String, AssignedNameTable)] = [
            ("services", AssignedNames.services), ("characteristics", AssignedNames.characteristics),
            ("descriptors", AssignedNames.descriptors), ("supplement", AssignedNames.supplement),
            ("companies", AssignedNames.companies), ("appearance categories", AssignedNames.appearanceCategories),
            ("appearance subcategories", AssignedNames.appearanceSubcategories),
        ]
        for (label, table) in tables {
            #expect(!table.keys.isEmpty, "\(label)")
            #expect(zip(table.keys, table.keys.dropFirst()).allSatisfy { $0 < $1 }, "\(label) is not strictly ascending")
            for (key, name) in table.entries {
                #expect(!name.isEmpty && name == name.trimmingCharacters(in: .whitespacesAndNewlines),
                        "\(label) 0x\(String(key, radix: 16)): \(String(reflecting: name))")
                #expect(table.name(for: key) == name)
            }
        }
        let kinds = [AssignedNames.services, AssignedNames.characteristics, AssignedNames.descriptors, AssignedNames.supplement]
        var seen: [UInt16: Int] = [:]
        for (index, table) in kinds.enumerated() {
            for key in table.keys {
                #expect(seen.updateValue(index, forKey: key) == nil, "0x\(String(key, radix: 16)) in two kinds")
            }
        }
        #expect(AssignedNames.companies.entries.count > 3_000)
    }
}
