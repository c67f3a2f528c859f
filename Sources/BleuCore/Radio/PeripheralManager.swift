import Foundation

/// The peripheral role of a BLE radio: host GATT services, advertise, answer centrals'
/// requests and notify subscribers. Every backend implements it.
///
/// As with CoreBluetooth, the application answers every read and write of a characteristic
/// that has no static value, with a value or an ATT error; the backend enforces properties,
/// permissions and lengths before a request reaches the application.
///
/// Operations throw ``BleuError``: ``BleuError/bluetoothPoweredOff`` (or another unavailable
/// state) when the radio is not on, ``BleuError/invalidState(_:)`` for a request that makes no
/// sense now (removing a service never added, say).
public protocol PeripheralManager: AnyObject, Sendable {
    /// The identifier for state restoration given when the manager was created, if any.
    var restoreIdentifier: String? { get }

    /// The radio's current state.
    var state: ManagerState { get async }

    /// A new stream of everything the manager reports from now on, in order. It starts with
    /// ``PeripheralEvent/stateChanged(_:)`` carrying the current state, then
    /// ``PeripheralEvent/willRestoreState(_:)`` if the manager restored state. Each call returns
    /// an independent stream; requests are delivered to every stream, so exactly one component
    /// should answer them. A stream buffers a bounded number of events for a slow consumer and
    /// drops the oldest past that bound (an unanswered request then times out at the central).
    func events() -> AsyncStream<PeripheralEvent>

    // MARK: Services

    /// Publishes a service and returns it with its handles. Throws
    /// ``BleuError/invalidState(_:)`` for an invalid definition: a static value on a writable or
    /// notifying characteristic, a declared Client Characteristic Configuration descriptor, an
    /// included service not yet published, or a value over 512 bytes.
    func add(_ service: ServiceDefinition) async throws -> PublishedService

    /// Removes a published service. Throws ``BleuError/invalidState(_:)`` when it is not
    /// published (removed already, or published by another manager).
    func remove(_ service: PublishedService) async throws

    /// Removes every published service.
    func removeAllServices() async

    // MARK: Advertising

    /// Starts advertising this data, with a scan response if given; each must fit the legacy
    /// 31-byte limit (else ``BleuError/invalidData(_:)`` naming the field). Advertising again
    /// replaces the data. A connectable advertisement.
    func startAdvertising(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?) async throws

    /// Stops advertising.
    func stopAdvertising() async

    /// Whether the peripheral is advertising.
    var isAdvertising: Bool { get async }

    // MARK: Requests

    /// Answers a read request: with the bytes of the value from the request's offset on, or an
    /// ATT error (``ATTError/invalidOffset`` for an offset past the end). Bytes beyond what fits
    /// the response PDU are sent in later blob reads, which arrive as new requests. A second
    /// answer to the same request is ignored.
    func respond(to request: ReadRequest, with result: Result<Data, ATTError>) async

    /// Answers writes that need a response: success, or an ATT error that the central receives
    /// as ``BleuError/att(_:)``. A second answer, or an answer to writes that need none, is ignored.
    func respond(to request: WriteRequests, with result: Result<Void, ATTError>) async

    // MARK: Notifications

    /// Sends a new value of a characteristic to subscribed centrals (all of them when
    /// `centrals` is `nil`), as a notification or, when the characteristic only indicates, an
    /// indication. Returns `false` and sends nothing when the send queue is full;
    /// ``PeripheralEvent/readyToUpdateSubscribers`` follows when it drains. A value longer than
    /// a central's ``maximumUpdateValueLength(for:)`` is not sent to that central.
    func updateValue(_ value: Data, for characteristic: PublishedCharacteristic,
                     onSubscribedCentrals centrals: [UUID]?) async -> Bool

    /// The longest value one notification to the central can carry (ATT MTU − 3), or `nil`
    /// when the central is not connected.
    func maximumUpdateValueLength(for central: UUID) async -> Int?

    // MARK: Security

    /// How the link to `central` is protected, or `nil` when there is no link or the backend
    /// cannot tell.
    func securityLevel(of central: UUID) async -> SecurityLevel?

    /// Asks `central` to raise the link to at least `minimum` (an SMP Security Request) and
    /// returns once it has, by encrypting with its bond or pairing. Throws as
    /// ``CentralManager/pair(_:minimum:)`` does — ``BleuError/pairingFailed(_:)`` also when the
    /// central refuses or does not answer within the Security Manager's 30 seconds.
    func pair(_ central: UUID, minimum: SecurityLevel) async throws

    // MARK: L2CAP

    /// Publishes an L2CAP channel and returns the PSM the backend assigned (never one in use).
    /// Channels centrals open arrive as ``PeripheralEvent/l2capChannelOpened(_:)``. Throws
    /// ``BleuError/limitReached(_:)`` when every dynamic LE PSM (0x0080–0x00FF) is taken, or
    /// the radio's unavailable state.
    func publishL2CAPChannel(requiresEncryption: Bool) async throws -> UInt16

    /// Stops accepting channels on a PSM; open channels stay open. Throws
    /// ``BleuError/invalidState(_:)`` when the PSM is not published by this manager.
    func unpublishL2CAPChannel(_ psm: UInt16) async throws
}

extension PeripheralManager {
    /// Asks `central` to encrypt the link: ``pair(_:minimum:)`` with ``SecurityLevel/encrypted``.
    public func pair(_ central: UUID) async throws {
        try await pair(central, minimum: .encrypted)
    }

    /// A backend that cannot tell: `nil`.
    public func securityLevel(of central: UUID) async -> SecurityLevel? { nil }

    /// A backend that cannot ask for security: throws ``BleuError/notSupported(_:)`` with
    /// ``BleuError/Unsupported/explicitPairing``.
    public func pair(_ central: UUID, minimum: SecurityLevel) async throws {
        throw BleuError.notSupported(.explicitPairing)
    }

    /// Advertises without a scan response.
    public func startAdvertising(_ advertisement: AdvertisingData) async throws {
        try await startAdvertising(advertisement, scanResponse: nil)
    }

    /// Sends a new value to every subscribed central.
    public func updateValue(_ value: Data, for characteristic: PublishedCharacteristic) async -> Bool {
        await updateValue(value, for: characteristic, onSubscribedCentrals: nil)
    }
}
