// CoreBluetooth's `CBATTError` for platforms without CoreBluetooth (on Apple platforms
// CoreBluetooth provides it); shaped like `CBError` (see CBError.swift).
#if !canImport(CoreBluetooth)
import Foundation

/// An Attribute Protocol error a peer reported, or one a peripheral manager answers a request
/// with: a ``Code`` in the `CBATTErrorDomain` domain (CoreBluetooth's `CBATTError`).
///
/// The codes are the Bluetooth ATT error codes. A peer may also answer with a code ``Code`` has
/// no case for (0x12 and up: application and profile errors such as 0x80); CoreBluetooth keeps
/// such a code in the error, and so does this type: ``errorCode`` is the code as received, and
/// ``code`` is ``Code/unlikelyError`` for it (on Apple platforms `code` would carry the raw
/// value, which a native enum cannot).
///
/// Matching works as for ``CBError``: `catch CBATTError.insufficientEncryption`, or
/// `error.code == .readNotPermitted`. Two errors are equal, and hash alike, when their raw codes
/// are equal.
public struct CBATTError: Error, CustomNSError, Hashable, Sendable {
    /// The ATT error codes CoreBluetooth names (CoreBluetooth's `CBATTError.Code`); the raw values
    /// are the codes of Core Spec Vol 3 Part F §3.4.1.1.
    public enum Code: Int, Sendable {
        /// No error: the request succeeded (0x00). A peripheral manager answers a request with it.
        case success = 0
        /// The attribute handle is invalid (0x01).
        case invalidHandle = 1
        /// The attribute cannot be read (0x02).
        case readNotPermitted = 2
        /// The attribute cannot be written (0x03).
        case writeNotPermitted = 3
        /// The PDU was invalid (0x04).
        case invalidPdu = 4
        /// Reading or writing needs authentication (0x05).
        case insufficientAuthentication = 5
        /// The server does not support the request (0x06).
        case requestNotSupported = 6
        /// The offset is past the end of the value (0x07).
        case invalidOffset = 7
        /// Reading or writing needs authorization (0x08).
        case insufficientAuthorization = 8
        /// Too many prepared writes are queued (0x09).
        case prepareQueueFull = 9
        /// No attribute was found in the handle range (0x0A).
        case attributeNotFound = 10
        /// The attribute cannot be read or written with a long procedure (0x0B).
        case attributeNotLong = 11
        /// The encryption key is too short (0x0C).
        case insufficientEncryptionKeySize = 12
        /// The value's length is invalid for the operation (0x0D).
        case invalidAttributeValueLength = 13
        /// The request failed for an unlikely reason (0x0E).
        case unlikelyError = 14
        /// Reading or writing needs an encrypted link (0x0F).
        case insufficientEncryption = 15
        /// The attribute type is not a supported grouping attribute (0x10).
        case unsupportedGroupType = 16
        /// The server lacks the resources to complete the request (0x11).
        case insufficientResources = 17
    }

    /// The error, as CoreBluetooth keeps it: domain `CBATTErrorDomain`, the ATT code, the user info.
    private let nsError: NSError

    /// An error with this code. Unless `userInfo` gives its own `NSLocalizedDescriptionKey`,
    /// the error describes itself with CoreBluetooth's text for the code.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.init(rawCode: code.rawValue, userInfo: userInfo)
    }

    /// An error with any ATT code, including those ``Code`` has no case for, such as an
    /// application error 0x80: what CoreBluetooth reports when a peer answers with one.
    package init(rawCode: Int, userInfo: [String: Any] = [:]) {
        var info = userInfo
        if info[NSLocalizedDescriptionKey] == nil {
            info[NSLocalizedDescriptionKey] = coreBluetoothATTErrorDescription(rawCode: rawCode)
        }
        nsError = NSError(domain: Self.errorDomain, code: rawCode, userInfo: info)
    }

    /// `"CBATTErrorDomain"`.
    public static var errorDomain: String { CBATTErrorDomain }

    /// The error's code; ``Code/unlikelyError`` for a code with no case (see ``errorCode``).
    public var code: Code {
        Code(rawValue: nsError.code) ?? .unlikelyError
    }

    /// The ATT error code as received, also for codes ``Code`` has no case for.
    public var errorCode: Int { nsError.code }

    /// The user info, with `NSLocalizedDescriptionKey` among it.
    public var errorUserInfo: [String: Any] { nsError.userInfo }

    /// The user info, with `NSLocalizedDescriptionKey` among it.
    public var userInfo: [String: Any] { nsError.userInfo }

    /// Whether the two errors have the same raw code.
    public static func == (lhs: CBATTError, rhs: CBATTError) -> Bool {
        lhs.errorCode == rhs.errorCode
    }

    /// Hashes the raw code.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(errorCode)
    }
}

// MARK: - Static shorthands, usable as catch patterns

extension CBATTError {
    /// ``Code/success``.
    public static var success: Code { .success }
    /// ``Code/invalidHandle``.
    public static var invalidHandle: Code { .invalidHandle }
    /// ``Code/readNotPermitted``.
    public static var readNotPermitted: Code { .readNotPermitted }
    /// ``Code/writeNotPermitted``.
    public static var writeNotPermitted: Code { .writeNotPermitted }
    /// ``Code/invalidPdu``.
    public static var invalidPdu: Code { .invalidPdu }
    /// ``Code/insufficientAuthentication``.
    public static var insufficientAuthentication: Code { .insufficientAuthentication }
    /// ``Code/requestNotSupported``.
    public static var requestNotSupported: Code { .requestNotSupported }
    /// ``Code/invalidOffset``.
    public static var invalidOffset: Code { .invalidOffset }
    /// ``Code/insufficientAuthorization``.
    public static var insufficientAuthorization: Code { .insufficientAuthorization }
    /// ``Code/prepareQueueFull``.
    public static var prepareQueueFull: Code { .prepareQueueFull }
    /// ``Code/attributeNotFound``.
    public static var attributeNotFound: Code { .attributeNotFound }
    /// ``Code/attributeNotLong``.
    public static var attributeNotLong: Code { .attributeNotLong }
    /// ``Code/insufficientEncryptionKeySize``.
    public static var insufficientEncryptionKeySize: Code { .insufficientEncryptionKeySize }
    /// ``Code/invalidAttributeValueLength``.
    public static var invalidAttributeValueLength: Code { .invalidAttributeValueLength }
    /// ``Code/unlikelyError``.
    public static var unlikelyError: Code { .unlikelyError }
    /// ``Code/insufficientEncryption``.
    public static var insufficientEncryption: Code { .insufficientEncryption }
    /// ``Code/unsupportedGroupType``.
    public static var unsupportedGroupType: Code { .unsupportedGroupType }
    /// ``Code/insufficientResources``.
    public static var insufficientResources: Code { .insufficientResources }
}

/// Whether `value` is a ``CBATTError`` with this code: what lets a code serve as a `catch` or
/// `case` pattern, `catch CBATTError.insufficientEncryption`, as on Apple platforms.
public func ~= (pattern: CBATTError.Code, value: any Error) -> Bool {
    guard let error = value as? CBATTError else { return false }
    return error.errorCode == pattern.rawValue
}

#endif
