/// A target a fitness machine is set to: the parameter of a Fitness Machine Control Point "Set
/// Target …" request, and of the Fitness Machine Status that reports it changed. Fitness Machine
/// Service specification and GATT Specification Supplement:
///
/// | target | control point op code | status op code | parameter |
/// |---|---|---|---|
/// | speed | 0x02 | 0x05 | uint16 (1/100 km/h) |
/// | inclination | 0x03 | 0x06 | sint16 (1/10 %) |
/// | resistance level | 0x04 | 0x07 | uint8 (1/10, unitless) |
/// | power | 0x05 | 0x08 | sint16 (W) |
/// | heart rate | 0x06 | 0x09 | uint8 (bpm) |
/// | indoor bike simulation | 0x11 | 0x12 | ``IndoorBikeSimulationParameters``, 6 bytes |
/// | wheel circumference | 0x12 | 0x13 | uint16 (1/10 mm) |
/// | cadence | 0x14 | 0x15 | uint16 (1/2 per minute) |
///
/// The resistance level is a `uint8` in both directions here. Public FTMS implementations
/// disagree about the control point's Set Target Resistance Level: some clients write it as a
/// `sint16` in 1/10 (while reading the status's Target Resistance Level Changed as a `uint8`),
/// and some machine emulators read one byte. The SIG's public GATT XML does not define these
/// fields, so the layout is unchecked against the SIG's table. A machine that expects two
/// bytes may refuse the one-byte request; write the raw bytes to such a machine.
public enum FitnessMachineTarget: Sendable, Hashable {
    /// Speed, in 1/100 km/h.
    case speed(UInt16)
    /// Inclination, in 1/10 %.
    case inclination(Int16)
    /// Resistance level, in tenths (unitless).
    case resistanceLevel(UInt8)
    /// Power, in watts.
    case power(Int16)
    /// Heart rate, in beats per minute.
    case heartRate(UInt8)
    /// The simulated wind, grade and resistance coefficients.
    case indoorBikeSimulation(IndoorBikeSimulationParameters)
    /// Wheel circumference, in 1/10 mm.
    case wheelCircumference(UInt16)
    /// Cadence, in 1/2 revolution per minute.
    case cadence(UInt16)

    /// Which target, without its value.
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// ``FitnessMachineTarget/speed(_:)``.
        case speed
        /// ``FitnessMachineTarget/inclination(_:)``.
        case inclination
        /// ``FitnessMachineTarget/resistanceLevel(_:)``.
        case resistanceLevel
        /// ``FitnessMachineTarget/power(_:)``.
        case power
        /// ``FitnessMachineTarget/heartRate(_:)``.
        case heartRate
        /// ``FitnessMachineTarget/indoorBikeSimulation(_:)``.
        case indoorBikeSimulation
        /// ``FitnessMachineTarget/wheelCircumference(_:)``.
        case wheelCircumference
        /// ``FitnessMachineTarget/cadence(_:)``.
        case cadence
    }

    /// Which target this is.
    public var kind: Kind {
        switch self {
        case .speed: .speed
        case .inclination: .inclination
        case .resistanceLevel: .resistanceLevel
        case .power: .power
        case .heartRate: .heartRate
        case .indoorBikeSimulation: .indoorBikeSimulation
        case .wheelCircumference: .wheelCircumference
        case .cadence: .cadence
        }
    }

    /// Reads the parameter of a `kind` target.
    init(_ kind: Kind, from reader: inout GATTReader) throws(GATTCodecError) {
        switch kind {
        case .speed: self = .speed(try reader.decode(.uint16, field: "Target Speed"))
        case .inclination: self = .inclination(try reader.decode(.sint16, field: "Target Inclination"))
        case .resistanceLevel: self = .resistanceLevel(try reader.decode(.uint8, field: "Target Resistance Level"))
        case .power: self = .power(try reader.decode(.sint16, field: "Target Power"))
        case .heartRate: self = .heartRate(try reader.decode(.uint8, field: "Target Heart Rate"))
        case .indoorBikeSimulation: self = .indoorBikeSimulation(try IndoorBikeSimulationParameters(from: &reader))
        case .wheelCircumference: self = .wheelCircumference(try reader.decode(.uint16, field: "Wheel Circumference"))
        case .cadence: self = .cadence(try reader.decode(.uint16, field: "Targeted Cadence"))
        }
    }

    /// Writes the parameter.
    func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        switch self {
        case .speed(let value), .wheelCircumference(let value), .cadence(let value): writer.writeInteger(value)
        case .inclination(let value), .power(let value): writer.writeInteger(value)
        case .resistanceLevel(let value), .heartRate(let value): writer.writeInteger(value)
        case .indoorBikeSimulation(let parameters): try parameters.encode(to: &writer)
        }
    }
}

/// The parameter of Stop or Pause (control point op code 0x08) and of the Fitness Machine Stopped
/// or Paused by the User status (0x02), a `uint8`. 0 and 3–255 are reserved and rejected.
public enum StopOrPause: UInt8, Sendable, Hashable, CaseIterable {
    /// 0x01: stop the session.
    case stop = 0x01
    /// 0x02: pause it.
    case pause = 0x02
}

/// The Indoor Bike Simulation Parameters (control point op code 0x11, status 0x12): what a smart
/// trainer simulates. Fitness Machine Service specification:
///
/// | field | size |
/// |---|---|
/// | Wind Speed | sint16 (1/1000 m/s) |
/// | Grade | sint16 (1/100 %) |
/// | Coefficient of Rolling Resistance (Crr) | uint8 (1/10000) |
/// | Wind Resistance Coefficient (Cw) | uint8 (1/100 kg/m) |
public struct IndoorBikeSimulationParameters: GATTStructure, Hashable {
    /// Wind speed, in 1/1000 m/s; positive is a headwind.
    public var windSpeed: Int16
    /// Grade, in 1/100 %.
    public var grade: Int16
    /// Coefficient of rolling resistance, in 1/10000.
    public var rollingResistanceCoefficient: UInt8
    /// Wind resistance coefficient, in 1/100 kg/m.
    public var windResistanceCoefficient: UInt8

    /// Simulation parameters.
    public init(windSpeed: Int16, grade: Int16, rollingResistanceCoefficient: UInt8, windResistanceCoefficient: UInt8) {
        self.windSpeed = windSpeed
        self.grade = grade
        self.rollingResistanceCoefficient = rollingResistanceCoefficient
        self.windResistanceCoefficient = windResistanceCoefficient
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        windSpeed = try reader.decode(.sint16, field: "Wind Speed")
        grade = try reader.decode(.sint16, field: "Grade")
        rollingResistanceCoefficient = try reader.decode(.uint8, field: "Crr")
        windResistanceCoefficient = try reader.decode(.uint8, field: "Cw")
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(windSpeed)
        writer.writeInteger(grade)
        writer.writeInteger(rollingResistanceCoefficient)
        writer.writeInteger(windResistanceCoefficient)
    }
}
