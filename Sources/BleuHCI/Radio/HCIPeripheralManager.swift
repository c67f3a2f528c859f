import BleuCore
import Foundation

/// The peripheral role of an ``HCIRadio``: BleuCore's ``/BleuCore/PeripheralManager`` on a real
/// (or virtual) controller.
///
/// Services go into the radio's GATT database after the GAP (Device Name, Appearance) and GATT
/// (Service Changed) services; adding or removing one indicates Service Changed to clients that
/// asked for it. Advertising is legacy and connectable, and resumes after each connection while
/// it is on, so several centrals can connect. Centrals are known under version-5 UUIDs of their
/// addresses. A request the application leaves unanswered for
/// ``HCIRadioConfiguration/requestAnswerTimeout`` is answered with Unlikely Error. No state
/// restoration. Attributes and channels that require encryption are refused on a link that is
/// not encrypted (ATT's Insufficient Encryption / Authentication, L2CAP's result 0x0008); a
/// central pairs through the radio's Security Manager, and ``pair(_:minimum:)`` asks it to.
public final class HCIPeripheralManager: PeripheralManager {
    /// The radio this manager drives (it may also carry an ``HCICentralManager``).
    public let radio: HCIRadio
    public let restoreIdentifier: String?

    /// The peripheral role on `radio`, which should be started (``HCIRadio/start()``).
    public init(radio: HCIRadio, restoreIdentifier: String? = nil) {
        self.radio = radio
        self.restoreIdentifier = restoreIdentifier
    }

    public var state: ManagerState {
        get async { await radio.currentState }
    }

    public func events() -> AsyncStream<PeripheralEvent> {
        let radio = self.radio
        return radio.events.peripheral.subscribe { [.stateChanged(radio.events.state)] }
    }

    public func add(_ service: ServiceDefinition) async throws -> PublishedService {
        try await radio.add(service)
    }

    public func remove(_ service: PublishedService) async throws {
        try await radio.remove(service)
    }

    public func removeAllServices() async {
        await radio.removeAllServices()
    }

    public func startAdvertising(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?) async throws {
        try await radio.startAdvertising(advertisement, scanResponse: scanResponse)
    }

    public func stopAdvertising() async {
        await radio.stopAdvertising()
    }

    public var isAdvertising: Bool {
        get async { await radio.isAdvertising }
    }

    public func respond(to request: ReadRequest, with result: Result<Data, ATTError>) async {
        await radio.respond(to: request, with: result)
    }

    public func respond(to requests: WriteRequests, with result: Result<Void, ATTError>) async {
        await radio.respond(to: requests, with: result)
    }

    public func updateValue(_ value: Data, for characteristic: PublishedCharacteristic,
                            onSubscribedCentrals centrals: [UUID]?) async -> Bool {
        await radio.updateValue(value, for: characteristic, centrals: centrals)
    }

    public func maximumUpdateValueLength(for central: UUID) async -> Int? {
        await radio.maximumUpdateValueLength(central)
    }

    /// Asks `central` to raise the link to at least `minimum` (a Security Request) and returns
    /// once it has, by encrypting with its bond or pairing. See ``HCIRadio/pair(_:minimum:)``.
    public func pair(_ central: UUID, minimum: SecurityLevel) async throws {
        try await radio.pair(central, minimum: minimum)
    }

    /// How the link to `central` is protected now.
    public func securityLevel(of central: UUID) async -> SecurityLevel? {
        await radio.securityLevel(of: central)
    }

    public func publishL2CAPChannel(requiresEncryption: Bool) async throws -> UInt16 {
        try await radio.publishChannel(requiresEncryption: requiresEncryption)
    }

    public func unpublishL2CAPChannel(_ psm: UInt16) async throws {
        try await radio.unpublishChannel(psm)
    }
}
