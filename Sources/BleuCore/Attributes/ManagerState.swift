/// The state of a central or peripheral manager's Bluetooth radio, as CoreBluetooth reports it.
public enum ManagerState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not known yet; a manager starts here and moves on shortly.
    case unknown
    /// The connection with the system service was lost; an update follows.
    case resetting
    /// The platform or controller does not support Bluetooth Low Energy.
    case unsupported
    /// The application is not allowed to use Bluetooth.
    case unauthorized
    /// Bluetooth is turned off.
    case poweredOff
    /// Bluetooth is on and ready.
    case poweredOn

    /// The error an operation attempted in this state fails with, or `nil` when powered on.
    public var unavailableError: BleuError? {
        switch self {
        case .poweredOn: nil
        case .poweredOff: .bluetoothPoweredOff
        case .unauthorized: .bluetoothUnauthorized
        case .unknown, .resetting, .unsupported: .bluetoothUnavailable(self)
        }
    }
}
