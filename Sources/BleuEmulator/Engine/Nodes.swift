import BleuATT
import BleuCore
import DequeModule
import Foundation

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
    let key: CentralKey
    /// Its 48-bit address; an external device's host may change it (LE Set Random Address).
    var address: UInt64
    let restoreIdentifier: String?
    var generation = 0
    var attached = true
    var hub: EventHub<CentralEvent>
    var state: ManagerState = .poweredOn
    var mtu: Int
    var scan: BusScan?
    /// Peripherals this central knows: its identifier for them → their key.
    var known: [UUID: PeripheralKey] = [:]
    var names: [PeripheralKey: String] = [:]
    /// Peripheral key → link.
    var links: [PeripheralKey: LinkID] = [:]
    /// Peripheral key → connection attempt.
    var pending: [PeripheralKey: PendingConnection] = [:]
    var radio = RadioSchedule()
    var passkeyHandler: PasskeyHandler?
    var restoration: CentralRestoration?
    /// The host of an external device (an HCI host on a virtual controller).
    var external: ExternalHost?
    /// An external device's LE Create Connection waiting for this address to advertise.
    var awaitedAddress: UInt64?
}

struct PendingConnection {
    let attempt: UInt64
    /// The peripheral as the central knows it.
    let peripheralID: UUID
    var waiters: [OperationID]
    var establishing = false
}

struct BusScan {
    let id: UInt64
    var options: ScanOptions
    var stream: StreamID?
    var reported: Set<PeripheralKey> = []
    /// Peripherals heard while the stream was full (instant timing), reported when it has room.
    var backlog: Deque<PeripheralKey> = []
    /// An external scanner's active scanning: it also hears scan responses.
    var active = true
}

/// A peripheral device on the bus and its state.
struct PeripheralNode: ManagedNode {
    let key: PeripheralKey
    /// Its 48-bit address; an external device's host may change it (LE Set Random Address).
    var address: UInt64
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
    var links: [CentralKey: LinkID] = [:]
    var queuedValues = 0
    var readyPending = false
    /// Request id → link, for requests the application has not answered.
    var requests: [UInt64: LinkID] = [:]
    var psms: [UInt16: Bool] = [:]
    var restoration: PeripheralRestoration?
    /// The host of an external device (an HCI host on a virtual controller).
    var external: ExternalHost?
}

struct AdvertisingState {
    let id: UInt64
    var advertisement: AdvertisingData
    var scanResponse: AdvertisingData?
    /// Whether centrals may connect (a non-connectable advertisement only broadcasts).
    var connectable = true
    /// What a scanner decodes from the bytes on air: advertising data and scan response merged.
    var heard: AdvertisingData
    /// The advertising data's length on air.
    var length: Int
    var since: Duration
    /// The advertising data's bytes on air, as external scanners get them.
    var bytes: [UInt8] = []
    /// The scan response's bytes on air (empty: none).
    var scanResponseBytes: [UInt8] = []
}
