// Conversions between Bleu's errors and the errors CoreBluetooth reports, for the `EmulatedCB…`
// classes (see Conversions.swift for the ground rules: these compile on every platform).
import BleuCore
import Foundation
#if canImport(CoreBluetooth)
import CoreBluetooth
#endif

// MARK: - ATT error codes

extension CBATTError.Code {
    /// The code for an ATT error. Codes 0x01…0x11 map to the case with the same raw value; any
    /// other code (0x12 and up, such as an application error) has no case in this module's
    /// enum and becomes `.unlikelyError` (Apple's imported enum may keep the raw value instead).
    /// To keep such a code on every platform, report the error with ``coreBluetoothError(for:)``,
    /// whose `CBATTError` keeps it.
    package init(_ error: ATTError) {
        if error.rawValue != 0, let code = CBATTError.Code(rawValue: Int(error.rawValue)) {
            self = code
        } else {
            self = .unlikelyError
        }
    }
}

extension ATTError {
    /// The ATT error a peripheral manager's `respond(to:withResult:)` answers with, or `nil` for
    /// `.success`, which is no error.
    package init?(_ code: CBATTError.Code) {
        guard code != .success else { return nil }
        self.init(UInt8(exactly: code.rawValue) ?? ATTError.unlikelyError.rawValue)
    }
}

// MARK: - Errors

/// The error CoreBluetooth reports in the situation `error` describes, for a delegate callback.
///
/// A ``BleuError`` becomes the `CBError` or `CBATTError` CoreBluetooth gives in the same
/// situation (see the cases below); an `ATTError` becomes a `CBATTError` with the same code,
/// also for codes `CBATTError.Code` has no case for; a `CBError` or `CBATTError` is returned as
/// it is; a `CancellationError` becomes `CBError.operationCancelled`; an invalid
/// advertisement (``AdvertisementDictionaryError``, `AdvertisingDataError`) becomes
/// `CBError.invalidParameters`; anything else becomes `CBError.unknown`. Every error made here
/// carries CoreBluetooth's description of its code and, under `NSUnderlyingErrorKey`, the
/// error it was made from.
package func coreBluetoothError(for error: any Error) -> any Error {
    switch error {
    case let error as BleuError:
        return coreBluetoothError(for: error)
    case let error as ATTError:
        return attError(rawCode: Int(error.rawValue), underlying: error)
    case is CBError, is CBATTError:
        return error
    case is CancellationError:
        return cbError(.operationCancelled, underlying: error)
    case is AdvertisementDictionaryError, is AdvertisingDataError:
        return cbError(.invalidParameters, underlying: error)
    default:
        return cbError(.unknown, underlying: error)
    }
}

/// The CoreBluetooth error for each ``BleuError``. No `default`: a new case must be mapped here.
private func coreBluetoothError(for error: BleuError) -> any Error {
    switch error {
    // A radio that is off, unauthorized or unavailable fails operations with no specific
    // CoreBluetooth code; CoreBluetooth reports the state change itself to the manager's
    // delegate.
    case .bluetoothUnavailable, .bluetoothPoweredOff, .bluetoothUnauthorized:
        return cbError(.unknown, underlying: error)
    // "Device is invalid." (CBError 12).
    case .peripheralNotFound:
        return cbError(.unknownDevice, underlying: error)
    // A service, characteristic or descriptor the app names is not (or no longer) on the peer:
    // CoreBluetooth's "The specified handle was not valid."
    case .serviceNotFound, .characteristicNotFound, .descriptorNotFound:
        return cbError(.invalidHandle, underlying: error)
    case .connectionTimeout, .timeout:
        return cbError(.connectionTimeout, underlying: error)
    case .connectionFailed:
        return cbError(.connectionFailed, underlying: error)
    case .disconnected(_, let reason):
        return cbError(disconnectionCode(reason), underlying: error)
    case .notConnected:
        return cbError(.notConnected, underlying: error)
    case .invalidData, .invalidState:
        return cbError(.invalidParameters, underlying: error)
    case .att(let code):
        return attError(rawCode: Int(code.rawValue), underlying: error)
    case .notSupported:
        return cbError(.operationNotSupported, underlying: error)
    // "There is not enough space to complete the operation."
    case .sendQueueFull, .bufferOverflow:
        return cbError(.outOfSpace, underlying: error)
    case .valueTooLong:
        return attError(rawCode: CBATTError.Code.invalidAttributeValueLength.rawValue, underlying: error)
    case .limitReached:
        return cbError(.connectionLimitReached, underlying: error)
    // When pairing fails or the user declines it, CoreBluetooth fails the operation that needed
    // it with ATT's "Encryption is insufficient."
    case .pairingFailed:
        return attError(rawCode: CBATTError.Code.insufficientEncryption.rawValue, underlying: error)
    case .cancelled:
        return cbError(.operationCancelled, underlying: error)
    }
}

