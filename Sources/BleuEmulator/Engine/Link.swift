import BleuATT
import BleuCore
import DequeModule
import Foundation

/// A connection between a central and a peripheral.
struct Link {
    let id: LinkID
    let central: CentralKey
    let peripheral: PeripheralKey
    /// The peripheral as the central knows it.
    let peripheralID: UUID
    /// The central as the peripheral knows it.
    let centralID: UUID
    var mtu = EmulatorConfiguration.minimumMTU
    var security: SecurityLevel = .unencrypted
    /// What the server's access rules see of this link. The emulator's pairing gives full-size
    /// keys, and no application authorizes clients yet.
    var linkSecurity: LinkSecurity { LinkSecurity(level: security) }
    /// Set once the MTU exchange completed and the central was told it is connected.
    var isUp = false
    /// When the link went silent (realistic timing: reported after the supervision timeout).
    var lostAt: Duration?
    var client = ClientState()
    var server = ServerState()
    /// Central side: the characteristics it enabled, by value handle.
    var subscriptions: [UInt16: RemoteCharacteristic] = [:]
    /// Central side: the value streams of each subscribed value handle.
    var valueStreams: [UInt16: [StreamID]] = [:]
    /// Notifications released to the air and not yet delivered, by value handle.
    var inFlight: [UInt16: Int] = [:]
    /// Peripheral side: notifications and indications waiting for the link.
    var outbox: Deque<OutgoingValue> = []
    var indicationInFlight = false
    /// Peripheral side: this link's share of the peripheral's notification queue.
    var queuedValues = 0
    var writesInFlight = 0
    var writeReadyPending = false
    var pairing: PairingProcedure?
    var nextSignalIdentifier: UInt8 = 1
    /// An encryption start between external hosts, under way.
    var externalEncryption: ExternalEncryption?
    /// External ends whose host left the air (it hears nothing more of the link).
    var externalGone: Set<ExternalRole> = []
}

struct OutgoingValue {
    var handle: UInt16
    var value: Data
    var indication: Bool
}

struct ClientState {
    var operations: Deque<ClientOperation> = []
    /// A request is outstanding (or the head operation waits for pairing or a delay).
    var busy = false
}

struct ClientOperation {
    let id: OperationID
    var kind: ClientOperationKind
    /// The shared GATT client procedure, once the operation has started.
    var procedure: GATTProcedure?
    var deadline: Duration?
    var securityRetried = false
}

enum ClientOperationKind {
    case exchangeMTU
    case discoverServices(filter: [BluetoothUUID]?)
    case discoverIncluded(service: RemoteService, filter: [BluetoothUUID]?)
    case discoverCharacteristics(service: RemoteService, filter: [BluetoothUUID]?)
    case discoverDescriptors(characteristic: RemoteCharacteristic)
    case read(handle: UInt16)
    case write(handle: UInt16, value: Data)
    /// Finds the characteristic's CCCD and writes `bits` to it.
    /// With a `sink`, the new value stream pushes to it.
    case configure(characteristic: RemoteCharacteristic, bits: UInt16, sink: StreamSink? = nil)

    var name: String {
        switch self {
        case .exchangeMTU: "MTU exchange"
        case .discoverServices: "service discovery"
        case .discoverIncluded: "included service discovery"
        case .discoverCharacteristics: "characteristic discovery"
        case .discoverDescriptors: "descriptor discovery"
        case .read: "read"
        case .write: "write"
        case .configure: "notification configuration"
        }
    }

    /// The operation as errors name it.
    var operation: BleuError.Operation {
        switch self {
        case .exchangeMTU: .exchangeMTU
        case .discoverServices: .discoverServices
        case .discoverIncluded: .discoverIncludedServices
        case .discoverCharacteristics: .discoverCharacteristics
        case .discoverDescriptors: .discoverDescriptors
        case .read: .read
        case .write: .write
        case .configure(_, let bits, _): bits == 0 ? .unsubscribe : .subscribe
        }
    }
}

struct ServerState {
    /// The shared ATT server's state for this client: MTU, security, CCCD values, prepared writes.
    var connection = ATTServerConnection()
    /// The request the application has not answered yet (ATT allows one at a time).
    var pending: PendingServerRequest?
    /// Value handle → CCCD bits for this central.
    var configurations: [UInt16: UInt16] { connection.clientConfigurations }
}

struct PendingServerRequest {
    enum Operation {
        case read(ATTReadOperation)
        case write(ATTWriteOperation)
    }

    let id: UInt64
    let operation: Operation
}
