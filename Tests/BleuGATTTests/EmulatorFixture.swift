import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// A typed peripheral (a ``GATTServer`` on an emulated peripheral manager) and a typed central
/// (a ``GATTClient`` on an emulated central manager) connected on one emulator bus.
struct GATTFixture {
    let bus: EmulatorBus
    let peripheral: EmulatedPeripheralManager
    let central: EmulatedCentralManager
    let server: GATTServer
    let client: GATTClient

    /// Hosts what `host` hosts, advertises, and connects a central to it.
    static func make<Hosted>(configuration: EmulatorConfiguration = .instant, name: String = "Typed",
                             host: (GATTServer) async throws -> Hosted) async throws -> (GATTFixture, Hosted) {
        let bus = EmulatorBus(configuration: configuration)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let server = GATTServer(peripheral: peripheral)
        let hosted = try await host(server)
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: name))
        let central = EmulatedCentralManager(bus: bus)
        let id = try await central.discover(name: name)
        try await central.connect(id)
        let fixture = GATTFixture(bus: bus, peripheral: peripheral, central: central, server: server,
                                  client: GATTClient(central: central, peripheral: id))
        return (fixture, hosted)
    }
}

extension EmulatedCentralManager {
    /// Scans until a peripheral with this name is heard and returns its identifier.
    func discover(name: String) async throws -> UUID {
        let stream = try await scan()
        for try await advertisement in stream where advertisement.localName == name {
            await stopScan()
            return advertisement.peripheral
        }
        throw BleuError.peripheralNotFound(UUID())
    }
}

extension AsyncStream {
    /// The first element matching `predicate`, or `nil` if the stream ends first.
    mutating func first(matching predicate: (Element) -> Bool) async -> Element? {
        for await element in self where predicate(element) { return element }
        return nil
    }
}

/// The error an operation throws, or `nil` (recorded as a failure) when it throws none.
func thrown<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> (any Error)? {
    do {
        let value = try await body()
        Issue.record("expected an error, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The ATT error the peer answered with, when `error` is one.
func attError(_ error: (any Error)?) -> ATTError? {
    if case BleuError.att(let att)? = error as? BleuError { return att }
    return nil
}

/// Values a handler received, in order, with a way to wait for a number of them.
final class Received<Value: Sendable>: Sendable {
    typealias Condition = @Sendable ([Value]) -> Bool
    private let state = Locked<(values: [Value], waiters: [(Condition, CheckedContinuation<Void, Never>)])>(([], []))

    var values: [Value] { state.withLock { $0.values } }

    func append(_ value: Value) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.values.append(value)
            let values = state.values
            let ready = state.waiters.filter { $0.0(values) }.map(\.1)
            state.waiters.removeAll { $0.0(values) }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `count` values arrived.
    func wait(for count: Int) async {
        await wait { $0.count >= count }
    }

    /// Returns once the values received so far satisfy `condition`.
    func wait(until condition: @escaping Condition) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if condition(state.values) { return true }
                state.waiters.append((condition, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

extension RemoteGATTService {
    /// Subscribes to `characteristic` and returns once the peripheral reports the subscription
    /// on `events`, so that what it sends next reaches the stream.
    func subscribeSeen<Value>(to characteristic: Characteristic<Value>, events: inout AsyncStream<PeripheralEvent>)
        async throws -> AsyncThrowingStream<Value, any Error>
    {
        let stream = try await subscribe(to: characteristic)
        _ = await events.first { if case .subscribed = $0 { true } else { false } }
        return stream
    }
}

/// The first `count` values of `stream`, in order (fewer if it ends first).
func values<Value>(_ count: Int, of stream: AsyncThrowingStream<Value, any Error>) async throws -> [Value] {
    var received: [Value] = []
    guard count > 0 else { return received }
    for try await value in stream {
        received.append(value)
        if received.count == count { break }
    }
    return received
}
