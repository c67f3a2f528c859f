import BleuATT
import BleuCore
import DequeModule
import Foundation

typealias OperationID = UInt64

/// What an operation a manager waits on completes with.
enum OperationResult: Sendable {
    case done
    case data(Data)
    case services([RemoteService])
    case characteristics([RemoteCharacteristic])
    case descriptors([RemoteDescriptor])
    case stream(Int)
    case channel(Int)
}

/// Asks the test (the central's user) to enter the passkey the peripheral displays.
public struct PasskeyRequest: Sendable, Hashable {
    /// The peripheral, as the central knows it.
    public var peripheral: UUID
    /// The six-digit passkey the peripheral displays (0–999999).
    public var displayedPasskey: UInt32
}

/// Answers a ``PasskeyRequest`` with the passkey entered, or `nil` to cancel pairing.
public typealias PasskeyHandler = @Sendable (PasskeyRequest) async -> UInt32?

/// What the bus keeps of a device whatever its role: which manager owns it, and its radio state.
protocol ManagedNode {
    /// Counts the managers that took the node over (restoration); only the latest may use it.
    var generation: Int { get }
    /// Whether a manager owns the node (a restorable node waits, unattached, for its successor).
    var attached: Bool { get }
    var state: ManagerState { get }
}

/// A central device on the bus and its state; survives its manager when restorable.
struct CentralNode: ManagedNode {
    let key: Int
    let address: UInt64
    let restoreIdentifier: String?
    var generation = 0
    var attached = true
    var hub: EventHub<CentralEvent>
    var state: ManagerState = .poweredOn
    var mtu: Int
    var scan: ScanSession?
    /// Peripherals this central knows: its identifier for them → their key.
    var known: [UUID: Int] = [:]
    var names: [Int: String] = [:]
    /// Peripheral key → link.
    var links: [Int: Int] = [:]
    /// Peripheral key → connection attempt.
    var pending: [Int: PendingConnection] = [:]
    var radio = RadioSchedule()
    var passkeyHandler: PasskeyHandler?
    var restoration: CentralRestoration?
}

struct PendingConnection {
    let attempt: UInt64
    /// The peripheral as the central knows it.
    let peripheralID: UUID
    var waiters: [OperationID]
    var establishing = false
}

struct ScanSession {
    let id: UInt64
    var options: ScanOptions
    var stream: Int?
    var reported: Set<Int> = []
    /// Peripherals heard while the stream was full (instant timing), reported when it has room.
    var backlog: Deque<Int> = []
}

/// A peripheral device on the bus and its state.
struct PeripheralNode: ManagedNode {
    let key: Int
    let address: UInt64
    let restoreIdentifier: String?
    var generation = 0
    var attached = true
    var hub: EventHub<PeripheralEvent>
    var state: ManagerState = .poweredOn
    var mtu: Int
    /// The application's services, without GAP and GATT, which a platform keeps to itself.
    var database = GATTDatabase(empty: 0xFFFE)
    var advertising: AdvertisingState?
    var distance: Double
    /// Central key → link.
    var links: [Int: Int] = [:]
    var queuedValues = 0
    var readyPending = false
    /// Request id → link, for requests the application has not answered.
    var requests: [UInt64: Int] = [:]
    var psms: [UInt16: Bool] = [:]
    var restoration: PeripheralRestoration?
}

struct AdvertisingState {
    let id: UInt64
    var advertisement: AdvertisingData
    var scanResponse: AdvertisingData?
    /// What a scanner decodes from the bytes on air: advertising data and scan response merged.
    var heard: AdvertisingData
    /// The advertising data's length on air.
    var length: Int
    var since: Duration
}

/// A connection between a central and a peripheral.
struct Link {
    let id: Int
    let central: Int
    let peripheral: Int
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
    var valueStreams: [UInt16: [Int]] = [:]
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
    case configure(characteristic: RemoteCharacteristic, bits: UInt16)

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

/// A pairing (or an encryption with a bond's keys) in progress on a link.
struct PairingProcedure {
    let id: UInt64
    /// The messages still to go, each sent when the one before it is delivered.
    var steps: Deque<PairingStep>
    var level: SecurityLevel
    var passkey: UInt32?
    var bonds: Bool
    /// What waits for the outcome.
    var resumptions: [PairingResumption] = []
}

enum PairingStep {
    case smp(SMPMessage)
    case encryption(EncryptionStep)
    /// The central's user enters the passkey the peripheral displays.
    case enterPasskey
}

enum PairingResumption {
    /// Resend the head ATT request.
    case attRequest
    /// Resend a channel connection request.
    case channelOpen(Int)
}

struct BondKey: Hashable {
    var central: UInt64
    var peripheral: UInt64
}

/// A value stream the engine feeds: a subscription, a scan, or an L2CAP channel's input.
struct ValueStream {
    enum Owner {
        case subscription(link: Int, handle: UInt16)
        case scan(central: Int)
        case channel(Int, side: Int)
    }

    enum Element {
        case data(Data)
        case advertisement(Advertisement)
    }

    let owner: Owner
    let limit: Int
    var buffer: Deque<Element> = []
    var waiter: CheckedContinuation<Element?, any Error>?
    /// Set when the stream ends: `nil` error for a normal end.
    var end: (any Error)??

    var hasRoom: Bool { buffer.count < limit }
}
