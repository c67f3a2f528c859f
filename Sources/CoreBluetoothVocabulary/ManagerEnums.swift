// CoreBluetooth's manager enumerations, under CoreBluetooth's names and raw values. On Apple
// platforms CoreBluetooth itself provides them (this module re-exports it); elsewhere these
// declarations stand in, so one source file compiles on both.
//
// CoreBluetooth's enums are imported C enums that are not frozen: on Apple platforms an
// exhaustive `switch` over them still wants `@unknown default`. These are native Swift enums; an
// `@unknown default` case compiles here without a warning too (a plain `default` would warn that
// it never runs), so shared code writes `@unknown default`.
#if !canImport(CoreBluetooth)

/// The state of a central or peripheral manager (CoreBluetooth's `CBManagerState`).
public enum CBManagerState: Int, Sendable {
    /// The state is not known yet; an update follows shortly (0).
    case unknown = 0
    /// The connection with the system service was lost; an update follows (1).
    case resetting = 1
    /// The platform does not support Bluetooth Low Energy (2).
    case unsupported = 2
    /// The application is not authorized to use Bluetooth Low Energy (3).
    case unauthorized = 3
    /// Bluetooth is turned off (4).
    case poweredOff = 4
    /// Bluetooth is on and ready to use (5).
    case poweredOn = 5
}

/// Whether the application may use Bluetooth (CoreBluetooth's `CBManagerAuthorization`).
public enum CBManagerAuthorization: Int, Sendable {
    /// The user has not chosen yet (0).
    case notDetermined = 0
    /// The application may not use Bluetooth, for reasons the user cannot change (1).
    case restricted = 1
    /// The user denied the application the use of Bluetooth (2).
    case denied = 2
    /// The application may use Bluetooth at any time (3).
    case allowedAlways = 3
}

/// The connection latency a peripheral manager asks a central for
/// (CoreBluetooth's `CBPeripheralManagerConnectionLatency`).
public enum CBPeripheralManagerConnectionLatency: Int, Sendable {
    /// Prefer low latency: frequent connection events, more power (0).
    case low = 0
    /// A balance of latency and power (1).
    case medium = 1
    /// Prefer saving power: infrequent connection events (2).
    case high = 2
}

/// The application's authorization to share data while in the background, as the deprecated
/// `CBPeripheralManager.authorizationStatus()` reports it
/// (CoreBluetooth's `CBPeripheralManagerAuthorizationStatus`).
public enum CBPeripheralManagerAuthorizationStatus: Int, Sendable {
    /// The user has not chosen yet (0).
    case notDetermined = 0
    /// The application is not authorized, for reasons the user cannot change (1).
    case restricted = 1
    /// The user denied the authorization (2).
    case denied = 2
    /// The application is authorized (3).
    case authorized = 3
}

#endif
