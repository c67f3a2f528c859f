import BleuCore
import Foundation

/// Typed peripherals of one kind that a connection engine keeps connected, such as
/// `FleetOrchestrator`: on every link the engine makes, ``prepare(_:)`` discovers the device
/// as `Peripheral` again and subscribes again, and the streams of ``updates(of:in:_:)`` go
/// on across the links.
///
/// Give the engine the two hooks:
///
/// ```swift
/// let straps = KeptPeripherals<HeartRateStrap>(central: central)
/// let fleet = FleetOrchestrator(central: central, configuration: configuration, clock: ContinuousClock(),
///                               store: store, setUp: LinkSetUp(prepare: straps.prepare, linkEnded: straps.linkEnded))
/// await fleet.pin(strap)
/// for try await measurement in straps.updates(of: strap, in: HeartRateService.self, \.measurement) { … }
/// let level = try await straps.device(strap)?.battery?.read(\.level)
/// ```
///
/// A stream of ``updates(of:in:_:)`` waits while the device has no link and takes the values
/// of each new link's subscription; values the device sends while it has no link are not
/// received. When the device's database no longer has what `Peripheral` declares (a required
/// service or a subscribed characteristic gone after a firmware update, say), the streams end
/// with that ``GATTError`` and ``prepare(_:)`` throws it, so the engine treats it as a
/// protocol failure rather than retrying as if the link were lost.
public final class KeptPeripherals<Peripheral: GATTPeripheral>: Sendable {
    /// The radio the engine connects with.
    public let central: any CentralManager
    private let scope: PeripheralDiscoveryScope
    private let dataSource: any GATTServiceDataSource
    private let state = Locked(State())

    private struct State {
        var devices: [UUID: Peripheral] = [:]
        /// The streams of each device, held weakly: a stream its consumer dropped leaves.
        var relays: [UUID: [ObjectIdentifier: WeakRelay]] = [:]
    }

    /// Peripherals discovered on `central`'s links as `Peripheral`, with `scope` and
    /// `dataSource` as ``GATTPeripheral/discover(using:scope:dataSource:)`` takes them.
    public init(central: any CentralManager, scope: PeripheralDiscoveryScope = .declaredServices,
                dataSource: any GATTServiceDataSource = SIGServiceDataSource()) {
        self.central = central
        self.scope = scope
        self.dataSource = dataSource
    }

    /// The device as its link set up last made it, or `nil` while it has no link.
    public func device(_ id: UUID) -> Peripheral? {
        state.withLock { $0.devices[id] }
    }

    /// How many streams of ``updates(of:in:_:)`` device `id` feeds now (for tests of boundedness).
    func streamCount(of id: UUID) -> Int {
        state.withLock { $0.relays[id]?.values.count { $0.relay != nil } ?? 0 }
    }

    /// The engine's set-up hook: discovers the device as `Peripheral`, subscribes where it
    /// declares, and hands each stream of ``updates(of:in:_:)`` the new link's values. Throws
    /// what discovery throws; a ``GATTError`` (the database lacks what `Peripheral` declares)
    /// also ends every stream of the device with it.
    public func prepare(_ id: UUID) async throws {
        let services: DiscoveredServices
        let device: Peripheral
        do {
            services = try await DiscoveredServices.discover(Peripheral.services, using: GATTClient(central: central, peripheral: id),
                                                             scope: scope, dataSource: dataSource)
            do {
                device = try Peripheral(services)
            } catch {
                services.endSubscriptions()
                throw error
            }
        } catch let error as GATTError {
            let relays = state.withLock { $0.relays.removeValue(forKey: id) ?? [:] }
            for relay in relays.values.compactMap(\.relay) { relay.fail(error) }
            throw error
        }
        let relays = state.withLock { state in
            state.devices[id] = device
            return state.relays[id, default: [:]].values.compactMap(\.relay)
        }
        for relay in relays { try await relay.link(services) }
        // Declared subscriptions no stream wants: ended, so the radio's buffer does not fill.
        services.endSubscriptions()
    }

    /// The engine's hook for a link lost or given up: the device has no link until the next
    /// ``prepare(_:)``.
    public func linkEnded(_ id: UUID) {
        _ = state.withLock { $0.devices.removeValue(forKey: id) }
    }

