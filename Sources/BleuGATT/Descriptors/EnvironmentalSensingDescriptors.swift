import BleuCore
import Foundation

/// The Environmental Sensing Measurement descriptor (0x290C), Environmental Sensing Service
/// §3.1.2.1: how a sensor takes the values of the characteristic it describes. Eleven bytes:
/// Flags (`uint16`), Sampling Function (`uint8`), Measurement Period (`uint24`, seconds),
/// Update Interval (`uint24`, seconds), Application (`uint8`) and Measurement Uncertainty
/// (`uint8`). (The layout, the sampling functions, the trigger conditions 0x00–0x09 and the
/// configuration's 0x00 AND / 0x01 OR were checked against an independent implementation's
/// packed structures and constants.) The ESS names applications up to 0x21 (map database,
/// elevation sources, positions); those past `infrared` (0x05) are kept by number.
public struct EnvironmentalSensingMeasurement: GATTStructure, Hashable {
    /// How the samples of a measurement period make one value. Values this type does not name
    /// are kept as they are.
    public struct SamplingFunction: RawRepresentable, Sendable, Hashable {
        /// The field's byte.
        public let rawValue: UInt8
        /// The sampling function with this byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// 0x00: not specified.
        public static let unspecified = SamplingFunction(rawValue: 0x00)
        /// 0x01: an instantaneous value.
        public static let instantaneous = SamplingFunction(rawValue: 0x01)
        /// 0x02: the arithmetic mean over the measurement period.
        public static let arithmeticMean = SamplingFunction(rawValue: 0x02)
        /// 0x03: the root mean square over the measurement period.
        public static let rms = SamplingFunction(rawValue: 0x03)
        /// 0x04: the maximum over the measurement period.
        public static let maximum = SamplingFunction(rawValue: 0x04)
        /// 0x05: the minimum over the measurement period.
        public static let minimum = SamplingFunction(rawValue: 0x05)
        /// 0x06: accumulated over the measurement period.
        public static let accumulated = SamplingFunction(rawValue: 0x06)
        /// 0x07: a count over the measurement period.
        public static let count = SamplingFunction(rawValue: 0x07)
    }

    /// Where or on what the sensor measures. Values this type does not name are kept as they are.
    public struct Application: RawRepresentable, Sendable, Hashable {
        /// The field's byte.
        public let rawValue: UInt8
        /// The application with this byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// 0x00: not specified.
        public static let unspecified = Application(rawValue: 0x00)
        /// 0x01: air.
        public static let air = Application(rawValue: 0x01)
        /// 0x02: water.
        public static let water = Application(rawValue: 0x02)
        /// 0x03: barometric.
        public static let barometric = Application(rawValue: 0x03)
        /// 0x04: soil.
        public static let soil = Application(rawValue: 0x04)
        /// 0x05: infrared.
        public static let infrared = Application(rawValue: 0x05)
    }

    /// The Flags field; every bit is reserved for future use.
    public var flags: UInt16
    /// How samples make a value.
    public var samplingFunction: SamplingFunction
    /// The period the value covers, in seconds (`uint24`, at most 16 777 215); 0 when not in use.
    public var measurementPeriod: UInt32
    /// How often the value is updated, in seconds (`uint24`); 0 when not in use.
    public var updateInterval: UInt32
    /// Where or on what the sensor measures.
    public var application: Application
    /// The measurement uncertainty in steps of 0.5 %; 0xFF when the sensor does not know it.
    public var measurementUncertainty: UInt8

    /// A measurement descriptor; by default no flags, unspecified, periods not in use.
    public init(flags: UInt16 = 0, samplingFunction: SamplingFunction = .unspecified, measurementPeriod: UInt32 = 0,
                updateInterval: UInt32 = 0, application: Application = .unspecified, measurementUncertainty: UInt8 = 0) {
        self.flags = flags
        self.samplingFunction = samplingFunction
        self.measurementPeriod = measurementPeriod
        self.updateInterval = updateInterval
        self.application = application
        self.measurementUncertainty = measurementUncertainty
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        flags = try reader.decode(.uint16, field: "Flags")
        samplingFunction = SamplingFunction(rawValue: try reader.decode(.uint8, field: "Sampling Function"))
        measurementPeriod = try reader.decode(.uint24, field: "Measurement Period")
        updateInterval = try reader.decode(.uint24, field: "Update Interval")
        application = Application(rawValue: try reader.decode(.uint8, field: "Application"))
        measurementUncertainty = try reader.decode(.uint8, field: "Measurement Uncertainty")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(flags)
        writer.writeInteger(samplingFunction.rawValue)
        try writer.encode(measurementPeriod, with: .uint24, field: "Measurement Period")
        try writer.encode(updateInterval, with: .uint24, field: "Update Interval")
        writer.writeInteger(application.rawValue)
        writer.writeInteger(measurementUncertainty)
    }
}

