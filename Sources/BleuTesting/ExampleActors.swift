import Bleu
import BleuCore
import Distributed
import Foundation

/// Returns 42: the smallest actor there is.
public distributed actor ValueActor: PeripheralActor {
    public typealias ActorSystem = BLEActorSystem

    public init(actorSystem: BLEActorSystem) {
        self.actorSystem = actorSystem
    }

    /// Always 42.
    public distributed func value() -> Int { 42 }
}

/// Counts calls: tests use it to check that a call runs exactly once.
public distributed actor CounterActor: PeripheralActor {
    public typealias ActorSystem = BLEActorSystem
    private var count = 0

    public init(actorSystem: BLEActorSystem) {
        self.actorSystem = actorSystem
    }

    /// Adds one and returns the new count.
    @discardableResult
    public distributed func increment() -> Int {
        count += 1
        return count
    }

    /// Adds `amount` without returning anything.
    public distributed func add(_ amount: Int) {
        count += amount
    }

    /// The count so far.
    public distributed func current() -> Int { count }
}

/// An error the example actors throw, `Codable` so it reaches the caller as itself when the
/// caller registers it (`configuration.remoteTypes.register(ExampleFailure.self)`); unregistered,
/// it arrives as `RemoteCallError`.
public struct ExampleFailure: Error, Codable, Sendable, Hashable {
    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// An error that is not `Codable`: it reaches the caller as `RemoteCallError`.
public struct OpaqueFailure: Error, Sendable, CustomStringConvertible {
    public var detail: String

    public init(detail: String) {
        self.detail = detail
    }

    public var description: String { "opaque failure: \(detail)" }
}

/// Always throws.
public distributed actor FailingActor: PeripheralActor {
    public typealias ActorSystem = BLEActorSystem

    public init(actorSystem: BLEActorSystem) {
        self.actorSystem = actorSystem
    }

    /// Throws ``ExampleFailure`` (code 7).
    public distributed func fail() throws -> Int {
        throw ExampleFailure(code: 7, reason: "always fails")
    }

    /// Throws ``OpaqueFailure``.
    public distributed func failOpaquely() throws {
        throw OpaqueFailure(detail: "not codable")
    }
}

/// A sensor reading 22.5 °C, discoverable by its protocol.
@Resolvable
public protocol TemperatureReading: PeripheralActor {
    /// The temperature in degrees Celsius.
    distributed func temperature() async throws -> Double
}

/// Reads 22.5 °C.
public distributed actor SensorActor: TemperatureReading {
    public typealias ActorSystem = BLEActorSystem
    public static let discoverableAs: [any PeripheralActor.Type] = [$TemperatureReading.self]

    public init(actorSystem: BLEActorSystem) {
        self.actorSystem = actorSystem
    }

    public distributed func temperature() async throws -> Double { 22.5 }
}

/// Holds each call for a while: tests use it to act while a call is in flight (kill the
/// peripheral's process, lose the link).
public distributed actor HoldingActor: PeripheralActor {
    public typealias ActorSystem = BLEActorSystem
    private let onCall: @Sendable () -> Void

    /// `onCall` runs when a call of ``hold(seconds:)`` starts, before it waits.
    public init(actorSystem: BLEActorSystem, onCall: @escaping @Sendable () -> Void = {}) {
        self.actorSystem = actorSystem
        self.onCall = onCall
    }

    /// Waits `seconds`, then returns them.
    public distributed func hold(seconds: Int) async throws -> Int {
        onCall()
        try await Task.sleep(for: .seconds(seconds))
        return seconds
    }
}