/// The code CoreBluetooth reports a lost connection with: a link that timed out (supervision
/// timeout) as "The connection has timed out unexpectedly.", a connection that never came up as
/// "The connection has failed unexpectedly.", any other end (the peer's, a radio powered off)
/// as "The specified device has disconnected from us."
private func disconnectionCode(_ reason: DisconnectReason) -> CBError.Code {
    switch reason {
    case .supervisionTimeout: .connectionTimeout
    case .failedToEstablish: .connectionFailed
    case .remoteUserTerminated, .localHostTerminated, .poweredOff, .hci: .peripheralDisconnected
    }
}

/// A `CBError` with CoreBluetooth's description and the underlying error.
private func cbError(_ code: CBError.Code, underlying: any Error) -> CBError {
    CBError(code, userInfo: [
        NSLocalizedDescriptionKey: coreBluetoothErrorDescription(code),
        NSUnderlyingErrorKey: underlying,
    ])
}

/// A `CBATTError` with any ATT code, CoreBluetooth's description and the underlying error.
private func attError(rawCode: Int, underlying: any Error) -> any Error {
    let userInfo: [String: Any] = [
        NSLocalizedDescriptionKey: coreBluetoothATTErrorDescription(rawCode: rawCode),
        NSUnderlyingErrorKey: underlying,
    ]
    #if canImport(CoreBluetooth)
    // CoreBluetooth's errors are NSErrors; one in CBATTErrorDomain bridges to CBATTError, whatever
    // its code.
    return NSError(domain: CBATTErrorDomain, code: rawCode, userInfo: userInfo)
    #else
    return CBATTError(rawCode: rawCode, userInfo: userInfo)
    #endif
}

/// The error CoreBluetooth gives `didDisconnectPeripheral` for a connection that ended for
/// `reason`: none when this central ended it, else the `CBError` whose code
/// ``disconnectReason(fromCoreBluetooth:)`` reads back as the same reason class.
package func coreBluetoothDisconnectionError(for reason: DisconnectReason) -> CBError? {
    reason == .localHostTerminated ? nil : CBError(disconnectionCode(reason))
}

// MARK: - From CoreBluetooth's errors

/// What was under way when CoreBluetooth reported an error, which decides what some of its codes
/// mean for Bleu (see ``bleuError(fromCoreBluetooth:peer:during:)``).
package enum CoreBluetoothActivity: Sendable, Hashable {
    /// Connecting to the peer (`centralManager(_:didFailToConnect:error:)`).
    case connecting
    /// Another operation, named for ``/BleuCore/BleuError/timeout(_:after:)``. `linkEnd` is
    /// why the link ended along with the error, if it did (``errorDependsOnLinkEnd(_:)``).
    case operation(BleuError.Operation, linkEnd: DisconnectReason?)
}

/// Whether what an operation's error means depends on whether, and why, the link ends along
/// with it: CoreBluetooth fails the operations of a link that ends with the code of the end
/// (`.connectionTimeout` for a lost link, `.peripheralDisconnected` for the peer's end), and
/// also reports an ATT transaction timeout — after which the stack closes the link itself — as
/// `.connectionTimeout`. The disconnection callback that follows tells them apart.
package func errorDependsOnLinkEnd(_ error: any Error) -> Bool {
    guard let cb = error as? CBError else { return false }
    return cb.errorCode == CBError.Code.connectionTimeout.rawValue || cb.errorCode == CBError.Code.peripheralDisconnected.rawValue
}

