extension BleuError {
    /// What is not supported, and by whom (``BleuError/notSupported(_:)``).
    public enum Unsupported: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The characteristic's properties, as the peripheral declares them, do not allow the
        /// operation (writes, writes without response, subscriptions).
        case characteristicProperties(BluetoothUUID, CharacteristicProperties, Operation)
        /// The peer has no L2CAP channel published on this PSM (result 0x0002, SPSM not supported).
        case channelNotPublished(psm: UInt16)
        /// The peer does not support LE credit-based channels at all.
        case creditBasedChannels
        /// The backend cannot publish a descriptor of this type (CoreBluetooth publishes only
        /// the user description, 0x2901, and presentation format, 0x2904, descriptors).
        case descriptor(BluetoothUUID)
        /// The backend cannot advertise a field of this AD type (CoreBluetooth's peripheral role
        /// advertises only a local name and service UUIDs).
        case advertisingField(adType: UInt8)
        /// The backend writes the Client Characteristic Configuration descriptor itself; use
        /// subscribe and unsubscribe.
        case clientConfigurationWrite
        /// The actor system has no central manager, so it cannot do what a central does.
        case noCentralRole
        /// The actor system has no peripheral manager, so it cannot host or advertise actors.
        case noPeripheralRole
        /// The backend pairs only when the peer's attributes require it: it has no call that
        /// pairs or asks for security (CoreBluetooth).
        case explicitPairing
        /// The platform's Bluetooth stack does not support the operation.
        case platform(PlatformError)

        public var description: String {
            switch self {
            case .characteristicProperties(let uuid, let properties, let operation):
                "characteristic \(uuid) does not allow \(operation) (its properties are \(properties))"
            case .channelNotPublished(let psm): "the peripheral has no L2CAP channel published on PSM 0x\(hex4(psm))"
            case .creditBasedChannels: "the peer does not support LE credit-based channels"
            case .descriptor(let uuid):
                "the backend publishes only user description (0x2901) and presentation format (0x2904) descriptors, not \(uuid)"
            case .advertisingField(let type):
                "the backend advertises only a local name and service UUIDs, not AD type 0x\(hex2(type))"
            case .clientConfigurationWrite:
                "the backend writes the Client Characteristic Configuration descriptor itself; use subscribe(to:) and unsubscribe(from:)"
            case .noCentralRole: "this actor system has no central manager"
            case .noPeripheralRole: "this actor system has no peripheral manager"
            case .explicitPairing:
                "this backend pairs only when the peer's attributes require it; it has no call that pairs or asks for security"
            case .platform(let error): "\(error)"
            }
        }
    }
}
