import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// An emulated central whose unsubscriptions the peripheral refuses (an ATT error), everything
/// else passed through.
final class UnsubscribeRefusingCentral: ForwardingCentralManager {
    let base: any CentralManager
    init(_ base: any CentralManager) { self.base = base }

    func unsubscribe(from characteristic: RemoteCharacteristic) async throws { throw BleuError.att(.unlikelyError) }
}

@Suite("Typed client: unsubscriptions that fail", .timeLimit(.minutes(1)))
struct UnsubscribeFailureTests {
    @Test("an unsubscription the connected peripheral refuses is counted with its error, not hidden")
    func refusedUnsubscription() async throws {
        let (fixture, hosted) = try await GATTFixture.make { server in
            try await server.host(BatteryService.self)
        }
        let client = GATTClient(central: UnsubscribeRefusingCentral(fixture.central), peripheral: fixture.client.peripheral)
        let battery = try await client.discover(BatteryService.self)
        let remote = try battery.remote(BatteryService.level)
        try await firstValue(of: battery, then: { try await hosted.notify(BatteryService.level, 42) })
        // The last stream ended: the unsubscription runs, is refused, and is counted.
        let unsubscribing = client.subscriptions.withLock { $0.unsubscribing[remote.valueHandle]?.task }
        #expect(unsubscribing != nil, "the stream's end started the unsubscription")
        await unsubscribing?.value
        #expect(client.failedUnsubscriptions.count == 1)
        #expect(client.failedUnsubscriptions.last as? BleuError == .att(.unlikelyError))
    }

    /// Opens a typed stream, takes its first value and drops it (in a function of its own, so
    /// the stream is gone when it returns).
    private func firstValue(of battery: RemoteGATTService, then send: () async throws -> Void) async throws {
        let stream = try await battery.subscribe(to: BatteryService.level)
        try await send()
        for try await level in stream {
            #expect(level == 42)
            break
        }
    }
}
