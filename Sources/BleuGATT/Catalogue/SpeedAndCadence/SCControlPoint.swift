/// SC Control Point (0x2A55) of the Cycling Speed and Cadence and Running Speed and Cadence
/// services: a request a client writes, or the response the sensor indicates. GATT Specification
/// Supplement, "SC Control Point":
///
/// | field | size | present |
/// |---|---|---|
/// | Op Code | uint8 | always |
/// | Parameter | by op code: uint32 for Set Cumulative Value, uint8 for Update Sensor Location | per op code |
/// | Request Op Code | uint8 | in a response (op code 0x10) |
/// | Response Value | uint8 | in a response |
/// | Response Parameter | uint8 each, the supported sensor locations, to the end | in a successful response to Request Supported Sensor Locations |
///
/// Reserved op codes (0, 5–15, 17–255) are rejected with ``GATTCodecError/Kind/valueNotAllowed``
/// naming the Op Code. (The service specifications ask a sensor to answer an op code it does not
/// support with an indicated ``SensorControlPointResponse/Result/opCodeNotSupported``; a server
/// that must do so for reserved values handles the raw bytes.)
public enum SCControlPoint: GATTStructure, Hashable {
    /// The op codes (the first byte).
    public enum OpCode: UInt8, Sendable, Hashable, CaseIterable {
        /// 0x01: Set Cumulative Value.
        case setCumulativeValue = 0x01
        /// 0x02: Start Sensor Calibration (Running Speed and Cadence).
        case startSensorCalibration = 0x02
        /// 0x03: Update Sensor Location.
        case updateSensorLocation = 0x03
        /// 0x04: Request Supported Sensor Locations.
        case requestSupportedSensorLocations = 0x04
        /// 0x10: Response Code, what the sensor indicates back.
        case responseCode = 0x10
    }

    /// Sets the cumulative value: the Cumulative Wheel Revolutions of a CSC sensor, or the Total
    /// Distance of an RSC sensor (in 1/10 m), as a `uint32`.
    case setCumulativeValue(UInt32)
    /// Starts the sensor's calibration (RSC sensors that support it).
    case startSensorCalibration
    /// Moves the sensor to another location, a ``SensorLocation`` the sensor supports.
    case updateSensorLocation(SensorLocation)
    /// Asks which locations the sensor supports; the response lists them.
    case requestSupportedSensorLocations
    /// The sensor's answer to a request (op code 0x10), indicated.
    case response(SensorControlPointResponse)

    /// This value's op code.
    public var opCode: OpCode {
        switch self {
        case .setCumulativeValue: .setCumulativeValue
        case .startSensorCalibration: .startSensorCalibration
        case .updateSensorLocation: .updateSensorLocation
        case .requestSupportedSensorLocations: .requestSupportedSensorLocations
        case .response: .responseCode
        }
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        switch try reader.decode(.enumeration(OpCode.self), field: "Op Code") {
        case .setCumulativeValue:
            self = .setCumulativeValue(try reader.decode(.uint32, field: "Cumulative Value"))
        case .startSensorCalibration:
            self = .startSensorCalibration
        case .updateSensorLocation:
            self = .updateSensorLocation(try reader.decode(.enumeration(SensorLocation.self), field: "Sensor Location Value"))
        case .requestSupportedSensorLocations:
            self = .requestSupportedSensorLocations
        case .responseCode:
            self = .response(try SensorControlPointResponse(from: &reader, listing: OpCode.requestSupportedSensorLocations.rawValue))
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(opCode.rawValue)
        switch self {
        case .setCumulativeValue(let value): writer.writeInteger(value)
        case .updateSensorLocation(let location): writer.writeInteger(location.rawValue)
        case .startSensorCalibration, .requestSupportedSensorLocations: break
        case .response(let response):
            try response.encode(to: &writer, listing: OpCode.requestSupportedSensorLocations.rawValue)
        }
    }
}

/// The response a sensor indicates on its control point — the SC Control Point (op code 0x10)
/// or the Cycling Power Control Point (op code 0x20): the request's op code, the result, and for
/// a successful Request Supported Sensor Locations the locations. GATT Specification Supplement,
/// "SC Control Point" and "Cycling Power Control Point".
public struct SensorControlPointResponse: Sendable, Hashable {
    /// The Response Value: how the request went. 0 and 5–255 are reserved and rejected.
    public enum Result: UInt8, Sendable, Hashable, CaseIterable {
        /// 0x01: Success.
        case success = 0x01
        /// 0x02: Op Code Not Supported.
        case opCodeNotSupported = 0x02
        /// 0x03: Invalid Parameter.
        case invalidParameter = 0x03
        /// 0x04: Operation Failed.
        case operationFailed = 0x04
    }

    /// The op code of the request answered, as sent: it may be one the sensor does not know.
    public var requestOpCode: UInt8
    /// How the request went.
    public var result: Result
    /// The locations the sensor supports, in a successful response to Request Supported Sensor
    /// Locations; empty otherwise.
    public var supportedSensorLocations: [SensorLocation]

    /// A response.
    public init(requestOpCode: UInt8, result: Result, supportedSensorLocations: [SensorLocation] = []) {
        self.requestOpCode = requestOpCode
        self.result = result
        self.supportedSensorLocations = supportedSensorLocations
    }

    /// Reads the fields after the response op code; the locations follow only a successful
    /// response to `locationsRequest`, the control point's Request Supported Sensor Locations.
    init(from reader: inout GATTReader, listing locationsRequest: UInt8) throws(GATTCodecError) {
        requestOpCode = try reader.decode(.uint8, field: "Request Op Code")
        result = try reader.decode(.enumeration(Result.self), field: "Response Value")
        supportedSensorLocations = []
        guard requestOpCode == locationsRequest, result == .success else { return }
        while !reader.isAtEnd {
            supportedSensorLocations.append(try reader.decode(.enumeration(SensorLocation.self), field: "Response Parameter"))
        }
    }

    /// Writes the fields after the response op code. Locations in any other response than a
    /// successful one to `locationsRequest` are ``GATTCodecError/Kind/valueNotAllowed``.
    func encode(to writer: inout GATTWriter, listing locationsRequest: UInt8) throws(GATTCodecError) {
        writer.writeInteger(requestOpCode)
        writer.writeInteger(result.rawValue)
        guard requestOpCode == locationsRequest, result == .success else {
            guard supportedSensorLocations.isEmpty else {
                throw GATTCodecError.valueNotAllowed(expected: "no locations but in a successful response to op code \(locationsRequest)",
                                                     found: "\(supportedSensorLocations.count) locations").within("Response Parameter")
            }
            return
        }
        for location in supportedSensorLocations { writer.writeInteger(location.rawValue) }
    }
}
