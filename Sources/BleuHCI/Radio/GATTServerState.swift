import BleuATT
import BleuCore
import Foundation

/// Our GATT server, on every link in both roles: the database it serves, each client's
/// server-side ATT state (MTU, CCCDs, prepared writes), the read and write requests the
/// application has yet to answer, and the queue of values pushed to subscribers.
///
/// BleuATT's ``/BleuATT/ATTServer`` decides what each PDU asks; this value keeps the state
/// around it and says what the radio must do (``Step``).
struct GATTServerState {
    /// A request the application must answer, with what the answer is sent as.
    enum PendingRequest: Sendable {
        case read(ConnectionHandle, ATTReadOperation)
        case write(ConnectionHandle, ATTWriteOperation)

        var handle: ConnectionHandle {
            switch self {
            case .read(let handle, _), .write(let handle, _): handle
            }
        }
    }

    /// What to do about a PDU from a client.
    enum Step {
        case respond(ATTPDU)
        /// Ask the application for a value; answer `id` when it has not within its time.
        case read(ATTRequestID, ATTReadOperation)
        /// Hand the writes to the application; answer `id` if it needs an answer and the
        /// application gives none within its time.
        case write(ATTRequestID, ATTWriteOperation)
        /// The client wrote a CCCD: send `response` (if any); `toggled` when an application
        /// characteristic's subscription turned on or off.
        case subscriptionChanged(PublishedCharacteristic, configuration: UInt16, response: ATTPDU?, toggled: Bool)
        /// A second request before we answered the first (Vol 3 Part F §3.3.2): dropped.
        case droppedRequest(ATTOpcode)
        case ignore
    }

    private struct Client {
        let peer: UUID
        var connection: ATTServerConnection
    }

    private(set) var database: GATTDatabase
    private var clients: [ConnectionHandle: Client] = [:]
    private(set) var pendingRequests: [ATTRequestID: PendingRequest] = [:]
    private var lastRequestID: UInt64 = 0
    /// Values pushed to subscribers.
    var updates: ValueUpdateQueue

    init(deviceName: String, appearance: UInt16, updateQueueDepth: Int) {
        database = GATTDatabase(deviceName: deviceName, appearance: appearance)
        updates = ValueUpdateQueue(depth: updateQueueDepth)
    }

    // MARK: Links

    /// A client connected; the access rules accept its encrypted requests when the key has at
    /// least `minimumKeySize` octets.
    mutating func linkOpened(_ handle: ConnectionHandle, peer: UUID, maxMTU: Int, minimumKeySize: Int = 7) {
        clients[handle] = Client(peer: peer, connection: ATTServerConnection(maxMTU: maxMTU, minimumKeySize: minimumKeySize))
        updates.linkOpened(handle)
    }

    /// The link went down: its client's state and unanswered requests go. Returns the client's
    /// CCCD values, and whether the application is now due its ready event.
    mutating func linkClosed(_ handle: ConnectionHandle) -> (configurations: [UInt16: UInt16], ready: Bool) {
        pendingRequests = pendingRequests.filter { $0.value.handle != handle }
        let ready = updates.linkClosed(handle)
        return (clients.removeValue(forKey: handle)?.connection.clientConfigurations ?? [:], ready)
    }

    /// Sets the bearer's MTU (after an exchange our own client made).
    mutating func setMTU(_ mtu: Int, on handle: ConnectionHandle) {
        clients[handle]?.connection.setMTU(mtu)
    }

    /// How the link of `handle` is protected now: the access rules answer its client's
    /// requests by it.
    mutating func setSecurity(_ security: LinkSecurity, on handle: ConnectionHandle) {
        clients[handle]?.connection.security = security
    }

    // MARK: PDUs from clients

    /// Takes a request, command or confirmation from the client of `handle`; also returns the
    /// bearer's new MTU when the PDU changed it.
    mutating func receive(_ bytes: [UInt8], on handle: ConnectionHandle) -> (step: Step, mtu: Int?) {
        guard var client = clients[handle] else { return (.ignore, nil) }
        // A client has one request outstanding at a time (Vol 3 Part F §3.3.2): one that sends
        // another before we answered breaks the protocol; its request is dropped, which also
        // bounds what the application is asked at once.
        let opcode = ATTOpcode(rawValue: bytes.first ?? 0)
        if opcode.method == .request, pendingRequests.values.contains(where: { $0.handle == handle }) {
            return (.droppedRequest(opcode), nil)
        }
        let before = client.connection.clientConfigurations
        let mtuBefore = client.connection.mtu
        let action = ATTServer.handle(bytes, database: database, connection: &client.connection)
        clients[handle] = client
        let mtu = client.connection.mtu != mtuBefore ? client.connection.mtu : nil
        switch action {
        case .respond(let pdu):
            return (.respond(pdu), mtu)
        case .read(let operation):
            let id = newRequestID()
            pendingRequests[id] = .read(handle, operation)
            return (.read(id, operation), mtu)
        case .write(let operation):
            let id = newRequestID()
            if operation.request != nil { pendingRequests[id] = .write(handle, operation) }
            return (.write(id, operation), mtu)
        case let .subscriptionChanged(characteristic, configuration, response):
            let was = before[characteristic.valueHandle] ?? 0
            let toggled = characteristic.service != BluetoothUUID.Service.genericAttribute && (was == 0) != (configuration == 0)
            return (.subscriptionChanged(characteristic, configuration: configuration, response: response, toggled: toggled), mtu)
        case .ignore:
            return (.ignore, mtu)
        }
    }

