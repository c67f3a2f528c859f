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
/// | 0x05–0x09, 0x12, 0x13, 0x15 | Target Speed, Incline, Resistance Level, Power, Heart Rate Changed; Indoor Bike Simulation Parameters Changed; Wheel Circumference Changed; Targeted Cadence Changed | a ``FitnessMachineTarget`` |
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
    /// A target changed, to this value (op codes 0x05–0x09, 0x12, 0x13, 0x15).
    case targetChanged(FitnessMachineTarget)
    /// The client that had control lost it.
    case controlPermissionLost

    /// This value's op code.
    public var opCode: OpCode {
        switch self {
        case .reset: .reset
        case .stoppedOrPausedByUser: .stoppedOrPausedByUser
        case .stoppedBySafetyKey: .stoppedBySafetyKey
        case .startedOrResumedByUser: .startedOrResumedByUser
        case .targetChanged(let target): OpCode(changing: target.kind)
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
        case .targetSpeedChanged: self = .targetChanged(try FitnessMachineTarget(.speed, from: &reader))
        case .targetInclineChanged: self = .targetChanged(try FitnessMachineTarget(.inclination, from: &reader))
        case .targetResistanceLevelChanged: self = .targetChanged(try FitnessMachineTarget(.resistanceLevel, from: &reader))
        case .targetPowerChanged: self = .targetChanged(try FitnessMachineTarget(.power, from: &reader))
        case .targetHeartRateChanged: self = .targetChanged(try FitnessMachineTarget(.heartRate, from: &reader))
        case .indoorBikeSimulationParametersChanged:
            self = .targetChanged(try FitnessMachineTarget(.indoorBikeSimulation, from: &reader))
        case .wheelCircumferenceChanged: self = .targetChanged(try FitnessMachineTarget(.wheelCircumference, from: &reader))
        case .targetedCadenceChanged: self = .targetChanged(try FitnessMachineTarget(.cadence, from: &reader))
        case .controlPermissionLost: self = .controlPermissionLost
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(opCode.rawValue)
        switch self {
        case .reset, .stoppedBySafetyKey, .startedOrResumedByUser, .controlPermissionLost: break
        case .stoppedOrPausedByUser(let value): writer.writeInteger(value.rawValue)
        case .targetChanged(let target): try target.encode(to: &writer)
        }
    }
}

extension FitnessMachineStatus.OpCode {
    /// The op code that reports a `kind` target changed.
    init(changing kind: FitnessMachineTarget.Kind) {
        switch kind {
        case .speed: self = .targetSpeedChanged
        case .inclination: self = .targetInclineChanged
        case .resistanceLevel: self = .targetResistanceLevelChanged
        case .power: self = .targetPowerChanged
        case .heartRate: self = .targetHeartRateChanged
        case .indoorBikeSimulation: self = .indoorBikeSimulationParametersChanged
        case .wheelCircumference: self = .wheelCircumferenceChanged
        case .cadence: self = .targetedCadenceChanged
        }
    }
}
