import BleuCore
import Foundation
import Testing
@testable import BleuGATT

extension CodecProperty {
    /// The sports and fitness characteristics, part of ``all``: ``PropertyTests`` checks them as it
    /// checks the others. Control point responses listing sensor locations are left to the
    /// hand-built tests: a prefix of the list is itself a valid list.
    static let fitness: [CodecProperty] = [
        CodecProperty("CSC Measurement", CSCMeasurement.codec, .exact) { random in
            CSCMeasurement(wheelRevolutions: coin(&random) ? randomWheel(&random) : nil,
                           crankRevolutions: coin(&random) ? randomCrank(&random) : nil)
        },
        CodecProperty("CSC Feature", CSCFeature.codec, .exact) { CSCFeature(rawValue: .random(in: 0...7, using: &$0)) },
        CodecProperty("Sensor Location", .enumeration(SensorLocation.self), .exact) { SensorLocation.allCases.randomElement(using: &$0) ?? .other },
        CodecProperty("SC Control Point", SCControlPoint.codec, .exact) { randomSCControlPoint(&$0) },
        CodecProperty("RSC Measurement", RSCMeasurement.codec, .exact) { randomRSCMeasurement(&$0) },
        CodecProperty("RSC Feature", RSCFeature.codec, .exact) { RSCFeature(rawValue: .random(in: 0...0x1F, using: &$0)) },
        CodecProperty("Cycling Power Measurement", CyclingPowerMeasurement.codec, .exact) { randomPowerMeasurement(&$0) },
        CodecProperty("Cycling Power Feature", CyclingPowerFeature.codec, .exact) { CyclingPowerFeature(rawValue: .random(in: 0...0x3F_FFFF, using: &$0)) },
        CodecProperty("Cycling Power Vector", CyclingPowerVector.codec, .list(header: vectorHeaderLength, item: 2)) { randomVector(&$0) },
        CodecProperty("Cycling Power Control Point", CyclingPowerControlPoint.codec, .exact) { randomPowerControlPoint(&$0) },
        CodecProperty("Indoor Bike Data", IndoorBikeData.codec, .exact) { randomIndoorBikeData(&$0) },
        CodecProperty("Fitness Machine Feature", FitnessMachineFeature.codec, .exact) { random in
            FitnessMachineFeature(machineFeatures: FitnessMachineFeatures(rawValue: .random(in: 0...0x1_FFFF, using: &random)),
                                  targetSettingFeatures: TargetSettingFeatures(rawValue: .random(in: 0...0x1_FFFF, using: &random)))
        },
        CodecProperty("Fitness Machine Control Point", FitnessMachineControlPoint.codec, .exact) { randomMachineControlPoint(&$0) },
        CodecProperty("Fitness Machine Status", FitnessMachineStatus.codec, .exact) { randomMachineStatus(&$0) },
    ]
}

private func coin(_ random: inout SeededRandomNumberGenerator) -> Bool { Bool.random(using: &random) }

private func word(_ random: inout SeededRandomNumberGenerator) -> UInt16 { .random(in: .min ... .max, using: &random) }

private func signed(_ random: inout SeededRandomNumberGenerator) -> Int16 { .random(in: .min ... .max, using: &random) }

private func byte(_ random: inout SeededRandomNumberGenerator) -> UInt8 { .random(in: .min ... .max, using: &random) }

private func randomWheel(_ random: inout SeededRandomNumberGenerator) -> WheelRevolutionData {
    WheelRevolutionData(cumulativeRevolutions: .random(in: .min ... .max, using: &random), lastEventTime: word(&random))
}

private func randomCrank(_ random: inout SeededRandomNumberGenerator) -> CrankRevolutionData {
    CrankRevolutionData(cumulativeRevolutions: word(&random), lastEventTime: word(&random))
}

private func randomLocation(_ random: inout SeededRandomNumberGenerator) -> SensorLocation {
    SensorLocation.allCases.randomElement(using: &random) ?? .other
}

private func randomResult(_ random: inout SeededRandomNumberGenerator) -> SensorControlPointResponse.Result {
    SensorControlPointResponse.Result.allCases.randomElement(using: &random) ?? .success
}

private func randomSCControlPoint(_ random: inout SeededRandomNumberGenerator) -> SCControlPoint {
    switch Int.random(in: 0...4, using: &random) {
    case 0: return .setCumulativeValue(.random(in: .min ... .max, using: &random))
    case 1: return .startSensorCalibration
    case 2: return .updateSensorLocation(randomLocation(&random))
    case 3: return .requestSupportedSensorLocations
    default: return .response(SensorControlPointResponse(requestOpCode: .random(in: 0...3, using: &random), result: randomResult(&random)))
    }
}

private func randomPowerControlPoint(_ random: inout SeededRandomNumberGenerator) -> CyclingPowerControlPoint {
    switch Int.random(in: 0...4, using: &random) {
    case 0: return .setCumulativeValue(.random(in: .min ... .max, using: &random))
    case 1: return .updateSensorLocation(randomLocation(&random))
    case 2: return .requestSupportedSensorLocations
    case 3: return .setCrankLength(word(&random))
    default: return .response(SensorControlPointResponse(requestOpCode: .random(in: 4...255, using: &random), result: randomResult(&random)))
    }
}

private func randomRSCMeasurement(_ random: inout SeededRandomNumberGenerator) -> RSCMeasurement {
    let stride: UInt16? = coin(&random) ? word(&random) : nil
    let distance: UInt32? = coin(&random) ? .random(in: .min ... .max, using: &random) : nil
    return RSCMeasurement(instantaneousSpeed: word(&random), instantaneousCadence: byte(&random), instantaneousStrideLength: stride,
                          totalDistance: distance, motion: coin(&random) ? .running : .walking)
}

