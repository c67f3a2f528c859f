/// Record Access Control Point (0x2A52): a central's request for a device's stored records, and
/// the device's answers, indicated on the same characteristic (GATT Specification Supplement,
/// "Record Access Control Point"; Glucose Service specification, "Record Access Control Point
/// Procedures"). Each value is an Op Code (`uint8`), an Operator (`uint8`) and an operand:
///
/// | op code | value | operator | operand |
/// |---|---|---|---|
/// | 0x01 | ``reportStoredRecords(_:)`` | a ``RecordSelection`` | its filter |
/// | 0x02 | ``deleteStoredRecords(_:)`` | a ``RecordSelection`` | its filter |
/// | 0x03 | ``abortOperation`` | Null (0x00) | none |
/// | 0x04 | ``reportNumberOfStoredRecords(_:)`` | a ``RecordSelection`` | its filter |
/// | 0x05 | ``numberOfStoredRecords(_:)`` | Null (0x00) | uint16, the count |
/// | 0x06 | ``responseCode(request:response:)`` | Null (0x00) | the request's op code (uint8), a ``RecordAccessResponseCode`` (uint8) |
///
/// Only the basic procedures are typed: the filter type is always 0x01, the sequence number
/// (`uint16`). Other op codes, operators, filter types, and a non-Null operator where Null is
/// due, are refused (``GATTCodecError/Kind/valueNotAllowed``) — so a server hosting this
/// characteristic with a typed write handler answers them with an ATT error, where the
/// specification has it indicate a Response Code (Op Code Not Supported, Invalid Operator,
/// Operand Not Supported…); a server that must do that reads the raw bytes.
public enum RecordAccessControlPoint: GATTStructure, Hashable {
    /// Report Stored Records (0x01): send the records selected, then a Response Code.
    case reportStoredRecords(RecordSelection)
    /// Delete Stored Records (0x02): delete the records selected, then send a Response Code.
    case deleteStoredRecords(RecordSelection)
    /// Abort Operation (0x03): stop the procedure under way.
    case abortOperation
    /// Report Number of Stored Records (0x04): answer with ``numberOfStoredRecords(_:)``.
    case reportNumberOfStoredRecords(RecordSelection)
    /// Number of Stored Records Response (0x05): how many records the selection holds.
    case numberOfStoredRecords(UInt16)
    /// Response Code (0x06): how the request with op code `request` ended.
    case responseCode(request: UInt8, response: RecordAccessResponseCode)

    /// The op codes (GSS "Record Access Control Point", Op Code field).
    public enum OpCode: UInt8, Sendable, Hashable, CaseIterable {
        /// 0x01, Report Stored Records.
        case reportStoredRecords = 0x01
        /// 0x02, Delete Stored Records.
        case deleteStoredRecords = 0x02
        /// 0x03, Abort Operation.
        case abortOperation = 0x03
        /// 0x04, Report Number of Stored Records.
        case reportNumberOfStoredRecords = 0x04
        /// 0x05, Number of Stored Records Response.
        case numberOfStoredRecordsResponse = 0x05
        /// 0x06, Response Code.
        case responseCode = 0x06
    }

    /// This value's op code.
    public var opCode: OpCode {
        switch self {
        case .reportStoredRecords: .reportStoredRecords
        case .deleteStoredRecords: .deleteStoredRecords
        case .abortOperation: .abortOperation
        case .reportNumberOfStoredRecords: .reportNumberOfStoredRecords
        case .numberOfStoredRecords: .numberOfStoredRecordsResponse
        case .responseCode: .responseCode
        }
    }

    /// The Null operator (0x00) of the op codes that take none.
    static let nullOperator: UInt8 = 0x00

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let opCode = try reader.decode(.enumeration(OpCode.self), field: "Op Code")
        switch opCode {
        case .reportStoredRecords: self = .reportStoredRecords(try RecordSelection(from: &reader))
        case .deleteStoredRecords: self = .deleteStoredRecords(try RecordSelection(from: &reader))
        case .reportNumberOfStoredRecords: self = .reportNumberOfStoredRecords(try RecordSelection(from: &reader))
        case .abortOperation:
            try Self.readNullOperator(from: &reader)
            self = .abortOperation
        case .numberOfStoredRecordsResponse:
            try Self.readNullOperator(from: &reader)
            self = .numberOfStoredRecords(try reader.decode(.uint16, field: "Number of Records"))
        case .responseCode:
            try Self.readNullOperator(from: &reader)
            self = .responseCode(request: try reader.decode(.uint8, field: "Request Op Code"),
                                 response: try reader.decode(.enumeration(RecordAccessResponseCode.self), field: "Response Code Value"))
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(opCode.rawValue)
        switch self {
        case .reportStoredRecords(let selection), .deleteStoredRecords(let selection), .reportNumberOfStoredRecords(let selection):
            try selection.encode(to: &writer)
        case .abortOperation:
            writer.writeInteger(Self.nullOperator)
        case .numberOfStoredRecords(let count):
            writer.writeInteger(Self.nullOperator)
            writer.writeInteger(count)
        case .responseCode(let request, let response):
            writer.writeInteger(Self.nullOperator)
            writer.writeInteger(request)
            writer.writeInteger(response.rawValue)
        }
    }

