import Foundation

/// A peripheral manager that passes every requirement to another, ``base``: a decorator
/// implements only what it changes (records, refuses, delays, rewrites) and gets the rest from
/// here. The peripheral's counterpart of ``ForwardingCentralManager``.
///
/// ```swift
/// final class RefusingPairing: ForwardingPeripheralManager {
///     let base: any PeripheralManager
///     init(_ base: any PeripheralManager) { self.base = base }
///     func pair(_ central: UUID, minimum: SecurityLevel) async throws {
///         throw BleuError.notSupported(.explicitPairing)
///     }
/// }
/// ```
///
/// Every requirement is forwarded, including those ``PeripheralManager`` has defaults for
/// (``PeripheralManager/securityLevel(of:)``, ``PeripheralManager/pair(_:minimum:)``), so a
/// decorator keeps what its base does there.
public protocol ForwardingPeripheralManager: PeripheralManager {
    /// The peripheral manager everything not implemented by the decorator goes to.
    var base: any PeripheralManager { get }
}

extension ForwardingPeripheralManager {
    public var restoreIdentifier: String? { base.restoreIdentifier }
    public var state: ManagerState { get async { await base.state } }
    public func events() -> AsyncStream<PeripheralEvent> { base.events() }

    public func add(_ service: ServiceDefinition) async throws -> PublishedService { try await base.add(service) }
    public func remove(_ service: PublishedService) async throws { try await base.remove(service) }
    public func removeAllServices() async { await base.removeAllServices() }

    public func startAdvertising(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?) async throws {
        try await base.startAdvertising(advertisement, scanResponse: scanResponse)
    }
    public func stopAdvertising() async { await base.stopAdvertising() }
    public var isAdvertising: Bool { get async { await base.isAdvertising } }

    public func respond(to request: ReadRequest, with result: Result<Data, ATTError>) async {
        await base.respond(to: request, with: result)
    }
    public func respond(to request: WriteRequests, with result: Result<Void, ATTError>) async {
        await base.respond(to: request, with: result)
    }

    public func updateValue(_ value: Data, for characteristic: PublishedCharacteristic,
                            onSubscribedCentrals centrals: [UUID]?) async -> Bool {
        await base.updateValue(value, for: characteristic, onSubscribedCentrals: centrals)
    }
    public func maximumUpdateValueLength(for central: UUID) async -> Int? { await base.maximumUpdateValueLength(for: central) }

    public func securityLevel(of central: UUID) async -> SecurityLevel? { await base.securityLevel(of: central) }
    public func pair(_ central: UUID, minimum: SecurityLevel) async throws { try await base.pair(central, minimum: minimum) }

    public func publishL2CAPChannel(requiresEncryption: Bool) async throws -> UInt16 {
        try await base.publishL2CAPChannel(requiresEncryption: requiresEncryption)
    }
    public func unpublishL2CAPChannel(_ psm: UInt16) async throws { try await base.unpublishL2CAPChannel(psm) }
}