    private mutating func newRequestID() -> ATTRequestID {
        lastRequestID += 1
        return ATTRequestID(lastRequestID)
    }

    // MARK: Answers

    /// The response to read request `id` (and the link it goes on), when it still waits.
    mutating func answerRead(_ id: ATTRequestID, with result: Result<Data, ATTError>) -> (ConnectionHandle, ATTPDU)? {
        guard case let .read(handle, operation)? = pendingRequests.removeValue(forKey: id),
              let mtu = clients[handle]?.connection.mtu else { return nil }
        switch result {
        case .success(let value): return (handle, operation.response(value: Array(value), mtu: mtu))
        case .failure(let error): return (handle, operation.response(error: error))
        }
    }

    /// The response to write request `id` (and the link it goes on), when it still waits and
    /// one is due.
    mutating func answerWrite(_ id: ATTRequestID, with result: Result<Void, ATTError>) -> (ConnectionHandle, ATTPDU)? {
        guard case let .write(handle, operation)? = pendingRequests.removeValue(forKey: id) else { return nil }
        let pdu = switch result {
        case .success: operation.successResponse
        case .failure(let error): operation.response(error: error)
        }
        return pdu.map { (handle, $0) }
    }

    /// The error response to request `id`, which the application left unanswered.
    mutating func answerUnanswered(_ id: ATTRequestID, with error: ATTError) -> (ConnectionHandle, ATTPDU)? {
        switch pendingRequests.removeValue(forKey: id) {
        case let .read(handle, operation)?: (handle, operation.response(error: error))
        case let .write(handle, operation)?: operation.response(error: error).map { (handle, $0) }
        case nil: nil
        }
    }

    // MARK: Services

    /// The application's characteristic whose value is at `valueHandle`, if any.
    func applicationCharacteristic(_ valueHandle: UInt16) -> PublishedCharacteristic? {
        guard let characteristic = database.attribute(valueHandle)?.characteristic,
              characteristic.service != BluetoothUUID.Service.genericAttribute else { return nil }
        return characteristic
    }

    mutating func add(_ definition: ServiceDefinition) throws -> PublishedService {
        try database.add(definition)
    }

    mutating func remove(_ service: PublishedService) throws {
        try database.remove(service)
    }

    /// Removes every service the application added; returns the handles they spanned.
    mutating func removeAllServices() -> (start: UInt16, end: UInt16)? {
        let services = database.services.map(\.published).filter {
            $0.uuid != BluetoothUUID.Service.genericAccess && $0.uuid != BluetoothUUID.Service.genericAttribute
        }
        for service in services { try? database.remove(service) }
        guard let first = services.first, let last = services.last else { return nil }
        return (first.handle, last.endHandle)
    }

    /// Queues a Service Changed indication of `start…end` for every client that asked for them.
    /// Returns the links that got one.
    mutating func indicateServicesChanged(_ start: UInt16, _ end: UInt16) -> [ConnectionHandle] {
        let handle = database.serviceChangedHandle
        var range: [UInt8] = []
        range.appendLE(start)
        range.appendLE(end)
        let targets = clients.filter { $0.value.connection.isSubscribed(handle, indications: true) }.map(\.key)
        for target in targets { updates.enqueue(.init(handle: handle, value: range, indication: true), on: target) }
        return targets
    }

    // MARK: Updates

    /// Whether `characteristic` is still the one the database holds at its value handle.
    func holds(_ characteristic: PublishedCharacteristic) -> Bool {
        database.attribute(characteristic.valueHandle)?.characteristic?.uuid == characteristic.uuid
    }

    /// The links whose clients subscribed to `characteristic` (only `centrals`' when given) and
    /// take a value of `length` bytes (their MTU − 3); each with whether it gets an indication
    /// (it subscribed to indications only).
    func subscribers(of characteristic: PublishedCharacteristic, centrals: [UUID]?, length: Int)
        -> [(handle: ConnectionHandle, indication: Bool)] {
        let valueHandle = characteristic.valueHandle
        return clients.compactMap { handle, client in
            let notify = client.connection.isSubscribed(valueHandle, indications: false)
            guard notify || client.connection.isSubscribed(valueHandle, indications: true) else { return nil }
            if let centrals, !centrals.contains(client.peer) { return nil }
            guard length <= client.connection.mtu - 3 else { return nil }
            return (handle, !notify)
        }
    }
}
