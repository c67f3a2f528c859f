import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// The typed descriptors' layouts, byte for byte from the specification tables (Core Spec
/// Vol 3 Part G §3.3.3, GATT Specification Supplement "Valid Range", Environmental Sensing
/// Service §3.1.2), their round trips, and their refusals.
@Suite("Typed descriptors: layouts and refusals")
struct DescriptorCodecTests {
    /// Checks that `value` encodes to exactly `data` and `data` decodes back to `value`.
    func expectLayout<Value: Equatable>(_ descriptor: GATTDescriptor<Value>, _ value: Value, _ data: Data,
                                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try descriptor.encode(value) == data, sourceLocation: sourceLocation)
        #expect(try descriptor.decode(data) == value, sourceLocation: sourceLocation)
    }

    /// The decoding error of `data`, which must be of `kind`.
    @discardableResult
    func expectRefused<Value>(_ descriptor: GATTDescriptor<Value>, _ data: Data, _ kind: GATTCodecError.Kind,
                              sourceLocation: SourceLocation = #_sourceLocation) -> GATTCodecError? {
        let error = codecError({ () throws(GATTCodecError) in try descriptor.decode(data) }, sourceLocation: sourceLocation)
        #expect(error?.kind == kind, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.path.first == descriptor.name, sourceLocation: sourceLocation)
        return error
    }

    @Test("the catalogue's UUIDs and names are the SIG's")
    func uuids() {
        #expect(GATTDescriptor.extendedProperties.uuid == BluetoothUUID(0x2900))
        #expect(GATTDescriptor.userDescription.uuid == BluetoothUUID(0x2901))
        #expect(GATTDescriptor.clientCharacteristicConfiguration.uuid == BluetoothUUID(0x2902))
        #expect(GATTDescriptor.serverCharacteristicConfiguration.uuid == BluetoothUUID(0x2903))
        #expect(GATTDescriptor.presentationFormat.uuid == BluetoothUUID(0x2904))
        #expect(GATTDescriptor.validRange(.uint8).uuid == BluetoothUUID(0x2906))
        #expect(GATTDescriptor.environmentalSensingConfiguration.uuid == BluetoothUUID(0x290B))
        #expect(GATTDescriptor.environmentalSensingMeasurement.uuid == BluetoothUUID(0x290C))
        #expect(GATTDescriptor.environmentalSensingTriggerSetting.uuid == BluetoothUUID(0x290D))
        #expect(GATTDescriptor.userDescription.name == "Characteristic User Description")
    }

    @Test("Characteristic Extended Properties: uint16, bit 0 reliable write, bit 1 writable auxiliaries")
    func extendedProperties() throws {
        try expectLayout(.extendedProperties, [.reliableWrite], bytes("01 00"))
        try expectLayout(.extendedProperties, [.writableAuxiliaries], bytes("02 00"))
        try expectLayout(.extendedProperties, [.reliableWrite, .writableAuxiliaries], bytes("03 00"))
        try expectLayout(.extendedProperties, CharacteristicExtendedProperties(rawValue: 0x8001), bytes("01 80"))
        expectRefused(.extendedProperties, bytes("01"), .invalidLength)
        expectRefused(.extendedProperties, bytes("01 00 00"), .invalidLength)
    }

    @Test("Characteristic User Description: UTF-8 without terminator; invalid UTF-8 and over 512 bytes refused")
    func userDescription() throws {
        try expectLayout(.userDescription, "Température", Data("Température".utf8))
        try expectLayout(.userDescription, "", Data())
        expectRefused(.userDescription, bytes("54 FF"), .valueNotAllowed)
        expectRefused(.userDescription, Data(repeating: 0x41, count: 513), .invalidLength)
        let tooLong = codecError { () throws(GATTCodecError) in try GATTDescriptor.userDescription.encode(String(repeating: "a", count: 513)) }
        #expect(tooLong?.kind == .invalidLength && tooLong?.path == ["Characteristic User Description"])
    }

    @Test("Client and Server Characteristic Configuration: uint16 bit fields")
    func configurations() throws {
        try expectLayout(.clientCharacteristicConfiguration, [], bytes("00 00"))
        try expectLayout(.clientCharacteristicConfiguration, [.notification], bytes("01 00"))
        try expectLayout(.clientCharacteristicConfiguration, [.indication], bytes("02 00"))
        try expectLayout(.clientCharacteristicConfiguration, [.notification, .indication], bytes("03 00"))
        expectRefused(.clientCharacteristicConfiguration, bytes("01"), .invalidLength)
        expectRefused(.clientCharacteristicConfiguration, bytes("01 00 00"), .invalidLength)
        try expectLayout(.serverCharacteristicConfiguration, [], bytes("00 00"))
        try expectLayout(.serverCharacteristicConfiguration, [.broadcast], bytes("01 00"))
        expectRefused(.serverCharacteristicConfiguration, Data(), .invalidLength)
    }

    @Test("Characteristic Presentation Format: 7 bytes; a uint16 in percent is 06 00 AD 27 01 00 00")
    func presentationFormat() throws {
        let percent = PresentationFormat(format: .uint16, unit: PresentationFormat.Unit.percentage)
        try expectLayout(.presentationFormat, percent, bytes("06 00 AD 27 01 00 00"))
        let celsius = PresentationFormat(format: .sint16, exponent: -2, unit: PresentationFormat.Unit.degreeCelsius,
                                         description: 0x0106)
        try expectLayout(.presentationFormat, celsius, bytes("0E FE 2F 27 01 06 01"))
        // The peripheral hosts the bytes of the same codec the client decodes with.
        #expect(percent.descriptor.value == (try GATTDescriptor.presentationFormat.encode(percent)))
        let short = expectRefused(.presentationFormat, bytes("06 00 AD 27 01 00"), .invalidLength)
        #expect(short?.path == ["Characteristic Presentation Format", "Description"])
        expectRefused(.presentationFormat, bytes("06 00 AD 27 01 00 00 00"), .invalidLength)
    }

    @Test("Valid Range: lower then upper, in the described characteristic's format")
    func validRange() throws {
        try expectLayout(.validRange(.uint16), ValidRange<UInt16>(lower: 10, upper: 100), bytes("0A 00 64 00"))
        try expectLayout(.validRange(.sint16), ValidRange<Int16>(lower: -40, upper: 85), bytes("D8 FF 55 00"))
        try expectLayout(.validRange(of: BatteryService.level), ValidRange<UInt8>(lower: 5, upper: 95), bytes("05 5F"))
        #expect(ValidRange<Int>(lower: 3, upper: 1).closedRange == nil && ValidRange<Int>(lower: 1, upper: 3).closedRange == 1...3)
        let short = expectRefused(.validRange(.uint16), bytes("0A 00 64"), .invalidLength)
        #expect(short?.path == ["Valid Range", "Upper Inclusive Value"])
        expectRefused(.validRange(.uint16), bytes("0A 00 64 00 00"), .invalidLength)
        // The characteristic's own rules apply to the bounds: Battery Level is 0–100.
        let outside = expectRefused(.validRange(of: BatteryService.level), bytes("00 C8"), .valueNotAllowed)
        #expect(outside?.path.prefix(2) == ["Valid Range", "Upper Inclusive Value"])
    }

    @Test("ES Measurement: flags, sampling function, uint24 period and interval, application, uncertainty (11 bytes)")
    func environmentalSensingMeasurement() throws {
        let measurement = EnvironmentalSensingMeasurement(samplingFunction: .arithmeticMean, measurementPeriod: 60,
                                                          updateInterval: 3600, application: .air, measurementUncertainty: 10)
        try expectLayout(.environmentalSensingMeasurement, measurement, bytes("00 00 02 3C 00 00 10 0E 00 01 0A"))
        let unnamed = EnvironmentalSensingMeasurement(flags: 0x8000, samplingFunction: .init(rawValue: 0x7F),
                                                      measurementPeriod: 0xFF_FFFF, application: .init(rawValue: 0xF0))
        try expectLayout(.environmentalSensingMeasurement, unnamed, bytes("00 80 7F FF FF FF 00 00 00 F0 00"))
        expectRefused(.environmentalSensingMeasurement, bytes("00 00 02 3C 00 00 10 0E 00 01"), .invalidLength)
        expectRefused(.environmentalSensingMeasurement, bytes("00 00 02 3C 00 00 10 0E 00 01 0A 00"), .invalidLength)
        var tooLong = measurement
        tooLong.measurementPeriod = 0x100_0000
        let error = codecError { () throws(GATTCodecError) in try GATTDescriptor.environmentalSensingMeasurement.encode(tooLong) }
        #expect(error?.kind == .valueNotAllowed
            && error?.path == ["Environmental Sensing Measurement", "Measurement Period"])
    }

    @Test("ES Trigger Setting: a condition, then no operand, uint24 seconds, or a value as bytes")
    func environmentalSensingTriggerSetting() throws {
        typealias Trigger = EnvironmentalSensingTriggerSetting
        try expectLayout(.environmentalSensingTriggerSetting, Trigger(condition: .inactive), bytes("00"))
        try expectLayout(.environmentalSensingTriggerSetting, Trigger(condition: .valueChanged), bytes("03"))
        try expectLayout(.environmentalSensingTriggerSetting, Trigger(condition: .fixedInterval, operand: .seconds(60)),
                         bytes("01 3C 00 00"))
        try expectLayout(.environmentalSensingTriggerSetting, Trigger(condition: .noLessThanInterval, operand: .seconds(0x01_0203)),
                         bytes("02 03 02 01"))
        try expectLayout(.environmentalSensingTriggerSetting, Trigger(condition: .lessThan, operand: .value(bytes("E8 03"))),
                         bytes("04 E8 03"))
        try expectLayout(.environmentalSensingTriggerSetting, Trigger(condition: .notEqual, operand: .value(bytes("00"))),
                         bytes("09 00"))
        let reserved = expectRefused(.environmentalSensingTriggerSetting, bytes("0A"), .valueNotAllowed)
        #expect(reserved?.path == ["Environmental Sensing Trigger Setting", "Condition"])
        expectRefused(.environmentalSensingTriggerSetting, bytes("01 3C 00"), .invalidLength)
        expectRefused(.environmentalSensingTriggerSetting, bytes("01 3C 00 00 00"), .invalidLength)
        expectRefused(.environmentalSensingTriggerSetting, bytes("03 00"), .invalidLength)
        expectRefused(.environmentalSensingTriggerSetting, bytes("04"), .invalidLength)
        expectRefused(.environmentalSensingTriggerSetting, Data(), .invalidLength)
        let mismatch = codecError { () throws(GATTCodecError) in
            try GATTDescriptor.environmentalSensingTriggerSetting.encode(Trigger(condition: .fixedInterval))
        }
        #expect(mismatch?.kind == .valueNotAllowed && mismatch?.path == ["Environmental Sensing Trigger Setting", "Operand"])
        let tooLate = codecError { () throws(GATTCodecError) in
            try GATTDescriptor.environmentalSensingTriggerSetting.encode(Trigger(condition: .fixedInterval, operand: .seconds(0x100_0000)))
        }
        #expect(tooLate?.kind == .valueNotAllowed)
    }

    @Test("ES Configuration: 0x00 AND, 0x01 OR; reserved values refused")
    func environmentalSensingConfiguration() throws {
        try expectLayout(.environmentalSensingConfiguration, .allTriggers, bytes("00"))
        try expectLayout(.environmentalSensingConfiguration, .anyTrigger, bytes("01"))
        expectRefused(.environmentalSensingConfiguration, bytes("02"), .valueNotAllowed)
        expectRefused(.environmentalSensingConfiguration, Data(), .invalidLength)
        expectRefused(.environmentalSensingConfiguration, bytes("00 00"), .invalidLength)
    }

    @Test("a custom descriptor takes any codec, names its errors, and hosts the bytes it reads")
    func custom() throws {
        let calibration = GATTDescriptor<Int16>("9F1E0101-7B51-4C9A-9E2A-1B2C3D4E5F60", name: "Calibration", codec: .sint16)
        try expectLayout(calibration, -2, bytes("FE FF"))
        #expect(try calibration.definition(-2) == DescriptorDefinition(uuid: calibration.uuid, value: bytes("FE FF")))
        let error = expectRefused(calibration, bytes("FE"), .invalidLength)
        #expect(error?.path == ["Calibration"])
    }
}