    private static func readNullOperator(from reader: inout GATTReader) throws(GATTCodecError) {
        let value = try reader.decode(.uint8, field: "Operator")
        guard value == nullOperator else {
            throw GATTCodecError.valueNotAllowed(expected: "Null (0)", found: "\(value)").within("Operator")
        }
    }
}

/// Which stored records a Record Access Control Point request is about: its Operator and, for
/// the comparisons, the operand — Filter Type 0x01 (sequence number) and one or two `uint16`
/// sequence numbers.
public enum RecordSelection: GATTStructure, Hashable {
    /// All records (operator 0x01).
    case all
    /// Records with a sequence number less than or equal to this one (0x02).
    case lessThanOrEqual(UInt16)
    /// Records with a sequence number greater than or equal to this one (0x03).
    case greaterThanOrEqual(UInt16)
    /// Records with a sequence number within this range, inclusive (0x04); the operand is
    /// the minimum then the maximum, and a minimum above the maximum is refused.
    case within(ClosedRange<UInt16>)
    /// The first (oldest) record (0x05).
    case first
    /// The last (most recent) record (0x06).
    case last

    /// The operators (GSS "Record Access Control Point", Operator field), Null excepted.
    public enum Operator: UInt8, Sendable, Hashable, CaseIterable {
        /// 0x01, All records.
        case allRecords = 0x01
        /// 0x02, Less than or equal to.
        case lessThanOrEqual = 0x02
        /// 0x03, Greater than or equal to.
        case greaterThanOrEqual = 0x03
        /// 0x04, Within range of (inclusive).
        case withinRange = 0x04
        /// 0x05, First record (the oldest).
        case firstRecord = 0x05
        /// 0x06, Last record (the most recent).
        case lastRecord = 0x06
    }

    /// The filter types a selection's operand can use; only the sequence number is typed.
    public enum FilterType: UInt8, Sendable, Hashable, CaseIterable {
        /// 0x01, the records' sequence numbers (`uint16`).
        case sequenceNumber = 0x01
    }

    /// This selection's operator.
    public var `operator`: Operator {
        switch self {
        case .all: .allRecords
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThanOrEqual: .greaterThanOrEqual
        case .within: .withinRange
        case .first: .firstRecord
        case .last: .lastRecord
        }
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        switch try reader.decode(.enumeration(Operator.self), field: "Operator") {
        case .allRecords: self = .all
        case .firstRecord: self = .first
        case .lastRecord: self = .last
        case .lessThanOrEqual:
            _ = try reader.decode(.enumeration(FilterType.self), field: "Filter Type")
            self = .lessThanOrEqual(try reader.decode(.uint16, field: "Maximum"))
        case .greaterThanOrEqual:
            _ = try reader.decode(.enumeration(FilterType.self), field: "Filter Type")
            self = .greaterThanOrEqual(try reader.decode(.uint16, field: "Minimum"))
        case .withinRange:
            _ = try reader.decode(.enumeration(FilterType.self), field: "Filter Type")
            let minimum = try reader.decode(.uint16, field: "Minimum")
            let maximum = try reader.decode(.uint16, field: "Maximum")
            guard minimum <= maximum else {
                throw GATTCodecError.valueNotAllowed(expected: "a minimum at most the maximum \(maximum)", found: "\(minimum)")
                    .within("Minimum")
            }
            self = .within(minimum...maximum)
        }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(self.operator.rawValue)
        switch self {
        case .all, .first, .last:
            break
        case .lessThanOrEqual(let bound), .greaterThanOrEqual(let bound):
            writer.writeInteger(FilterType.sequenceNumber.rawValue)
            writer.writeInteger(bound)
        case .within(let range):
            writer.writeInteger(FilterType.sequenceNumber.rawValue)
            writer.writeInteger(range.lowerBound)
            writer.writeInteger(range.upperBound)
        }
    }
}

/// The Response Code Value of a Record Access Control Point Response Code (GSS "Record Access
/// Control Point"). 0 and 10–255 are reserved and refused.
public enum RecordAccessResponseCode: UInt8, Sendable, Hashable, CaseIterable {
    /// 0x01: the procedure completed.
    case success = 0x01
    /// 0x02: the op code is not supported.
    case opCodeNotSupported = 0x02
    /// 0x03: the operator is not valid for the op code.
    case invalidOperator = 0x03
    /// 0x04: the operator is not supported.
    case operatorNotSupported = 0x04
    /// 0x05: the operand is not valid.
    case invalidOperand = 0x05
    /// 0x06: no record matched the selection.
    case noRecordsFound = 0x06
    /// 0x07: the procedure could not be aborted.
    case abortUnsuccessful = 0x07
    /// 0x08: the procedure did not complete.
    case procedureNotCompleted = 0x08
    /// 0x09: the operand (such as its filter type) is not supported.
    case operandNotSupported = 0x09
}
