/// Fitness Machine Control Point (0x2AD9): a request a client writes, or the response the machine
/// indicates. GATT Specification Supplement, "Fitness Machine Control Point", and the Fitness
/// Machine Service specification. BleuGATT types these op codes:
///
/// | op code | procedure | parameter |
/// |---|---|---|
/// | 0x00 | Request Control | none |
/// | 0x01 | Reset | none |
/// | 0x02 | Set Target Speed | uint16 (1/100 km/h) |
/// | 0x03 | Set Target Inclination | sint16 (1/10 %) |
/// | 0x04 | Set Target Resistance Level | uint8 (1/10, unitless) |
/// | 0x05 | Set Target Power | sint16 (W) |
/// | 0x06 | Set Target Heart Rate | uint8 (bpm) |
/// | 0x07 | Start or Resume | none |
/// | 0x08 | Stop or Pause | uint8: 1 stop, 2 pause |
/// | 0x11 | Set Indoor Bike Simulation Parameters | ``IndoorBikeSimulationParameters``, 6 bytes |
/// | 0x12 | Set Wheel Circumference | uint16 (1/10 mm) |
/// | 0x14 | Set Targeted Cadence | uint16 (1/2 per minute) |
/// | 0x80 | Response Code | Request Op Code uint8, Result Code uint8 |
///
/// The targeted energy, steps, strides, distance, time and heart-rate-zone op codes (0x09–0x10)
/// and Spin Down Control (0x13) are not typed, and are rejected like the reserved ones with
/// ``GATTCodecError/Kind/valueNotAllowed`` naming the Op Code.
public enum FitnessMachineControlPoint: GATTStructure, Hashable {
    /// The op codes typed here (the first byte).
    public enum OpCode: UInt8, Sendable, Hashable, CaseIterable {
        /// 0x00: Request Control.
        case requestControl = 0x00
        /// 0x01: Reset.
        case reset = 0x01
        /// 0x02: Set Target Speed.
        case setTargetSpeed = 0x02
        /// 0x03: Set Target Inclination.
        case setTargetInclination = 0x03
        /// 0x04: Set Target Resistance Level.
        case setTargetResistanceLevel = 0x04
        /// 0x05: Set Target Power.
        case setTargetPower = 0x05
        /// 0x06: Set Target Heart Rate.
        case setTargetHeartRate = 0x06
        /// 0x07: Start or Resume.
        case startOrResume = 0x07
        /// 0x08: Stop or Pause.
        case stopOrPause = 0x08
        /// 0x11: Set Indoor Bike Simulation Parameters.
        case setIndoorBikeSimulationParameters = 0x11
        /// 0x12: Set Wheel Circumference.
        case setWheelCircumference = 0x12
        /// 0x14: Set Targeted Cadence.
        case setTargetedCadence = 0x14
        /// 0x80: Response Code, what the machine indicates back.
        case responseCode = 0x80
    }

    /// Asks for control of the machine; the other requests need it.
    case requestControl
    /// Resets the machine's targets and session, and releases control.
    case reset
    /// A target speed, in 1/100 km/h.
    case setTargetSpeed(UInt16)
    /// A target inclination, in 1/10 %.
    case setTargetInclination(Int16)
    /// A target resistance level, in tenths (unitless).
    case setTargetResistanceLevel(UInt8)
    /// A target power, in watts.
    case setTargetPower(Int16)
    /// A target heart rate, in beats per minute.
    case setTargetHeartRate(UInt8)
    /// Starts or resumes the session.
    case startOrResume
    /// Stops or pauses the session.
    case stopOrPause(StopOrPause)
    /// Sets the simulated wind, grade and resistance coefficients.
    case setIndoorBikeSimulationParameters(IndoorBikeSimulationParameters)
    /// The wheel circumference, in 1/10 mm.
    case setWheelCircumference(UInt16)
    /// A target cadence, in 1/2 revolution per minute.
    case setTargetedCadence(UInt16)
    /// The machine's answer to a request (op code 0x80), indicated.
    case response(FitnessMachineControlPointResponse)

