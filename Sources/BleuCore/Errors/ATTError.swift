/// An Attribute Protocol error code, as carried by ATT_ERROR_RSP.
///
/// Covers the codes of Core Spec Vol 3 Part F §3.4.1.1 (0x01–0x13; 0x14–0x7F are reserved for
/// future use), the application range 0x80–0x9F, and the common profile and service codes of
/// the Core Specification Supplement Part B (0xFC–0xFF). Any other byte is kept as is and
/// described as reserved.
public struct ATTError: Error, RawRepresentable, Sendable, Hashable, Codable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public init(_ code: UInt8) {
        self.rawValue = code
    }

    /// The attribute handle given was not valid on this server (0x01).
    public static let invalidHandle = ATTError(0x01)
    /// The attribute cannot be read (0x02).
    public static let readNotPermitted = ATTError(0x02)
    /// The attribute cannot be written (0x03).
    public static let writeNotPermitted = ATTError(0x03)
    /// The attribute PDU was invalid (0x04).
    public static let invalidPDU = ATTError(0x04)
    /// The attribute requires authentication before it can be read or written (0x05).
    public static let insufficientAuthentication = ATTError(0x05)
    /// The server does not support the request received from the client (0x06).
    public static let requestNotSupported = ATTError(0x06)
    /// The offset specified was past the end of the attribute (0x07).
    public static let invalidOffset = ATTError(0x07)
    /// The attribute requires authorization before it can be read or written (0x08).
    public static let insufficientAuthorization = ATTError(0x08)
    /// Too many prepare writes have been queued (0x09).
    public static let prepareQueueFull = ATTError(0x09)
    /// No attribute found within the given attribute handle range (0x0A).
    public static let attributeNotFound = ATTError(0x0A)
    /// The attribute cannot be read using ATT_READ_BLOB_REQ or written using ATT_PREPARE_WRITE_REQ (0x0B).
    public static let attributeNotLong = ATTError(0x0B)
    /// The encryption key size used for encrypting this link is too short (0x0C).
    public static let encryptionKeySizeTooShort = ATTError(0x0C)
    /// The attribute value length is invalid for the operation (0x0D).
    public static let invalidAttributeValueLength = ATTError(0x0D)
    /// The request has encountered an error that was unlikely, and could not be completed (0x0E).
    public static let unlikelyError = ATTError(0x0E)
    /// The attribute requires encryption before it can be read or written (0x0F).
    public static let insufficientEncryption = ATTError(0x0F)
    /// The attribute type is not a supported grouping attribute (0x10).
    public static let unsupportedGroupType = ATTError(0x10)
    /// Insufficient resources to complete the request (0x11).
    public static let insufficientResources = ATTError(0x11)
    /// The server requests the client to rediscover the database (0x12).
    public static let databaseOutOfSync = ATTError(0x12)
    /// The attribute parameter value was not allowed (0x13).
    public static let valueNotAllowed = ATTError(0x13)

    /// Write Request Rejected (0xFC): the write cannot be fulfilled for reasons other than permissions.
    public static let writeRequestRejected = ATTError(0xFC)
    /// Client Characteristic Configuration Descriptor Improperly Configured (0xFD).
    public static let cccdImproperlyConfigured = ATTError(0xFD)
    /// Procedure Already in Progress (0xFE).
    public static let procedureAlreadyInProgress = ATTError(0xFE)
    /// Out of Range (0xFF): the value is outside the range a profile or service defines.
    public static let outOfRange = ATTError(0xFF)

    /// An application error code, 0x80–0x9F, whose meaning the service defines.
    /// Returns `nil` outside that range.
    public static func application(_ code: UInt8) -> ATTError? {
        applicationRange.contains(code) ? ATTError(code) : nil
    }

    /// The codes reserved for application errors.
    public static let applicationRange: ClosedRange<UInt8> = 0x80...0x9F

    /// Whether the code is in the application range 0x80–0x9F.
    public var isApplicationError: Bool { Self.applicationRange.contains(rawValue) }

    /// The specification's name for the code, such as `"Read Not Permitted"`.
    public var name: String {
        if let known = Self.names[rawValue] { return known.name }
        if isApplicationError { return "Application Error" }
        return "Reserved"
    }

    /// What the code means, in a sentence.
    public var meaning: String {
        if let known = Self.names[rawValue] { return known.meaning }
        if isApplicationError { return "The service's application reported an error it defines." }
        return "The code is reserved for future use."
    }

    static let names: [UInt8: (name: String, meaning: String)] = [
        0x01: ("Invalid Handle", "The attribute handle given was not valid on this server."),
        0x02: ("Read Not Permitted", "The attribute cannot be read."),
        0x03: ("Write Not Permitted", "The attribute cannot be written."),
        0x04: ("Invalid PDU", "The attribute PDU was invalid."),
        0x05: ("Insufficient Authentication",
               "The attribute requires authentication before it can be read or written; pair with MITM protection."),
        0x06: ("Request Not Supported", "The server does not support the request received from the client."),
        0x07: ("Invalid Offset", "The offset specified was past the end of the attribute."),
        0x08: ("Insufficient Authorization", "The attribute requires authorization before it can be read or written."),
        0x09: ("Prepare Queue Full", "Too many prepare writes have been queued."),
        0x0A: ("Attribute Not Found", "No attribute was found within the given attribute handle range."),
        0x0B: ("Attribute Not Long", "The attribute cannot be read or written with a long (blob / prepared) procedure."),
        0x0C: ("Encryption Key Size Too Short", "The encryption key size used for encrypting this link is too short."),
        0x0D: ("Invalid Attribute Value Length", "The attribute value length is invalid for the operation."),
        0x0E: ("Unlikely Error", "The request encountered an unlikely error and could not be completed."),
        0x0F: ("Insufficient Encryption",
               "The attribute requires encryption before it can be read or written; pair first."),
        0x10: ("Unsupported Group Type", "The attribute type is not a supported grouping attribute."),
        0x11: ("Insufficient Resources", "Insufficient resources to complete the request."),
        0x12: ("Database Out Of Sync", "The server requests the client to rediscover the database."),
        0x13: ("Value Not Allowed", "The attribute parameter value was not allowed."),
        0xFC: ("Write Request Rejected", "The write cannot be fulfilled for reasons other than permissions."),
        0xFD: ("Client Characteristic Configuration Descriptor Improperly Configured",
               "The Client Characteristic Configuration descriptor is not configured as the profile requires."),
        0xFE: ("Procedure Already in Progress", "An operation triggered earlier is still in progress."),
        0xFF: ("Out of Range", "The value is outside the range the profile or service defines."),
    ]
}

extension ATTError: CustomStringConvertible {
    /// For example `"ATT error 0x02 (Read Not Permitted): The attribute cannot be read."`
    public var description: String {
        "ATT error 0x\(String(rawValue, radix: 16, uppercase: true).leftPadded(to: 2)) (\(name)): \(meaning)"
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
