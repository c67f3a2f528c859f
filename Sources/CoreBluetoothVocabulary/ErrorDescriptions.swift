// The texts CoreBluetooth gives its errors (their NSLocalizedDescription), by raw code. Keyed by
// raw value rather than by case so that this file compiles against Apple's CoreBluetooth too,
// where some cases are unavailable on some platforms (the two watchOS-only codes) or deprecated
// (`unkownDevice`). The texts are those CoreBluetooth attaches to the errors it reports; the
// codes without one there (`success`, and the two watchOS-only codes) have a text of ours.
import Foundation
#if canImport(CoreBluetooth)
import CoreBluetooth
#endif

/// The text CoreBluetooth gives a ``CBError`` with this code, such as
/// `"The specified device has disconnected from us."`.
package func coreBluetoothErrorDescription(_ code: CBError.Code) -> String {
    cbErrorTexts[code.rawValue] ?? "Unknown error."
}

/// The text CoreBluetooth gives a ``CBATTError`` with this raw code, such as
/// `"Reading is not permitted."`; `"Unknown ATT error."` for codes outside 0…17 (application
/// and profile error codes), as CoreBluetooth says.
package func coreBluetoothATTErrorDescription(rawCode: Int) -> String {
    attErrorTexts[rawCode] ?? "Unknown ATT error."
}

private let cbErrorTexts: [Int: String] = [
    0: "Unknown error.",
    1: "One or more parameters were invalid.",
    2: "The specified handle was not valid.",
    3: "The specified device is not connected.",
    4: "There is not enough space to complete the operation.",
    5: "The operation was cancelled.",
    6: "The connection has timed out unexpectedly.",
    7: "The specified device has disconnected from us.",
    8: "The specified UUID is not allowed for this operation.",
    9: "Advertising has already started.",
    10: "The connection has failed unexpectedly.",
    11: "The system has reached the maximum number of connections",
    12: "Device is invalid.",
    13: "Operation is not supported.",
    14: "Peer removed pairing information",
    15: "Failed to encrypt the connection, the connection has timed out unexpectedly.",
    16: "Too many LE devices are paired to this device",
    17: "The limit of notifications in the background has been exceeded.",
    18: "The limit of notifications in the background is near.",
]

private let attErrorTexts: [Int: String] = [
    0: "The ATT command or request completed successfully.",
    1: "The handle is invalid.",
    2: "Reading is not permitted.",
    3: "Writing is not permitted.",
    4: "The command is invalid.",
    5: "Authentication is insufficient.",
    6: "The request is not supported.",
    7: "The offset is invalid.",
    8: "Authorization is insufficient.",
    9: "The prepare queue is full.",
    10: "The attribute could not be found.",
    11: "The attribute is not long.",
    12: "The encryption key size is insufficient.",
    13: "The value's length is invalid.",
    14: "Unlikely error.",
    15: "Encryption is insufficient.",
    16: "The group type is unsupported.",
    17: "Resources are insufficient.",
]