    /// This value's op code.
    public var opCode: OpCode {
        switch self {
        case .requestControl: .requestControl
        case .reset: .reset
        case .setTargetSpeed: .setTargetSpeed
        case .setTargetInclination: .setTargetInclination
        case .setTargetResistanceLevel: .setTargetResistanceLevel
        case .setTargetPower: .setTargetPower
        case .setTargetHeartRate: .setTargetHeartRate
        case .startOrResume: .startOrResume
        case .stopOrPause: .stopOrPause
        case .setIndoorBikeSimulationParameters: .setIndoorBikeSimulationParameters
        case .setWheelCircumference: .setWheelCircumference
        case .setTargetedCadence: .setTargetedCadence
        case .response: .responseCode
        }
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        switch try reader.decode(.enumeration(OpCode.self), field: "Op Code") {
        case .requestControl: self = .requestControl
        case .reset: self = .reset
        case .setTargetSpeed: self = .setTargetSpeed(try reader.decode(.uint16, field: "Target Speed"))
        case .setTargetInclination: self = .setTargetInclination(try reader.decode(.sint16, field: "Target Inclination"))
        case .setTargetResistanceLevel: self = .setTargetResistanceLevel(try reader.decode(.uint8, field: "Target Resistance Level"))
        case .setTargetPower: self = .setTargetPower(try reader.decode(.sint16, field: "Target Power"))
        case .setTargetHeartRate: self = .setTargetHeartRate(try reader.decode(.uint8, field: "Target Heart Rate"))
        case .startOrResume: self = .startOrResume
        case .stopOrPause: self = .stopOrPause(try reader.decode(.enumeration(StopOrPause.self), field: "Control Information"))
        case .setIndoorBikeSimulationParameters:
            self = .setIndoorBikeSimulationParameters(try IndoorBikeSimulationParameters(from: &reader))
        case .setWheelCircumference: self = .setWheelCircumference(try reader.decode(.uint16, field: "Wheel Circumference"))
        case .setTargetedCadence: self = .setTargetedCadence(try reader.decode(.uint16, field: "Targeted Cadence"))
        case .responseCode:
            self = .response(FitnessMachineControlPointResponse(
                requestOpCode: try reader.decode(.uint8, field: "Request Op Code"),
                result: try reader.decode(.enumeration(FitnessMachineControlPointResponse.Result.self), field: "Result Code")))
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(opCode.rawValue)
        switch self {
        case .requestControl, .reset, .startOrResume: break
        case .setTargetSpeed(let value), .setWheelCircumference(let value), .setTargetedCadence(let value):
            writer.writeInteger(value)
        case .setTargetInclination(let value), .setTargetPower(let value): writer.writeInteger(value)
        case .setTargetResistanceLevel(let value), .setTargetHeartRate(let value): writer.writeInteger(value)
        case .stopOrPause(let value): writer.writeInteger(value.rawValue)
        case .setIndoorBikeSimulationParameters(let parameters): try parameters.encode(to: &writer)
        case .response(let response):
            writer.writeInteger(response.requestOpCode)
            writer.writeInteger(response.result.rawValue)
        }
    }
}

/// The response a fitness machine indicates on its control point (op code 0x80): the request's
/// op code and the Result Code. (Only Spin Down Control, not typed here, adds a parameter.)
public struct FitnessMachineControlPointResponse: Sendable, Hashable {
    /// The Result Code. 0 and 6–255 are reserved and rejected.
    public enum Result: UInt8, Sendable, Hashable, CaseIterable {
        /// 0x01: Success.
        case success = 0x01
        /// 0x02: Op Code Not Supported.
        case opCodeNotSupported = 0x02
        /// 0x03: Invalid Parameter.
        case invalidParameter = 0x03
        /// 0x04: Operation Failed.
        case operationFailed = 0x04
        /// 0x05: Control Not Permitted (the client has not requested control, or lost it).
        case controlNotPermitted = 0x05
    }

    /// The op code of the request answered, as sent: it may be one the machine does not know.
    public var requestOpCode: UInt8
    /// How the request went.
    public var result: Result

    /// A response.
    public init(requestOpCode: UInt8, result: Result) {
        self.requestOpCode = requestOpCode
        self.result = result
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