/// The ``/BleuCore/BleuError`` for an error a CoreBluetooth delegate callback reported about
/// `peer` (`nil` for what a manager does on its own, such as advertising) — the inverse of
/// ``coreBluetoothError(for:)``, read from the error's domain and code only (what an app on
/// Apple's CoreBluetooth has), never from what it wraps:
///
/// | CoreBluetooth | BleuError |
/// |---|---|
/// | `CBATTError` with ATT code *n* | ``/BleuCore/BleuError/att(_:)`` with `ATTError(n)` |
/// | `.notConnected` | ``/BleuCore/BleuError/notConnected(_:)`` |
/// | `.peripheralDisconnected` | ``/BleuCore/BleuError/disconnected(_:_:)`` with the link's end (else remote user terminated); connecting: ``/BleuCore/BleuError/connectionFailed(_:reason:)`` |
/// | `.connectionTimeout` | connecting: ``/BleuCore/BleuError/connectionTimeout(_:)``; the link stayed up, or this side closed it (after an ATT transaction timeout): ``/BleuCore/BleuError/timeout(_:after:)``; else ``/BleuCore/BleuError/disconnected(_:_:)`` with the link's end |
/// | `.connectionFailed` | ``/BleuCore/BleuError/connectionFailed(_:reason:)`` |
/// | `.operationCancelled` | ``/BleuCore/BleuError/cancelled`` |
/// | `.connectionLimitReached`, `.tooManyLEPairedDevices` | ``/BleuCore/BleuError/limitReached(_:)`` |
/// | `.unknownDevice` | ``/BleuCore/BleuError/peripheralNotFound(_:)`` |
/// | `.invalidParameters` | ``/BleuCore/BleuError/invalidData(_:)`` |
/// | `.invalidHandle` | ``/BleuCore/BleuError/att(_:)`` with ``/BleuCore/ATTError/invalidHandle`` |
/// | `.outOfSpace` | ``/BleuCore/BleuError/sendQueueFull(_:)`` |
/// | `.operationNotSupported`, `.uuidNotAllowed` | ``/BleuCore/BleuError/notSupported(_:)`` |
/// | `.peerRemovedPairingInformation`, `.encryptionTimedOut` | ``/BleuCore/BleuError/pairingFailed(_:)`` |
/// | `.alreadyAdvertising`, `.unknown`, any other error | connecting: ``/BleuCore/BleuError/connectionFailed(_:reason:)``; else ``/BleuCore/BleuError/invalidState(_:)`` |
///
/// Without a `peer`, the codes whose error names one (not connected, disconnected, out of
/// space, unknown device) become ``/BleuCore/BleuError/invalidState(_:)``. Reasons and
/// descriptions carry CoreBluetooth's domain, code and text for the error (``/BleuCore/BleuError/PlatformError``).
package func bleuError(fromCoreBluetooth error: any Error, peer: UUID?, during activity: CoreBluetoothActivity) -> BleuError {
    let platform = platformError(error)
    let connecting = activity == .connecting
    let other = BleuError.invalidState(.platform(platform))
    if let att = error as? CBATTError {
        return .att(ATTError(UInt8(exactly: att.errorCode) ?? ATTError.unlikelyError.rawValue))
    }
    guard let cb = error as? CBError, let code = CBError.Code(rawValue: cb.errorCode) else {
        if connecting, let peer { return .connectionFailed(peer, reason: .platform(platform)) }
        return other
    }
    // `default` rather than `@unknown default`: some codes are deprecated (`unkownDevice`) or
    // unavailable (the watchOS-only ones) on some Apple platforms, so they are matched by raw
    // value below, and the `default` also takes codes a later CoreBluetooth adds.
    switch (code, peer) {
    case (.notConnected, let peer?):
        return .notConnected(peer)
    case (.peripheralDisconnected, let peer?):
        switch activity {
        case .connecting: return .connectionFailed(peer, reason: .platform(platform))
        case .operation(_, let linkEnd): return .disconnected(peer, linkEnd ?? .remoteUserTerminated)
        }
    case (.connectionTimeout, let peer):
        switch activity {
        case .connecting:
            return peer.map { .connectionTimeout($0) } ?? other
        case .operation(let operation, linkEnd: nil), .operation(let operation, linkEnd: .localHostTerminated?):
            return .timeout(operation, after: nil)
        case .operation(_, linkEnd: let reason?):
            return peer.map { .disconnected($0, reason) } ?? other
        }
    case (.connectionFailed, let peer?):
        return .connectionFailed(peer, reason: .platform(platform))
    case (.operationCancelled, _):
        return .cancelled
    case (.connectionLimitReached, _), (.tooManyLEPairedDevices, _):
        return .limitReached(.platform(platform))
    case (.invalidParameters, _):
        return .invalidData(.platform(platform))
    case (.invalidHandle, _):
        return .att(.invalidHandle)
    case (.outOfSpace, let peer?):
        return .sendQueueFull(peer)
    case (.operationNotSupported, _), (.uuidNotAllowed, _):
        return .notSupported(.platform(platform))
    case (.peerRemovedPairingInformation, _), (.encryptionTimedOut, _):
        return .pairingFailed(.platform(platform))
    default:
        guard let peer else { return other }
        if cb.errorCode == 12 { return .peripheralNotFound(peer) }  // unknownDevice
        return connecting ? .connectionFailed(peer, reason: .platform(platform)) : other
    }
}

/// CoreBluetooth's error as a value a caller can switch on: its domain, code and description.
package func platformError(_ error: any Error) -> BleuError.PlatformError {
    let bridged = error as NSError
    return BleuError.PlatformError(domain: bridged.domain, code: bridged.code, message: error.localizedDescription)
}

/// Why a connection ended, from the error `didDisconnectPeripheral` reported: `nil` (this
/// central cancelled it) is ``/BleuCore/DisconnectReason/localHostTerminated``; a connection
/// timeout is ``/BleuCore/DisconnectReason/supervisionTimeout``; a failed connection
/// ``/BleuCore/DisconnectReason/failedToEstablish``; anything else — the peer's end, a radio
/// powered off — ``/BleuCore/DisconnectReason/remoteUserTerminated``, the most CoreBluetooth
/// tells.
package func disconnectReason(fromCoreBluetooth error: (any Error)?) -> DisconnectReason {
    guard let error else { return .localHostTerminated }
    guard let cb = error as? CBError else { return .remoteUserTerminated }
    switch CBError.Code(rawValue: cb.errorCode) {
    case .connectionTimeout: return .supervisionTimeout
    case .connectionFailed: return .failedToEstablish
    default: return .remoteUserTerminated
    }
}