private func randomPowerMeasurement(_ random: inout SeededRandomNumberGenerator) -> CyclingPowerMeasurement {
    var value = CyclingPowerMeasurement(instantaneousPower: signed(&random), offsetCompensationIndicator: coin(&random))
    if coin(&random) { value.pedalPowerBalance = .init(value: byte(&random), reference: coin(&random) ? .left : .unknown) }
    if coin(&random) { value.accumulatedTorque = .init(value: word(&random), source: coin(&random) ? .crank : .wheel) }
    if coin(&random) { value.wheelRevolutions = randomWheel(&random) }
    if coin(&random) { value.crankRevolutions = randomCrank(&random) }
    if coin(&random) { value.extremeForceMagnitudes = .init(maximum: signed(&random), minimum: signed(&random)) }
    if coin(&random) { value.extremeTorqueMagnitudes = .init(maximum: signed(&random), minimum: signed(&random)) }
    if coin(&random) {
        value.extremeAngles = ExtremeAngles(maximum: .random(in: 0...0xFFF, using: &random), minimum: .random(in: 0...0xFFF, using: &random))
    }
    if coin(&random) { value.topDeadSpotAngle = word(&random) }
    if coin(&random) { value.bottomDeadSpotAngle = word(&random) }
    if coin(&random) { value.accumulatedEnergy = word(&random) }
    return value
}

private func randomVector(_ random: inout SeededRandomNumberGenerator) -> CyclingPowerVector {
    var value = CyclingPowerVector(direction: CyclingPowerVector.MeasurementDirection.allCases.randomElement(using: &random) ?? .unknown)
    if coin(&random) { value.crankRevolutions = randomCrank(&random) }
    if coin(&random) { value.firstCrankMeasurementAngle = word(&random) }
    let magnitudes = (0..<Int.random(in: 1...8, using: &random)).map { _ in signed(&random) }
    switch Int.random(in: 0...2, using: &random) {
    case 0: value.magnitudes = .force(magnitudes)
    case 1: value.magnitudes = .torque(magnitudes)
    default: break
    }
    return value
}

/// The Cycling Power Vector's bytes before its magnitude array: flags, crank data, first angle.
@Sendable private func vectorHeaderLength(_ data: Data) -> Int {
    guard let flags = data.first else { return 0 }
    return 1 + (flags & 0x01 != 0 ? 4 : 0) + (flags & 0x02 != 0 ? 2 : 0)
}

private func randomIndoorBikeData(_ random: inout SeededRandomNumberGenerator) -> IndoorBikeData {
    var value = IndoorBikeData()
    if coin(&random) { value.instantaneousSpeed = word(&random) }
    if coin(&random) { value.averageSpeed = word(&random) }
    if coin(&random) { value.instantaneousCadence = word(&random) }
    if coin(&random) { value.averageCadence = word(&random) }
    if coin(&random) { value.totalDistance = .random(in: UInt24Codec.range, using: &random) }
    if coin(&random) { value.resistanceLevel = signed(&random) }
    if coin(&random) { value.instantaneousPower = signed(&random) }
    if coin(&random) { value.averagePower = signed(&random) }
    if coin(&random) { value.expendedEnergy = .init(total: word(&random), perHour: word(&random), perMinute: byte(&random)) }
    if coin(&random) { value.heartRate = byte(&random) }
    if coin(&random) { value.metabolicEquivalent = byte(&random) }
    if coin(&random) { value.elapsedTime = word(&random) }
    if coin(&random) { value.remainingTime = word(&random) }
    return value
}

private func randomTarget(_ random: inout SeededRandomNumberGenerator) -> FitnessMachineTarget {
    switch FitnessMachineTarget.Kind.allCases.randomElement(using: &random) ?? .power {
    case .speed: return .speed(word(&random))
    case .inclination: return .inclination(signed(&random))
    case .resistanceLevel: return .resistanceLevel(byte(&random))
    case .power: return .power(signed(&random))
    case .heartRate: return .heartRate(byte(&random))
    case .indoorBikeSimulation:
        return .indoorBikeSimulation(IndoorBikeSimulationParameters(windSpeed: signed(&random), grade: signed(&random),
                                                                    rollingResistanceCoefficient: byte(&random),
                                                                    windResistanceCoefficient: byte(&random)))
    case .wheelCircumference: return .wheelCircumference(word(&random))
    case .cadence: return .cadence(word(&random))
    }
}

private func randomMachineControlPoint(_ random: inout SeededRandomNumberGenerator) -> FitnessMachineControlPoint {
    switch Int.random(in: 0...5, using: &random) {
    case 0: return .requestControl
    case 1: return .reset
    case 2: return .startOrResume
    case 3: return .stopOrPause(coin(&random) ? .stop : .pause)
    case 4:
        let result = FitnessMachineControlPointResponse.Result.allCases.randomElement(using: &random) ?? .success
        return .response(FitnessMachineControlPointResponse(requestOpCode: byte(&random), result: result))
    default: return .setTarget(randomTarget(&random))
    }
}

private func randomMachineStatus(_ random: inout SeededRandomNumberGenerator) -> FitnessMachineStatus {
    switch Int.random(in: 0...5, using: &random) {
    case 0: return .reset
    case 1: return .stoppedBySafetyKey
    case 2: return .startedOrResumedByUser
    case 3: return .stoppedOrPausedByUser(coin(&random) ? .stop : .pause)
    case 4: return .controlPermissionLost
    default: return .targetChanged(randomTarget(&random))
    }
}
