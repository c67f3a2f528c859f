import Foundation

/// The central role of a BLE radio: scan, connect, discover and use a peripheral's GATT
/// services. Every backend implements it (the emulator, the HCI host stack and CoreBluetooth);
/// everything above BleuCore talks only to this protocol.
///
/// Semantics follow CoreBluetooth's: one scan at a time; a write without response is
/// flow-controlled (``canSendWriteWithoutResponse(to:)`` and
/// ``CentralEvent/readyToSendWriteWithoutResponse(_:)``); values longer than
/// ``maximumWriteValueLength(for:type:)`` are refused, not truncated.
///
/// Unless a requirement says otherwise, operations throw ``BleuError``:
/// ``BleuError/bluetoothPoweredOff`` (or another unavailable state) when the radio is not on,
/// ``BleuError/notConnected(_:)`` or ``BleuError/disconnected(_:_:)`` when there is no link or
/// it drops during the operation, ``BleuError/att(_:)`` when the peripheral answers with an ATT
/// error, and ``BleuError/timeout(_:after:)`` after the ATT transaction timeout (30 s).
/// Cancelling the calling task cancels the operation with ``BleuError/cancelled``.
public protocol CentralManager: AnyObject, Sendable {
    /// The identifier for state restoration given when the manager was created, if any.
    var restoreIdentifier: String? { get }

    /// The radio's current state.
    var state: ManagerState { get async }

    /// A new stream of everything the manager reports from now on, in order. It starts with
    /// ``CentralEvent/stateChanged(_:)`` carrying the current state, then
    /// ``CentralEvent/willRestoreState(_:)`` if the manager restored state. Each call returns an
    /// independent stream; end it by ending its iteration. A stream buffers a bounded number of
    /// events for a slow consumer and drops the oldest past that bound.
    func events() -> AsyncStream<CentralEvent>

    // MARK: Scanning

    /// Starts scanning and returns the advertisements received. Without
    /// ``ScanOptions/allowDuplicates`` each peripheral is reported once per scan. Starting a
    /// scan ends the one running; the stream also ends on ``stopScan()``, when the radio
    /// powers off (with ``BleuError/bluetoothPoweredOff``), or when its consumer stops iterating.
    func scan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error>

    /// Stops the running scan, if any.
    func stopScan() async

    // MARK: Connections

    /// Connects to a peripheral seen in a scan or retrieved by identifier, returning once the
    /// link is up. Throws ``BleuError/connectionTimeout(_:)`` after `timeout` (`nil` waits as
    /// long as the backend's own limit), ``BleuError/connectionFailed(_:reason:)``,
    /// ``BleuError/peripheralNotFound(_:)`` for an identifier this manager never saw, or
    /// ``BleuError/limitReached(_:)`` when the central has as many connections as it can hold.
    /// Connecting to a connected peripheral returns at once.
    func connect(_ peripheral: UUID, timeout: Duration?) async throws

    /// Disconnects from a peripheral or cancels a pending connection attempt. Subscriptions on
    /// the link end; ``CentralEvent/disconnected(_:_:)`` follows with
    /// ``DisconnectReason/localHostTerminated``. Does nothing when not connected.
    func cancelConnection(_ peripheral: UUID) async

    /// Whether the peripheral is connected now.
    func isConnected(_ peripheral: UUID) async -> Bool

    /// The peripherals among `identifiers` that this manager knows (seen in a scan, connected
    /// before, or bonded), so they can be connected without scanning.
    func retrievePeripherals(withIdentifiers identifiers: [UUID]) async -> [KnownPeripheral]

    /// The connected peripherals that host at least one of `services` (all connected ones when
    /// `services` is empty).
    func retrieveConnectedPeripherals(withServices services: [BluetoothUUID]) async -> [KnownPeripheral]

    // MARK: Discovery

    /// Discovers the peripheral's primary services; all of them when `uuids` is `nil`. Returns
    /// an empty array when the peripheral hosts none of them (the server's Attribute Not Found
    /// ends the procedure; it is not an error). Throws the common errors above: no link,
    /// ``BleuError/att(_:)`` for any other error response, ``BleuError/timeout(_:after:)``.
    func discoverServices(_ uuids: [BluetoothUUID]?, on peripheral: UUID) async throws -> [RemoteService]

