/// Fitness Machine Status (0x2ADA): what changed on the machine, notified. GATT Specification
/// Supplement, "Fitness Machine Status", and the Fitness Machine Service specification. BleuGATT
/// types these op codes:
///
/// | op code | status | parameter |
/// |---|---|---|
/// | 0x01 | Reset | none |
/// | 0x02 | Fitness Machine Stopped or Paused by the User | uint8: 1 stop, 2 pause |
/// | 0x03 | Fitness Machine Stopped by Safety Key | none |
/// | 0x04 | Fitness Machine Started or Resumed by the User | none |
/// | 0x05 | Target Speed Changed | uint16 (1/100 km/h) |
/// | 0x06 | Target Incline Changed | sint16 (1/10 %) |
/// | 0x07 | Target Resistance Level Changed | uint8 (1/10, unitless) |
/// | 0x08 | Target Power Changed | sint16 (W) |
/// | 0x09 | Target Heart Rate Changed | uint8 (bpm) |
/// | 0x12 | Indoor Bike Simulation Parameters Changed | ``IndoorBikeSimulationParameters`` |
/// | 0x13 | Wheel Circumference Changed | uint16 (1/10 mm) |
/// | 0x15 | Targeted Cadence Changed | uint16 (1/2 per minute) |
/// | 0xFF | Control Permission Lost | none |
///
/// The targeted energy, steps, strides, distance, time and zone statuses (0x0A–0x11) and Spin Down
/// Status (0x14) are not typed, and are rejected like the reserved op codes with
/// ``GATTCodecError/Kind/valueNotAllowed`` naming the Op Code.
public enum FitnessMachineStatus: GATTStructure, Hashable {
    /// The op codes typed here (the first byte).
    public enum OpCode: UInt8, Sendable, Hashable, CaseIterable {
        /// 0x01: Reset.
        case reset = 0x01
        /// 0x02: Fitness Machine Stopped or Paused by the User.
        case stoppedOrPausedByUser = 0x02
        /// 0x03: Fitness Machine Stopped by Safety Key.
        case stoppedBySafetyKey = 0x03
        /// 0x04: Fitness Machine Started or Resumed by the User.
        case startedOrResumedByUser = 0x04
        /// 0x05: Target Speed Changed.
        case targetSpeedChanged = 0x05
        /// 0x06: Target Incline Changed.
        case targetInclineChanged = 0x06
        /// 0x07: Target Resistance Level Changed.
        case targetResistanceLevelChanged = 0x07
        /// 0x08: Target Power Changed.
        case targetPowerChanged = 0x08
        /// 0x09: Target Heart Rate Changed.
        case targetHeartRateChanged = 0x09
        /// 0x12: Indoor Bike Simulation Parameters Changed.
        case indoorBikeSimulationParametersChanged = 0x12
        /// 0x13: Wheel Circumference Changed.
        case wheelCircumferenceChanged = 0x13
        /// 0x15: Targeted Cadence Changed.
        case targetedCadenceChanged = 0x15
        /// 0xFF: Control Permission Lost.
        case controlPermissionLost = 0xFF
    }

    /// The machine was reset.
    case reset
    /// The user stopped or paused the session on the machine.
    case stoppedOrPausedByUser(StopOrPause)
    /// The safety key stopped the machine.
    case stoppedBySafetyKey
    /// The user started or resumed the session on the machine.
    case startedOrResumedByUser
    /// The new target speed, in 1/100 km/h.
    case targetSpeedChanged(UInt16)
    /// The new target inclination, in 1/10 %.
    case targetInclineChanged(Int16)
    /// The new target resistance level, in tenths.
    case targetResistanceLevelChanged(UInt8)
    /// The new target power, in watts.
    case targetPowerChanged(Int16)
    /// The new target heart rate, in beats per minute.
    case targetHeartRateChanged(UInt8)
    /// The new simulation parameters.
    case indoorBikeSimulationParametersChanged(IndoorBikeSimulationParameters)
    /// The new wheel circumference, in 1/10 mm.
    case wheelCircumferenceChanged(UInt16)
    /// The new target cadence, in 1/2 revolution per minute.
    case targetedCadenceChanged(UInt16)
    /// The client that had control lost it.
    case controlPermissionLost

    /// This value's op code.
    public var opCode: OpCode {
        switch self {
        case .reset: .reset
        case .stoppedOrPausedByUser: .stoppedOrPausedByUser
        case .stoppedBySafetyKey: .stoppedBySafetyKey
        case .startedOrResumedByUser: .startedOrResumedByUser
        case .targetSpeedChanged: .targetSpeedChanged
        case .targetInclineChanged: .targetInclineChanged
        case .targetResistanceLevelChanged: .targetResistanceLevelChanged
        case .targetPowerChanged: .targetPowerChanged
        case .targetHeartRateChanged: .targetHeartRateChanged
        case .indoorBikeSimulationParametersChanged: .indoorBikeSimulationParametersChanged
        case .wheelCircumferenceChanged: .wheelCircumferenceChanged
        case .targetedCadenceChanged: .targetedCadenceChanged
        case .controlPermissionLost: .controlPermissionLost
        }
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        switch try reader.decode(.enumeration(OpCode.self), field: "Op Code") {
        case .reset: self = .reset
        case .stoppedOrPausedByUser:
            self = .stoppedOrPausedByUser(try reader.decode(.enumeration(StopOrPause.self), field: "Control Information"))
        case .stoppedBySafetyKey: self = .stoppedBySafetyKey
        case .startedOrResumedByUser: self = .startedOrResumedByUser
        case .targetSpeedChanged: self = .targetSpeedChanged(try reader.decode(.uint16, field: "New Target Speed"))
        case .targetInclineChanged: self = .targetInclineChanged(try reader.decode(.sint16, field: "New Target Incline"))
        case .targetResistanceLevelChanged:
            self = .targetResistanceLevelChanged(try reader.decode(.uint8, field: "New Target Resistance Level"))
        case .targetPowerChanged: self = .targetPowerChanged(try reader.decode(.sint16, field: "New Target Power"))
        case .targetHeartRateChanged: self = .targetHeartRateChanged(try reader.decode(.uint8, field: "New Target Heart Rate"))
        case .indoorBikeSimulationParametersChanged:
            self = .indoorBikeSimulationParametersChanged(try IndoorBikeSimulationParameters(from: &reader))
        case .wheelCircumferenceChanged:
            self = .wheelCircumferenceChanged(try reader.decode(.uint16, field: "New Wheel Circumference"))
        case .targetedCadenceChanged: self = .targetedCadenceChanged(try reader.decode(.uint16, field: "New Targeted Cadence"))
        case .controlPermissionLost: self = .controlPermissionLost
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(opCode.rawValue)
        switch self {
        case .reset, .stoppedBySafetyKey, .startedOrResumedByUser, .controlPermissionLost: break
        case .stoppedOrPausedByUser(let value): writer.writeInteger(value.rawValue)
        case .targetSpeedChanged(let value), .wheelCircumferenceChanged(let value), .targetedCadenceChanged(let value):
            writer.writeInteger(value)
        case .targetInclineChanged(let value), .targetPowerChanged(let value): writer.writeInteger(value)
        case .targetResistanceLevelChanged(let value), .targetHeartRateChanged(let value): writer.writeInteger(value)
        case .indoorBikeSimulationParametersChanged(let parameters): try parameters.encode(to: &writer)
        }
    }
}
