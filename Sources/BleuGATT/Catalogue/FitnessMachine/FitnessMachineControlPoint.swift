/// Fitness Machine Control Point (0x2AD9): a request a client writes, or the response the machine
/// indicates. GATT Specification Supplement, "Fitness Machine Control Point", and the Fitness
/// Machine Service specification. BleuGATT types these op codes:
///
/// | op code | procedure | parameter |
/// |---|---|---|
/// | 0x00 | Request Control | none |
/// | 0x01 | Reset | none |
/// | 0x02–0x06, 0x11, 0x12, 0x14 | Set Target Speed, Inclination, Resistance Level, Power, Heart Rate; Set Indoor Bike Simulation Parameters; Set Wheel Circumference; Set Targeted Cadence | a ``FitnessMachineTarget`` |
/// | 0x07 | Start or Resume | none |
/// | 0x08 | Stop or Pause | uint8: 1 stop, 2 pause |
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
    /// Sets a target: speed, inclination, resistance level, power, heart rate, the indoor bike
    /// simulation, the wheel circumference or the cadence (op codes 0x02–0x06, 0x11, 0x12, 0x14).
    case setTarget(FitnessMachineTarget)
    /// Starts or resumes the session.
    case startOrResume
    /// Stops or pauses the session.
    case stopOrPause(StopOrPause)
    /// The machine's answer to a request (op code 0x80), indicated.
    case response(FitnessMachineControlPointResponse)

    /// This value's op code.
    public var opCode: OpCode {
        switch self {
        case .requestControl: .requestControl
        case .reset: .reset
        case .setTarget(let target): OpCode(setting: target.kind)
        case .startOrResume: .startOrResume
        case .stopOrPause: .stopOrPause
        case .response: .responseCode
        }
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        switch try reader.decode(.enumeration(OpCode.self), field: "Op Code") {
        case .requestControl: self = .requestControl
        case .reset: self = .reset
        case .setTargetSpeed: self = .setTarget(try FitnessMachineTarget(.speed, from: &reader))
        case .setTargetInclination: self = .setTarget(try FitnessMachineTarget(.inclination, from: &reader))
        case .setTargetResistanceLevel: self = .setTarget(try FitnessMachineTarget(.resistanceLevel, from: &reader))
        case .setTargetPower: self = .setTarget(try FitnessMachineTarget(.power, from: &reader))
        case .setTargetHeartRate: self = .setTarget(try FitnessMachineTarget(.heartRate, from: &reader))
        case .startOrResume: self = .startOrResume
        case .stopOrPause: self = .stopOrPause(try reader.decode(.enumeration(StopOrPause.self), field: "Control Information"))
        case .setIndoorBikeSimulationParameters: self = .setTarget(try FitnessMachineTarget(.indoorBikeSimulation, from: &reader))
        case .setWheelCircumference: self = .setTarget(try FitnessMachineTarget(.wheelCircumference, from: &reader))
        case .setTargetedCadence: self = .setTarget(try FitnessMachineTarget(.cadence, from: &reader))
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
        case .setTarget(let target): try target.encode(to: &writer)
        case .stopOrPause(let value): writer.writeInteger(value.rawValue)
        case .response(let response):
            writer.writeInteger(response.requestOpCode)
            writer.writeInteger(response.result.rawValue)
        }
    }
}

extension FitnessMachineControlPoint.OpCode {
    /// The op code that sets a `kind` target.
    init(setting kind: FitnessMachineTarget.Kind) {
        switch kind {
        case .speed: self = .setTargetSpeed
        case .inclination: self = .setTargetInclination
        case .resistanceLevel: self = .setTargetResistanceLevel
        case .power: self = .setTargetPower
        case .heartRate: self = .setTargetHeartRate
        case .indoorBikeSimulation: self = .setIndoorBikeSimulationParameters
        case .wheelCircumference: self = .setWheelCircumference
        case .cadence: self = .setTargetedCadence
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
