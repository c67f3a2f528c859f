// CoreBluetooth's `CBError` for platforms without CoreBluetooth (on Apple platforms
// CoreBluetooth provides it). Shaped like the error structs Swift imports for NSError domains:
// a struct wrapping an NSError, a nested `Code` enum, static shorthands usable as `catch`
// patterns.
#if !canImport(CoreBluetooth)
import Foundation

/// An error CoreBluetooth reports: a ``Code`` in the `CBErrorDomain` domain
/// (CoreBluetooth's `CBError`).
///
/// Match it by code in either of CoreBluetooth's ways:
///
/// ```swift
/// do { try await something() }
/// catch CBError.connectionFailed { … }                       // a static shorthand as pattern
/// catch let error as CBError where error.code == .notConnected { … }
/// ```
///
/// Like the NSError-backed structs on Apple platforms, it holds an immutable `NSError`: that is
/// what makes it `Sendable` while ``userInfo`` keeps CoreBluetooth's `[String: Any]` type.
/// Values put in `userInfo` should themselves be safe to share, as with any `NSError`.
/// Two errors are equal, and hash alike, when their codes are equal.
public struct CBError: Error, CustomNSError, Hashable, Sendable {
    /// The codes of CoreBluetooth's errors (CoreBluetooth's `CBError.Code`).
    public enum Code: Int, Sendable {
        /// An unknown error occurred (0).
        case unknown = 0
        /// A parameter was invalid (1).
        case invalidParameters = 1
        /// The attribute handle was invalid (2).
        case invalidHandle = 2
        /// The device is not connected (3).
        case notConnected = 3
        /// The device ran out of space for the operation (4).
        case outOfSpace = 4
        /// The operation was cancelled (5).
        case operationCancelled = 5
        /// The connection timed out (6).
        case connectionTimeout = 6
        /// The peripheral disconnected (7).
        case peripheralDisconnected = 7
        /// The UUID is not allowed for this operation (8).
        case uuidNotAllowed = 8
        /// The peripheral manager is already advertising (9).
        case alreadyAdvertising = 9
        /// The connection failed (10).
        case connectionFailed = 10
        /// The device has reached its maximum number of connections (11).
        case connectionLimitReached = 11
        /// The device is unknown (12). CoreBluetooth's original, misspelled name for the code,
        /// which CoreBluetooth deprecates in favour of ``unknownDevice``.
        case unkownDevice = 12
        /// The operation is not supported (13).
        case operationNotSupported = 13
        /// The peer removed the pairing information (14).
        case peerRemovedPairingInformation = 14
        /// Encrypting the connection timed out (15).
        case encryptionTimedOut = 15
        /// Too many LE devices are paired with this device (16).
        case tooManyLEPairedDevices = 16
        /// The limit of notifications in the background was exceeded (17; watchOS on Apple platforms).
        case leGattExceededBackgroundNotificationLimit = 17
        /// The limit of notifications in the background is near (18; watchOS on Apple platforms).
        case leGattNearBackgroundNotificationLimit = 18

        /// The device is unknown (12): the correctly spelled name of ``unkownDevice``.
        public static var unknownDevice: Code { .unkownDevice }
    }

    /// The error, as CoreBluetooth keeps it: domain `CBErrorDomain`, the code's raw value, the
    /// user info.
    private let nsError: NSError

    /// An error with this code. Unless `userInfo` gives its own `NSLocalizedDescriptionKey`,
    /// the error describes itself with CoreBluetooth's text for the code.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        var info = userInfo
        if info[NSLocalizedDescriptionKey] == nil {
            info[NSLocalizedDescriptionKey] = coreBluetoothErrorDescription(code)
        }
        nsError = NSError(domain: Self.errorDomain, code: code.rawValue, userInfo: info)
    }

    /// `"CBErrorDomain"`.
    public static var errorDomain: String { CBErrorDomain }

    /// The error's code.
    public var code: Code {
        Code(rawValue: nsError.code) ?? .unknown
    }

    /// The code's raw value.
    public var errorCode: Int { nsError.code }

    /// The user info, with `NSLocalizedDescriptionKey` among it.
    public var errorUserInfo: [String: Any] { nsError.userInfo }

    /// The user info, with `NSLocalizedDescriptionKey` among it.
    public var userInfo: [String: Any] { nsError.userInfo }

    /// Whether the two errors have the same code.
    public static func == (lhs: CBError, rhs: CBError) -> Bool {
        lhs.errorCode == rhs.errorCode
    }

    /// Hashes the code.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(errorCode)
    }
}

// MARK: - Static shorthands, usable as catch patterns

extension CBError {
    /// ``Code/unknown``.
    public static var unknown: Code { .unknown }
    /// ``Code/invalidParameters``.
    public static var invalidParameters: Code { .invalidParameters }
    /// ``Code/invalidHandle``.
    public static var invalidHandle: Code { .invalidHandle }
    /// ``Code/notConnected``.
    public static var notConnected: Code { .notConnected }
    /// ``Code/outOfSpace``.
    public static var outOfSpace: Code { .outOfSpace }
    /// ``Code/operationCancelled``.
    public static var operationCancelled: Code { .operationCancelled }
    /// ``Code/connectionTimeout``.
    public static var connectionTimeout: Code { .connectionTimeout }
    /// ``Code/peripheralDisconnected``.
    public static var peripheralDisconnected: Code { .peripheralDisconnected }
    /// ``Code/uuidNotAllowed``.
    public static var uuidNotAllowed: Code { .uuidNotAllowed }
    /// ``Code/alreadyAdvertising``.
    public static var alreadyAdvertising: Code { .alreadyAdvertising }
    /// ``Code/connectionFailed``.
    public static var connectionFailed: Code { .connectionFailed }
    /// ``Code/connectionLimitReached``.
    public static var connectionLimitReached: Code { .connectionLimitReached }
    /// ``Code/unkownDevice`` (CoreBluetooth's misspelled original name).
    public static var unkownDevice: Code { .unkownDevice }
    /// ``Code/unknownDevice``.
    public static var unknownDevice: Code { .unknownDevice }
    /// ``Code/operationNotSupported``.
    public static var operationNotSupported: Code { .operationNotSupported }
    /// ``Code/peerRemovedPairingInformation``.
    public static var peerRemovedPairingInformation: Code { .peerRemovedPairingInformation }
    /// ``Code/encryptionTimedOut``.
    public static var encryptionTimedOut: Code { .encryptionTimedOut }
    /// ``Code/tooManyLEPairedDevices``.
    public static var tooManyLEPairedDevices: Code { .tooManyLEPairedDevices }
    /// ``Code/leGattExceededBackgroundNotificationLimit``.
    public static var leGattExceededBackgroundNotificationLimit: Code { .leGattExceededBackgroundNotificationLimit }
    /// ``Code/leGattNearBackgroundNotificationLimit``.
    public static var leGattNearBackgroundNotificationLimit: Code { .leGattNearBackgroundNotificationLimit }
}

/// Whether `value` is a ``CBError`` with this code: what lets a code serve as a `catch` or
/// `case` pattern, `catch CBError.connectionFailed`, as on Apple platforms (where the Swift
/// overlay's generic operator for NSError codes does the same).
public func ~= (pattern: CBError.Code, value: any Error) -> Bool {
    guard let error = value as? CBError else { return false }
    return error.errorCode == pattern.rawValue
}

#endif
