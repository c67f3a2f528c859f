import Foundation

extension BleuError {
    /// Why an operation cannot run in the current state (``BleuError/invalidState(_:)``).
    public enum InvalidState: Sendable, Hashable, Codable, CustomStringConvertible {
        /// No L2CAP channel is published on this PSM by this manager.
        case psmNotPublished(UInt16)
        /// The L2CAP channel is closed.
        case channelClosed
        /// The peer closed the L2CAP channel.
        case channelClosedByPeer
        /// The connection with this HCI handle is closed.
        case connectionClosed(handle: UInt16)
        /// The incoming data or values have one consumer, and another task is already reading them.
        case singleConsumer
        /// The service is not published (to remove it, include it, or answer for it).
        case serviceNotPublished(BluetoothUUID)
        /// The service belongs to the host stack (GAP, GATT), which publishes it itself.
        case serviceReserved(BluetoothUUID)
        /// The service cannot be removed while the service `by` includes it.
        case serviceIncluded(BluetoothUUID, by: BluetoothUUID)
        /// The characteristic has a static value but these properties (write, notify, indicate,
        /// signed writes) need a value served from requests.
        case staticValueNotAllowed(BluetoothUUID, CharacteristicProperties)
        /// The characteristic declares a Client Characteristic Configuration descriptor, which
        /// the backend adds itself for characteristics that notify or indicate.
        case clientConfigurationDeclared(BluetoothUUID)
        /// A handler for `operation` was given for a characteristic the service does not declare.
        case handlerForUndeclared(BluetoothUUID, Operation)
        /// A handler for `operation` was given for a characteristic whose properties do not allow it.
        case handlerNotAllowed(BluetoothUUID, Operation, CharacteristicProperties)
        /// A read handler was given for a characteristic whose static value the radio serves itself.
        case handlerForStaticValue(BluetoothUUID)
        /// The manager was released; its operations cannot run.
        case managerGone
        /// A manager restored with the same identifier replaced this one.
        case managerReplaced
        /// The emulator bus was reset, which ends everything on it.
        case busReset
        /// The connection to an emulator hub ended (the hub stopped, or the connection broke);
        /// every manager on that bus is cut off.
        case hubConnectionLost(reason: String)
        /// A configuration setting is outside what it allows.
        case invalidConfiguration(setting: String, requirement: String)
        /// The actor belongs to another actor system.
        case foreignActor
        /// The peripheral's services changed; discover them and subscribe again.
        case servicesChanged(UUID)
        /// The backend finished the operation without the result it promises.
        case unexpectedOutcome(Operation)
        /// The platform's Bluetooth stack refused the operation in its current state.
        case platform(PlatformError)

        public var description: String {
            switch self {
            case .psmNotPublished(let psm): "PSM 0x\(hex4(psm)) is not published"
            case .channelClosed: "the L2CAP channel is closed"
            case .channelClosedByPeer: "the peer closed the L2CAP channel"
            case .connectionClosed(let handle): "connection 0x\(hex4(handle)) is closed"
            case .singleConsumer: "another task is already reading; give each consumer its own stream or subscription"
            case .serviceNotPublished(let uuid): "service \(uuid) is not published"
            case .serviceReserved(let uuid): "service \(uuid) is provided by the host stack itself"
            case .serviceIncluded(let uuid, let includer): "service \(uuid) is included by service \(includer)"
            case .staticValueNotAllowed(let uuid, let properties):
                "characteristic \(uuid) has a static value but is \(properties); a static value needs a read-only characteristic"
            case .clientConfigurationDeclared(let uuid):
                "characteristic \(uuid) declares a Client Characteristic Configuration descriptor, which the backend adds itself"
            case .handlerForUndeclared(let uuid, let operation):
                "a \(operation) handler was given for characteristic \(uuid), which the service does not declare"
            case .handlerNotAllowed(let uuid, let operation, let properties):
                "a \(operation) handler was given for characteristic \(uuid), which does not allow it (\(properties))"
            case .handlerForStaticValue(let uuid):
                "a read handler was given for characteristic \(uuid), whose static value the radio serves itself"
            case .managerGone: "the manager is gone"
            case .managerReplaced: "a manager restored with the same identifier replaced this one"
            case .busReset: "the emulator bus was reset"
            case .hubConnectionLost(let reason): "the connection to the emulator hub ended (\(reason))"
            case .invalidConfiguration(let setting, let requirement): "the configuration's \(setting) \(requirement)"
            case .foreignActor: "the actor belongs to another actor system"
            case .servicesChanged(let peer): "the services of \(peer) changed"
            case .unexpectedOutcome(let operation): "\(operation) finished without its result"
            case .platform(let error): "\(error)"
            }
        }
    }
}