    /// Discovers the services that `service` includes; all of them when `uuids` is `nil`; an
    /// empty array when it includes none. Throws as ``discoverServices(_:on:)`` does. After
    /// ``CentralEvent/servicesChanged(_:)`` a `service` from before may be stale: discover the
    /// services again first.
    func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteService]

    /// Discovers the characteristics of a service; all of them when `uuids` is `nil`; an empty
    /// array when it has none of them. Throws as ``discoverServices(_:on:)`` does; after
    /// ``CentralEvent/servicesChanged(_:)`` discover the services again first.
    func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteCharacteristic]

    /// Discovers the descriptors of a characteristic (an empty array when it has none). Throws
    /// as ``discoverServices(_:on:)`` does.
    func discoverDescriptors(for characteristic: RemoteCharacteristic) async throws -> [RemoteDescriptor]

    // MARK: Reading and writing

    /// Reads a characteristic's whole value (long reads included, up to 512 bytes).
    func read(_ characteristic: RemoteCharacteristic) async throws -> Data

    /// Writes a characteristic value.
    ///
    /// - ``WriteType/withResponse`` returns when the peripheral confirms the write; values up to
    ///   512 bytes, longer than one PDU, go as a long (prepared) write.
    /// - ``WriteType/withoutResponse`` returns once the PDU is queued on the link. The value must
    ///   fit ``maximumWriteValueLength(for:type:)`` (else ``BleuError/valueTooLong(length:maximum:)``);
    ///   when the queue is full it throws ``BleuError/sendQueueFull(_:)`` and sends nothing —
    ///   wait for ``CentralEvent/readyToSendWriteWithoutResponse(_:)``.
    ///
    /// Throws ``BleuError/notSupported(_:)`` when the characteristic's properties do not allow
    /// the write type.
    func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws

    /// Whether a write without response to the peripheral would be accepted now.
    func canSendWriteWithoutResponse(to peripheral: UUID) async -> Bool

    /// Reads a descriptor's value.
    func read(_ descriptor: RemoteDescriptor) async throws -> Data

    /// Writes a descriptor's value. Use ``subscribe(to:)`` rather than writing a Client
    /// Characteristic Configuration descriptor.
    func write(_ value: Data, to descriptor: RemoteDescriptor) async throws

    // MARK: Notifications

    /// Enables notifications (or indications, when the characteristic only indicates) and
    /// returns the values the peripheral sends from now on. The configuration descriptor is
    /// written on the first subscription; each further call returns another stream of the same
    /// values. Streams end on ``unsubscribe(from:)``, and end with
    /// ``BleuError/disconnected(_:_:)`` when the link drops. A stream holds a bounded number of
    /// values for a slow consumer: past that the backend either holds back the link or ends
    /// the stream with ``BleuError/bufferOverflow(_:)`` — it never drops values silently.
    /// Throws ``BleuError/notSupported(_:)`` when the characteristic neither notifies nor indicates.
    func subscribe(to characteristic: RemoteCharacteristic) async throws -> AsyncThrowingStream<Data, any Error>

    /// Enables notifications as ``subscribe(to:)`` does, and hands the values to `receive` as
    /// they arrive, in order, then the subscription's end (`nil` on ``unsubscribe(from:)``, else
    /// the error that ended it, such as ``BleuError/disconnected(_:_:)``) once, unless
    /// ``ValueSubscription/cancel()`` came first.
    ///
    /// A receiver that only hands a value on (resumes a waiting task, fills a bounded buffer)
    /// saves a task switch per value against iterating a stream: a backend may call `receive`
    /// on its own thread, as it takes the value from the radio. So `receive` must return
    /// quickly, must not block, and must not call into this manager synchronously. The default
    /// implementation drains ``subscribe(to:)`` in a task of its own.
    func subscribe(to characteristic: RemoteCharacteristic,
                   receive: @escaping @Sendable (ValueDelivery) -> Void) async throws -> ValueSubscription

    /// Disables notifications and indications and ends the characteristic's value streams.
    func unsubscribe(from characteristic: RemoteCharacteristic) async throws

    // MARK: Link properties

    /// The ATT MTU negotiated with the peripheral (23 to 517). Throws
    /// ``BleuError/notConnected(_:)`` when there is no link (or the radio's unavailable state);
    /// it sends nothing, so it never times out.
    func attMTU(for peripheral: UUID) async throws -> Int

    /// The longest value one write of this type can carry: ATT MTU − 3 without response;
    /// 512 with response (long writes). Throws as ``attMTU(for:)`` does.
    func maximumWriteValueLength(for peripheral: UUID, type: WriteType) async throws -> Int

    /// Reads the connection's received signal strength, in dBm. Throws
    /// ``BleuError/notConnected(_:)`` when there is no link (or the radio's unavailable state),
    /// ``BleuError/disconnected(_:_:)`` when it drops before the controller answers.
    func readRSSI(of peripheral: UUID) async throws -> Int

    // MARK: Security

    /// How the link to `peripheral` is protected (LE security mode 1: unencrypted, encrypted,
    /// authenticated), or `nil` when there is no link or the backend cannot tell (CoreBluetooth
    /// does not say).
    func securityLevel(of peripheral: UUID) async -> SecurityLevel?

    /// Raises the link to `peripheral` to at least `minimum` and returns once it is there: the
    /// link is encrypted with the bond's key when the bond is strong enough, else the devices
    /// pair (asking the user what the association model needs). A backend also does this by
    /// itself when a request fails with Insufficient Authentication or Encryption, as
    /// CoreBluetooth does.
    ///
    /// Throws ``BleuError/pairingFailed(_:)`` with the cause (an SMP reason such as
    /// ``SMPReason/authenticationRequirements`` when the devices cannot reach `minimum`, a
    /// failed encryption, the timeout), ``BleuError/notConnected(_:)`` without a link, and
    /// ``BleuError/notSupported(_:)`` with ``BleuError/Unsupported/explicitPairing`` on a backend
    /// that pairs only when an attribute requires it (CoreBluetooth).
    func pair(_ peripheral: UUID, minimum: SecurityLevel) async throws

    // MARK: L2CAP

    /// Opens an LE credit-based L2CAP channel to a PSM the peripheral published, returning once
    /// the peripheral accepted it. Throws ``BleuError/notSupported(_:)`` when nothing is
    /// published on the PSM (L2CAP result "SPSM not supported"),
    /// ``BleuError/att(_:)`` with ``ATTError/insufficientEncryption`` when the channel requires
    /// encryption and the link could not be encrypted, ``BleuError/notConnected(_:)`` or
    /// ``BleuError/disconnected(_:_:)`` without a link, and ``BleuError/timeout(_:after:)``
    /// when the peripheral does not answer.
    func openL2CAPChannel(psm: UInt16, on peripheral: UUID) async throws -> any L2CAPChannel
}

