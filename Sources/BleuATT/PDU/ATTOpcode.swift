import BleuCore

/// An Attribute Protocol opcode (Core Spec Vol 3 Part F §3.4.8): bits 0–5 the method, bit 6
/// the command flag, bit 7 the authentication signature flag.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let errorResponse = ATTOpcode(rawValue: 0x01)
    public static let exchangeMTURequest = ATTOpcode(rawValue: 0x02)
    public static let exchangeMTUResponse = ATTOpcode(rawValue: 0x03)
    public static let findInformationRequest = ATTOpcode(rawValue: 0x04)
    public static let findInformationResponse = ATTOpcode(rawValue: 0x05)
    public static let findByTypeValueRequest = ATTOpcode(rawValue: 0x06)
    public static let findByTypeValueResponse = ATTOpcode(rawValue: 0x07)
    public static let readByTypeRequest = ATTOpcode(rawValue: 0x08)
    public static let readByTypeResponse = ATTOpcode(rawValue: 0x09)
    public static let readRequest = ATTOpcode(rawValue: 0x0A)
    public static let readResponse = ATTOpcode(rawValue: 0x0B)
    public static let readBlobRequest = ATTOpcode(rawValue: 0x0C)
    public static let readBlobResponse = ATTOpcode(rawValue: 0x0D)
    public static let readMultipleRequest = ATTOpcode(rawValue: 0x0E)
    public static let readMultipleResponse = ATTOpcode(rawValue: 0x0F)
    public static let readByGroupTypeRequest = ATTOpcode(rawValue: 0x10)
    public static let readByGroupTypeResponse = ATTOpcode(rawValue: 0x11)
    public static let writeRequest = ATTOpcode(rawValue: 0x12)
    public static let writeResponse = ATTOpcode(rawValue: 0x13)
    public static let prepareWriteRequest = ATTOpcode(rawValue: 0x16)
    public static let prepareWriteResponse = ATTOpcode(rawValue: 0x17)
    public static let executeWriteRequest = ATTOpcode(rawValue: 0x18)
    public static let executeWriteResponse = ATTOpcode(rawValue: 0x19)
    public static let readMultipleVariableRequest = ATTOpcode(rawValue: 0x20)
    public static let readMultipleVariableResponse = ATTOpcode(rawValue: 0x21)
    public static let multipleHandleValueNotification = ATTOpcode(rawValue: 0x23)
    public static let handleValueNotification = ATTOpcode(rawValue: 0x1B)
    public static let handleValueIndication = ATTOpcode(rawValue: 0x1D)
    public static let handleValueConfirmation = ATTOpcode(rawValue: 0x1E)
    public static let writeCommand = ATTOpcode(rawValue: 0x52)
    public static let signedWriteCommand = ATTOpcode(rawValue: 0xD2)

    /// Whether the command flag is set: the server never answers such a PDU, not even with an error.
    public var isCommand: Bool { rawValue & 0x40 != 0 }

    /// What role the PDU plays in the protocol's sequencing (§3.3).
    public enum Method: Sendable, Hashable {
        case request, response, command, notification, indication, confirmation
    }

    /// How the PDU is sequenced; `nil` for an opcode this stack does not know.
    public var method: Method? {
        switch self {
        case .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest,
             .readRequest, .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest, .writeRequest,
             .prepareWriteRequest, .executeWriteRequest, .readMultipleVariableRequest:
            .request
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse,
             .readByTypeResponse, .readResponse, .readBlobResponse, .readMultipleResponse, .readByGroupTypeResponse,
             .writeResponse, .prepareWriteResponse, .executeWriteResponse, .readMultipleVariableResponse:
            .response
        case .writeCommand, .signedWriteCommand: .command
        case .handleValueNotification, .multipleHandleValueNotification: .notification
        case .handleValueIndication: .indication
        case .handleValueConfirmation: .confirmation
        default: nil
        }
    }

    static let names: [UInt8: String] = [
        0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
        0x04: "Find Information Request", 0x05: "Find Information Response",
        0x06: "Find By Type Value Request", 0x07: "Find By Type Value Response",
        0x08: "Read By Type Request", 0x09: "Read By Type Response", 0x0A: "Read Request", 0x0B: "Read Response",
        0x0C: "Read Blob Request", 0x0D: "Read Blob Response", 0x0E: "Read Multiple Request",
        0x0F: "Read Multiple Response", 0x10: "Read By Group Type Request", 0x11: "Read By Group Type Response",
        0x12: "Write Request", 0x13: "Write Response", 0x16: "Prepare Write Request", 0x17: "Prepare Write Response",
        0x18: "Execute Write Request", 0x19: "Execute Write Response", 0x1B: "Handle Value Notification",
        0x1D: "Handle Value Indication", 0x1E: "Handle Value Confirmation",
        0x20: "Read Multiple Variable Request", 0x21: "Read Multiple Variable Response",
        0x23: "Multiple Handle Value Notification", 0x52: "Write Command", 0xD2: "Signed Write Command",
    ]

    /// The name the specification gives the opcode, such as `"Read Request"`; for one it does
    /// not define, `"opcode 0xNN"`.
    public var name: String {
        Self.names[rawValue] ?? "opcode 0x\(hex2(rawValue))"
    }

    /// For example `"ATT Read Request (0x0A)"`.
    public var description: String {
        "ATT \(Self.names[rawValue] ?? "opcode") (0x\(hex2(rawValue)))"
    }
}
