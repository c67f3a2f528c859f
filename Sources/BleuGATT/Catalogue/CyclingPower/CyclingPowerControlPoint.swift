/// Cycling Power Control Point (0x2A66): a request a client writes, or the response the sensor
/// indicates. GATT Specification Supplement, "Cycling Power Control Point". BleuGATT types the
/// basic procedures:
///
/// | op code | request | parameter |
/// |---|---|---|
/// | 0x01 | Set Cumulative Value | uint32, the Cumulative Wheel Revolutions |
/// | 0x02 | Update Sensor Location | uint8, a ``SensorLocation`` |
/// | 0x03 | Request Supported Sensor Locations | none |
/// | 0x04 | Set Crank Length | uint16, 1/2 mm |
/// | 0x20 | Response Code | Request Op Code uint8, Response Value uint8, Response Parameter |
///
/// The other op codes the service defines (0x05–0x10: crank, chain and span lengths, offset
/// compensation, content masking, sampling rate, calibration date), and the reserved ones, are
/// rejected with ``GATTCodecError/Kind/valueNotAllowed`` naming the Op Code, as are responses
/// with a parameter other than the supported sensor locations.
public enum CyclingPowerControlPoint: GATTStructure, Hashable {
    /// The op codes typed here (the first byte).
    public enum OpCode: UInt8, Sendable, Hashable, CaseIterable {
        /// 0x01: Set Cumulative Value.
        case setCumulativeValue = 0x01
        /// 0x02: Update Sensor Location.
        case updateSensorLocation = 0x02
        /// 0x03: Request Supported Sensor Locations.
        case requestSupportedSensorLocations = 0x03
        /// 0x04: Set Crank Length.
        case setCrankLength = 0x04
        /// 0x20: Response Code, what the sensor indicates back.
        case responseCode = 0x20
    }

    /// Sets the Cumulative Wheel Revolutions.
    case setCumulativeValue(UInt32)
    /// Moves the sensor to another location it supports.
    case updateSensorLocation(SensorLocation)
    /// Asks which locations the sensor supports; the response lists them.
    case requestSupportedSensorLocations
    /// Sets the crank length, in 1/2 mm (345 for 172.5 mm).
    case setCrankLength(UInt16)
    /// The sensor's answer to a request (op code 0x20), indicated.
    case response(SensorControlPointResponse)

    /// This value's op code.
    public var opCode: OpCode {
        switch self {
        case .setCumulativeValue: .setCumulativeValue
        case .updateSensorLocation: .updateSensorLocation
        case .requestSupportedSensorLocations: .requestSupportedSensorLocations
        case .setCrankLength: .setCrankLength
        case .response: .responseCode
        }
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        switch try reader.decode(.enumeration(OpCode.self), field: "Op Code") {
        case .setCumulativeValue:
            self = .setCumulativeValue(try reader.decode(.uint32, field: "Cumulative Value"))
        case .updateSensorLocation:
            self = .updateSensorLocation(try reader.decode(.enumeration(SensorLocation.self), field: "Sensor Location Value"))
        case .requestSupportedSensorLocations:
            self = .requestSupportedSensorLocations
        case .setCrankLength:
            self = .setCrankLength(try reader.decode(.uint16, field: "Crank Length Value"))
        case .responseCode:
            self = .response(try SensorControlPointResponse(from: &reader, listing: OpCode.requestSupportedSensorLocations.rawValue))
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(opCode.rawValue)
        switch self {
        case .setCumulativeValue(let value): writer.writeInteger(value)
        case .updateSensorLocation(let location): writer.writeInteger(location.rawValue)
        case .requestSupportedSensorLocations: break
        case .setCrankLength(let length): writer.writeInteger(length)
        case .response(let response):
            try response.encode(to: &writer, listing: OpCode.requestSupportedSensorLocations.rawValue)
        }
    }
}