extension CentralManager {
    /// Drains ``subscribe(to:)`` in a task of its own.
    public func subscribe(to characteristic: RemoteCharacteristic,
                          receive: @escaping @Sendable (ValueDelivery) -> Void) async throws -> ValueSubscription {
        ValueSubscription(draining: try await subscribe(to: characteristic), into: receive)
    }

    /// Scans with the default options: every advertiser, each reported once.
    public func scan() async throws -> AsyncThrowingStream<Advertisement, any Error> {
        try await scan(ScanOptions())
    }

    /// Connects without a timeout of the caller's own.
    public func connect(_ peripheral: UUID) async throws {
        try await connect(peripheral, timeout: nil)
    }

    /// Encrypts the link to `peripheral` (from the bond, or by pairing): ``pair(_:minimum:)``
    /// with ``SecurityLevel/encrypted``.
    public func pair(_ peripheral: UUID) async throws {
        try await pair(peripheral, minimum: .encrypted)
    }

    /// A backend that cannot tell: `nil`.
    public func securityLevel(of peripheral: UUID) async -> SecurityLevel? { nil }

    /// A backend with no call that pairs: throws ``BleuError/notSupported(_:)`` with
    /// ``BleuError/Unsupported/explicitPairing``.
    public func pair(_ peripheral: UUID, minimum: SecurityLevel) async throws {
        throw BleuError.notSupported(.explicitPairing)
    }
}