    /// The values of a characteristic of `service` on device `id`, across its links: each link's
    /// subscription (the declared one when `Peripheral` subscribes to it as it connects, else
    /// one made for this stream) feeds it in turn. One consumer. It ends with a
    /// ``GATTError`` when a link's set-up finds the characteristic (or its service) gone, or a
    /// value does not decode; it finishes when the device's service lacks the characteristic
    /// on a link, or when the consumer stops.
    public func updates<Service: GATTService, Value>(of id: UUID, in service: Service.Type,
                                                     _ characteristic: KeyPath<Service.Type, Characteristic<Value>>)
        -> AsyncThrowingStream<Value, any Error> {
        let relay = Relay<Service, Value>(characteristic: Service.self[keyPath: characteristic]) { [weak self] key in
            self?.state.withLock { state in
                state.relays[id]?[key] = nil
                if state.relays[id]?.isEmpty == true { state.relays[id] = nil }
            }
        }
        state.withLock { $0.relays[id, default: [:]][ObjectIdentifier(relay)] = WeakRelay(relay: relay) }
        return AsyncThrowingStream { try await relay.next() }
    }
}

/// What ``KeptPeripherals`` tells each stream of a device.
private protocol LinkRelay: AnyObject, Sendable {
    /// A link is set up: take its subscription.
    func link(_ services: DiscoveredServices) async throws
    /// The device's database lacks what the peripheral type declares.
    func fail(_ error: GATTError)
}

private struct WeakRelay: Sendable {
    weak var relay: (any LinkRelay)?
}

/// One stream of ``KeptPeripherals/updates(of:in:_:)``: the subscriptions of the device's
/// links, one after another.
private final class Relay<Service: GATTService, Value: Sendable>: LinkRelay, @unchecked Sendable {
    // `links` and `failure` are shared with the set-up; `current` belongs to `next()`, which
    // `AsyncThrowingStream(unfolding:)` calls for one consumer, one call at a time.
    private let characteristic: Characteristic<Value>
    private let links: AsyncStream<AsyncThrowingStream<Value, any Error>>
    private let sink: AsyncStream<AsyncThrowingStream<Value, any Error>>.Continuation
    private let failure = Locked<GATTError?>(nil)
    private let released: @Sendable (ObjectIdentifier) -> Void
    private var linkIterator: AsyncStream<AsyncThrowingStream<Value, any Error>>.Iterator
    private var current: AsyncThrowingStream<Value, any Error>.Iterator?

    init(characteristic: Characteristic<Value>, released: @escaping @Sendable (ObjectIdentifier) -> Void) {
        self.characteristic = characteristic
        self.released = released
        // The newest link's subscription only: an older one not yet read belongs to a link
        // already gone (dropping it ends its subscription).
        (links, sink) = AsyncStream.makeStream(of: AsyncThrowingStream<Value, any Error>.self, bufferingPolicy: .bufferingNewest(1))
        linkIterator = links.makeAsyncIterator()
    }

    deinit {
        sink.finish()
        released(ObjectIdentifier(self))
    }

    func link(_ services: DiscoveredServices) async throws {
        guard let service = services.optional(Service.self) ?? services.typed(Service.self),
              service.remote.contains(characteristic) else {
            // Not on this device (an optional service it lacks): the stream has nothing to wait for.
            sink.finish()
            return
        }
        sink.yield(try await service.updates(characteristic))
    }

    func fail(_ error: GATTError) {
        failure.withLock { $0 = error }
        sink.finish()
    }

    func next() async throws -> Value? {
        while !Task.isCancelled {
            if current == nil {
                guard let stream = await linkIterator.next() else {
                    if let error = failure.withLock({ $0 }) { throw error }
                    return nil
                }
                current = stream.makeAsyncIterator()
            }
            do {
                if let value = try await current?.next() { return value }
                current = nil  // unsubscribed, or cancelled: wait for the next link
                if Task.isCancelled { return nil }
            } catch BleuError.disconnected, BleuError.notConnected, BleuError.cancelled {
                current = nil  // the link ended: wait for the next one
            }
        }
        return nil
    }
}
