extension BleuError {
    /// An operation Bleu performs, named in the errors that say which one failed or timed out
    /// (``BleuError/timeout(_:after:)``, ``BleuError/Unsupported/characteristicProperties(_:_:_:)``,
    /// ``BleuError/InvalidState/unexpectedOutcome(_:)``).
    public enum Operation: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Connecting to a peripheral.
        case connect
        /// Exchanging the ATT MTU.
        case exchangeMTU
        /// Discovering a peripheral's primary services.
        case discoverServices
        /// Discovering the services a service includes.
        case discoverIncludedServices
        /// Discovering a service's characteristics.
        case discoverCharacteristics
        /// Discovering a characteristic's descriptors.
        case discoverDescriptors
        /// Reading a characteristic's value.
        case read
        /// Writing a characteristic's value with a response.
        case write
        /// Writing a characteristic's value without a response.
        case writeWithoutResponse
        /// Reading a descriptor.
        case readDescriptor
        /// Writing a descriptor.
        case writeDescriptor
        /// Subscribing to notifications or indications.
        case subscribe
        /// Ending a subscription.
        case unsubscribe
        /// Notifying or indicating a value (the peripheral side).
        case notify
        /// Reading the link's signal strength.
        case readRSSI
        /// Opening an L2CAP channel to the peer on this PSM (`nil` when the platform does not say).
        case openChannel(psm: UInt16?)
        /// Publishing an L2CAP channel.
        case publishChannel
        /// Unpublishing an L2CAP channel.
        case unpublishChannel
        /// Publishing a service in the local GATT database.
        case addService
        /// Starting to advertise.
        case advertise
        /// Updating the connection parameters (LE Connection Update).
        case updateConnectionParameters
        /// Changing the link's PHY (LE Set PHY).
        case updatePHY
        /// Changing the link's data length (LE Set Data Length).
        case updateDataLength
        /// Pairing with the peer.
        case pair
        /// An ATT request with this opcode (Core Spec Vol 3 Part F §3.4.8).
        case attRequest(opcode: UInt8)
        /// A call of a remote distributed method, by its target name.
        case remoteCall(method: String)

        public var description: String {
            switch self {
            case .connect: "connecting"
            case .exchangeMTU: "the MTU exchange"
            case .discoverServices: "service discovery"
            case .discoverIncludedServices: "included service discovery"
            case .discoverCharacteristics: "characteristic discovery"
            case .discoverDescriptors: "descriptor discovery"
            case .read: "read"
            case .write: "write"
            case .writeWithoutResponse: "write without response"
            case .readDescriptor: "descriptor read"
            case .writeDescriptor: "descriptor write"
            case .subscribe: "subscribe"
            case .unsubscribe: "unsubscribe"
            case .notify: "notify"
            case .readRSSI: "RSSI read"
            case .openChannel(let psm?): "opening the L2CAP channel on PSM 0x\(hex4(psm))"
            case .openChannel(nil): "opening an L2CAP channel"
            case .publishChannel: "publishing an L2CAP channel"
            case .unpublishChannel: "unpublishing an L2CAP channel"
            case .addService: "adding a service"
            case .advertise: "advertising"
            case .updateConnectionParameters: "the connection parameter update"
            case .updatePHY: "the PHY update"
            case .updateDataLength: "the data length update"
            case .pair: "pairing"
            case .attRequest(let opcode): "the ATT request 0x\(hex2(opcode))"
            case .remoteCall(let method): "the call of \(method)"
            }
        }
    }

    /// An error a platform's Bluetooth stack reported (CoreBluetooth's `CBError` or
    /// `CBATTError`): its domain and code, which a caller can switch on, and its description.
    public struct PlatformError: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The error's domain, such as `CBErrorDomain`.
        public var domain: String
        /// The error's code in its domain.
        public var code: Int
        /// The platform's description of the error.
        public var message: String

        /// An error of `domain` with `code` and the platform's `message`.
        public init(domain: String, code: Int, message: String) {
            self.domain = domain
            self.code = code
            self.message = message
        }

        public var description: String { "\(message) (\(domain) \(code))" }
    }
}
