import BleuCore
import BleuEmulator
import Foundation

/// A peripheral manager whose requests the test writes itself: services are published on an
/// emulated peripheral (for real handles), but ``events()`` delivers only what the test
/// ``inject(_:)``s, and the answers to write batches are recorded instead of sent. It lets a
/// test hand a ``GATTServer`` batches a BleuEmulator central never sends, such as one Execute
/// Write spanning two services.
final class ScriptedPeripheral: PeripheralManager {
    /// One answer to a write batch.
    struct WriteAnswer: Sendable {
        var request: ATTRequestID
        var result: Result<Void, ATTError>
    }

    let inner: EmulatedPeripheralManager
    let writeAnswers = Received<WriteAnswer>()
    private let broadcaster = EventBroadcaster<PeripheralEvent>()

    init(bus: EmulatorBus) {
        inner = EmulatedPeripheralManager(bus: bus)
    }

    /// Delivers an event to every stream from ``events()``.
    func inject(_ event: PeripheralEvent) {
        broadcaster.yield(event)
    }

    var restoreIdentifier: String? { nil }
    var state: ManagerState { get async { await inner.state } }

    func events() -> AsyncStream<PeripheralEvent> {
        broadcaster.subscribe(initial: { [.stateChanged(.poweredOn)] })
    }

    func add(_ service: ServiceDefinition) async throws -> PublishedService { try await inner.add(service) }
    func remove(_ service: PublishedService) async throws { try await inner.remove(service) }
    func removeAllServices() async { await inner.removeAllServices() }

    func startAdvertising(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?) async throws {
        try await inner.startAdvertising(advertisement, scanResponse: scanResponse)
    }

    func stopAdvertising() async { await inner.stopAdvertising() }
    var isAdvertising: Bool { get async { await inner.isAdvertising } }

    func respond(to request: ReadRequest, with result: Result<Data, ATTError>) async {}

    func respond(to request: WriteRequests, with result: Result<Void, ATTError>) async {
        writeAnswers.append(WriteAnswer(request: request.id, result: result))
    }

    func updateValue(_ value: Data, for characteristic: PublishedCharacteristic,
                     onSubscribedCentrals centrals: [UUID]?) async -> Bool {
        await inner.updateValue(value, for: characteristic, onSubscribedCentrals: centrals)
    }

    func maximumUpdateValueLength(for central: UUID) async -> Int? { await inner.maximumUpdateValueLength(for: central) }
    func publishL2CAPChannel(requiresEncryption: Bool) async throws -> UInt16 { try await inner.publishL2CAPChannel(requiresEncryption: requiresEncryption) }
    func unpublishL2CAPChannel(_ psm: UInt16) async throws { try await inner.unpublishL2CAPChannel(psm) }
}
