import BleuCore
import Foundation
import Testing
import BleuGATT

/// `SIGCatalogue.describe(_:of:)`: what `bleu gatt` prints after a value's bytes.
@Suite("Catalogue: describing values by UUID")
struct SIGCatalogueTests {
    @Test("known characteristics read as their value, with its unit")
    func known() throws {
        let cases: [(UInt16, String, String)] = [
            (0x2A19, "57", "87 %"),                                   // Battery Level
            (0x2A6E, "66 08", "21.5 °C"),                             // Temperature, 2150 × 0.01 °C
            (0x2A6E, "00 80", "not known"),                           // Temperature's "value is not known"
            (0x2A6F, "C6 11", "45.5 %"),                              // Humidity, 4550 × 0.01 %
            (0x2A6D, "02 76 0F 00", "101325.0 Pa"),                   // Pressure, 1013250 × 0.1 Pa
            (0x2A00, "62 6C 65 75", "\"bleu\""),                      // GAP Device Name
            (0x2A00, "", "\"\""),                                     // an empty name shows
            (0x2A01, "C1 00", "0x00C1 (Watch: Sports Watch)"),     // GAP Appearance, named
            (0x2A29, "41 63 6D 65 20 C3 A9", "\"Acme é\""),           // Manufacturer Name String
            (0x2A26, "31 2E 34 2E 32", "\"1.4.2\""),                  // Firmware Revision String
            (0x2A38, "02", "wrist"),                                  // Body Sensor Location
            (0x2A21, "05 00", "5 s"),                                 // Measurement Interval
            (0x2A21, "00 00", "no periodic measurement"),
            (0x2A5D, "0A", "rearDropout"),                            // Sensor Location (CSC, RSC, Cycling Power)
        ]
        for (uuid, hex, expected) in cases {
            #expect(try SIGCatalogue.describe(bytes(hex), of: BluetoothUUID(uuid)) == expected, "0x\(String(uuid, radix: 16)) \(hex)")
        }
    }

    @Test("structures read as the catalogue's decoded value")
    func structures() throws {
        let measurement = bytes("00 48")  // Heart Rate Measurement: flags 0, 72 bpm as uint8
        let decoded = try HeartRateService.measurement.decode(measurement)
        #expect(try SIGCatalogue.describe(measurement, of: BluetoothUUID(0x2A37)) == String(describing: decoded))
        let pnp = bytes("01 0D 00 00 00 10 01")
        #expect(try SIGCatalogue.describe(pnp, of: BluetoothUUID(0x2A50))
                == String(describing: try DeviceInformationService.pnpID.decode(pnp)))
    }

    @Test("an unknown UUID is nil; bytes that do not decode as a known one throw, naming the characteristic")
    func unknownAndMalformed() throws {
        #expect(try SIGCatalogue.describe(bytes("01 02"), of: BluetoothUUID(0x2A99)) == nil)
        #expect(try SIGCatalogue.describe(bytes("01"), of: BluetoothUUID("9F1E0001-7B51-4C9A-9E2A-1B2C3D4E5F60")) == nil)
        let tooHigh = codecError { () throws(GATTCodecError) in try SIGCatalogue.describe(bytes("65"), of: BluetoothUUID(0x2A19)) }
        #expect(tooHigh?.kind == .valueNotAllowed)
        #expect(tooHigh?.path.first == "Battery Level")
        let short = codecError { () throws(GATTCodecError) in try SIGCatalogue.describe(bytes("C1"), of: BluetoothUUID(0x2A01)) }
        #expect(short?.kind == .invalidLength)
        let notUTF8 = codecError { () throws(GATTCodecError) in try SIGCatalogue.describe(bytes("41 C3"), of: BluetoothUUID(0x2A00)) }
        #expect(notUTF8?.kind == .valueNotAllowed)
    }

    @Test("the health and proximity profiles' UUID constants carry the SIG's assigned names")
    func healthProfileNames() {
        let services: [(BluetoothUUID, UInt16, String)] = [
            (BluetoothUUID.Service.immediateAlert, 0x1802, "Immediate Alert"),
            (BluetoothUUID.Service.linkLoss, 0x1803, "Link Loss"),
            (BluetoothUUID.Service.txPower, 0x1804, "Tx Power"),
            (BluetoothUUID.Service.glucose, 0x1808, "Glucose"),
            (BluetoothUUID.Service.bloodPressure, 0x1810, "Blood Pressure"),
            (BluetoothUUID.Service.bodyComposition, 0x181B, "Body Composition"),
            (BluetoothUUID.Service.weightScale, 0x181D, "Weight Scale"),
            (BluetoothUUID.Service.pulseOximeter, 0x1822, "Pulse Oximeter Service"),
        ]
        let characteristics: [(BluetoothUUID, UInt16, String)] = [
            (BluetoothUUID.Characteristic.alertLevel, 0x2A06, "Alert Level"),
            (BluetoothUUID.Characteristic.txPowerLevel, 0x2A07, "Tx Power Level"),
            (BluetoothUUID.Characteristic.glucoseMeasurement, 0x2A18, "Glucose Measurement"),
            (BluetoothUUID.Characteristic.glucoseMeasurementContext, 0x2A34, "Glucose Measurement Context"),
            (BluetoothUUID.Characteristic.bloodPressureMeasurement, 0x2A35, "Blood Pressure Measurement"),
            (BluetoothUUID.Characteristic.intermediateCuffPressure, 0x2A36, "Intermediate Cuff Pressure"),
            (BluetoothUUID.Characteristic.bloodPressureFeature, 0x2A49, "Blood Pressure Feature"),
            (BluetoothUUID.Characteristic.glucoseFeature, 0x2A51, "Glucose Feature"),
            (BluetoothUUID.Characteristic.recordAccessControlPoint, 0x2A52, "Record Access Control Point"),
            (BluetoothUUID.Characteristic.plxSpotCheckMeasurement, 0x2A5E, "PLX Spot-Check Measurement"),
            (BluetoothUUID.Characteristic.plxContinuousMeasurement, 0x2A5F, "PLX Continuous Measurement Characteristic"),
            (BluetoothUUID.Characteristic.plxFeatures, 0x2A60, "PLX Features"),
            (BluetoothUUID.Characteristic.bodyCompositionFeature, 0x2A9B, "Body Composition Feature"),
            (BluetoothUUID.Characteristic.bodyCompositionMeasurement, 0x2A9C, "Body Composition Measurement"),
            (BluetoothUUID.Characteristic.weightMeasurement, 0x2A9D, "Weight Measurement"),
            (BluetoothUUID.Characteristic.weightScaleFeature, 0x2A9E, "Weight Scale Feature"),
        ]
        for (uuid, number, name) in services + characteristics {
            #expect(uuid == BluetoothUUID(number), "\(name)")
            #expect(uuid.name == name)
        }
    }
}