/// The Environmental Sensing Trigger Setting descriptor (0x290D), Environmental Sensing
/// Service §3.1.2.2: when the server notifies the characteristic it describes. A Condition
/// byte, then an operand whose layout the condition chooses: none, a time in seconds
/// (`uint24`), or a value in the described characteristic's format (kept as bytes: decode
/// them with the characteristic's codec).
public struct EnvironmentalSensingTriggerSetting: GATTStructure, Hashable {
    /// The Condition field. A byte the specification reserves does not decode.
    public enum Condition: UInt8, Sendable, Hashable, CaseIterable {
        /// 0x00: the trigger is inactive (no operand).
        case inactive = 0x00
        /// 0x01: notify at a fixed interval (a time operand).
        case fixedInterval = 0x01
        /// 0x02: notify no more often than a time (a time operand).
        case noLessThanInterval = 0x02
        /// 0x03: notify when the value changes (no operand).
        case valueChanged = 0x03
        /// 0x04: while less than the operand value.
        case lessThan = 0x04
        /// 0x05: while less than or equal to the operand value.
        case lessThanOrEqual = 0x05
        /// 0x06: while greater than the operand value.
        case greaterThan = 0x06
        /// 0x07: while greater than or equal to the operand value.
        case greaterThanOrEqual = 0x07
        /// 0x08: while equal to the operand value.
        case equal = 0x08
        /// 0x09: while not equal to the operand value.
        case notEqual = 0x09
    }

    /// The operand a condition carries.
    public enum Operand: Sendable, Hashable {
        /// None: ``Condition/inactive`` and ``Condition/valueChanged``.
        case none
        /// Seconds (`uint24`): ``Condition/fixedInterval`` and ``Condition/noLessThanInterval``.
        case seconds(UInt32)
        /// A value in the described characteristic's format: the comparisons.
        case value(Data)
    }

    /// When to notify.
    public var condition: Condition
    /// The condition's operand.
    public var operand: Operand

    /// A trigger setting. Encoding throws ``GATTCodecError`` when the operand is not the kind
    /// the condition takes.
    public init(condition: Condition, operand: Operand = .none) {
        self.condition = condition
        self.operand = operand
    }

    /// The kind of operand each condition takes, for errors.
    private static func operandText(_ condition: Condition) -> String {
        switch condition {
        case .inactive, .valueChanged: "no operand"
        case .fixedInterval, .noLessThanInterval: "a time operand (uint24 seconds)"
        default: "a value operand (the characteristic's format)"
        }
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        condition = try reader.decode(.enumeration(Condition.self), field: "Condition")
        switch condition {
        case .inactive, .valueChanged:
            operand = .none
        case .fixedInterval, .noLessThanInterval:
            operand = .seconds(try reader.decode(.uint24, field: "Operand"))
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .equal, .notEqual:
            guard !reader.isAtEnd else {
                throw GATTCodecError.invalidLength(expected: "a value operand", found: "the end of the value").within("Operand")
            }
            operand = .value(reader.readRemainingBytes())
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(condition.rawValue)
        switch (condition, operand) {
        case (.inactive, .none), (.valueChanged, .none):
            break
        case (.fixedInterval, .seconds(let seconds)), (.noLessThanInterval, .seconds(let seconds)):
            try writer.encode(seconds, with: .uint24, field: "Operand")
        case (.lessThan, .value(let bytes)), (.lessThanOrEqual, .value(let bytes)), (.greaterThan, .value(let bytes)),
             (.greaterThanOrEqual, .value(let bytes)), (.equal, .value(let bytes)), (.notEqual, .value(let bytes)):
            guard !bytes.isEmpty else {
                throw GATTCodecError.invalidLength(expected: "a value operand", found: "no bytes").within("Operand")
            }
            writer.writeBytes(bytes)
        default:
            throw GATTCodecError.valueNotAllowed(expected: Self.operandText(condition), found: "\(operand)").within("Operand")
        }
    }
}

/// The Environmental Sensing Configuration descriptor's value (0x290B), Environmental Sensing
/// Service §3.1.2.3: how several ES Trigger Setting descriptors of one characteristic combine.
/// A `uint8`; a value the specification reserves does not decode.
public enum EnvironmentalSensingConfiguration: UInt8, Sendable, Hashable, CaseIterable {
    /// 0x00: notify when every trigger condition holds (Boolean AND).
    case allTriggers = 0x00
    /// 0x01: notify when any trigger condition holds (Boolean OR).
    case anyTrigger = 0x01
}

extension GATTDescriptor where Value == EnvironmentalSensingMeasurement {
    /// Environmental Sensing Measurement (0x290C), Environmental Sensing Service §3.1.2.1.
    public static var environmentalSensingMeasurement: Self {
        Self(BluetoothUUID.Descriptor.environmentalSensingMeasurement, codec: EnvironmentalSensingMeasurement.codec)
    }
}

extension GATTDescriptor where Value == EnvironmentalSensingTriggerSetting {
    /// Environmental Sensing Trigger Setting (0x290D), Environmental Sensing Service §3.1.2.2.
    public static var environmentalSensingTriggerSetting: Self {
        Self(BluetoothUUID.Descriptor.environmentalSensingTriggerSetting, codec: EnvironmentalSensingTriggerSetting.codec)
    }
}

extension GATTDescriptor where Value == EnvironmentalSensingConfiguration {
    /// Environmental Sensing Configuration (0x290B), Environmental Sensing Service §3.1.2.3.
    public static var environmentalSensingConfiguration: Self {
        Self(BluetoothUUID.Descriptor.environmentalSensingConfiguration,
             codec: .enumeration(EnvironmentalSensingConfiguration.self))
    }
}
