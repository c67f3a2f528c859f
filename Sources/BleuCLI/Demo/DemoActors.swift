import Bleu
import Distributed
import Foundation

/// The demo's thermometer protocol. Public: in release builds a call through the stub of an
/// internal `@Resolvable` protocol crashes on Swift 6.3 (see Docs/ActorSystemProtocol.md).
@Resolvable
public protocol Thermometer: PeripheralActor {
    distributed func getTemperature() async throws -> Double
    distributed func setUpdateInterval(_ seconds: Int) async throws
}

/// The implementation the peripheral hosts, discoverable by its protocol.
distributed actor DemoThermometer: Thermometer {
    typealias ActorSystem = BLEActorSystem
    static let discoverableAs: [any PeripheralActor.Type] = [$Thermometer.self]
    private var interval = 1

    distributed func getTemperature() async throws -> Double { 21.75 + Double(interval) / 100 }
    distributed func setUpdateInterval(_ seconds: Int) async throws {
        guard seconds > 0 else { throw DemoError.invalidInterval(seconds) }
        interval = seconds
    }
}

enum DemoError: Error, Codable {
    case invalidInterval(Int)
}

/// A heart-rate monitor streaming a beat-per-minute value every 250 ms.
distributed actor HeartRateMonitor: PeripheralActor {
    typealias ActorSystem = BLEActorSystem

    distributed func measurements() -> BLEStream<Int> {
        BLEStream(HeartBeats())
    }
}

/// 72, 74, 76, … a value every 250 ms, pulled as the consumer consumes.
struct HeartBeats: AsyncSequence, Sendable {
    struct AsyncIterator: AsyncIteratorProtocol {
        var beat = 0
        mutating func next() async throws -> Int? {
            try await Task.sleep(for: .milliseconds(250))
            defer { beat += 1 }
            return 72 + (beat * 2) % 20
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}

/// Hosting the demo's actors.
enum DemoActors {
    /// Hosts a thermometer and a heart-rate monitor on `system` and advertises them.
    @discardableResult
    static func host(on system: BLEActorSystem) async throws -> (DemoThermometer, HeartRateMonitor) {
        let thermometer = DemoThermometer(actorSystem: system)
        let monitor = HeartRateMonitor(actorSystem: system)
        try await system.startAdvertising(thermometer, monitor)
        return (thermometer, monitor)
    }
}
