import BleuCore
import Foundation

extension BLEActorSystem {
    /// Scans for peripherals hosting actors of `type` — a concrete actor type, or a
    /// `@Resolvable` protocol's stub (`$TemperatureSensor.self`) for actors whose type lists it
    /// in ``PeripheralActor/discoverableAs`` — connects to every match concurrently and returns
    /// the actors, ready to call.
    ///
    /// Scans for `timeout` (or less: see ``Configuration/discoveryQuietPeriod``), or until
    /// `count` actors were found. Peripherals that fail to connect are skipped (and logged).
    public func discover<Act: PeripheralActor>(_ type: Act.Type, timeout: Duration, count: Int? = nil) async throws -> [Act] {
        let client = try requireClient()
        try client.register(type)
        let ids = try await client.search(service: ActorServiceLayout.serviceUUID(for: type), timeout: timeout,
                                          until: { found in count.map { found.count >= $0 } ?? false }).found
        return try ids.prefix(count ?? ids.count).map { try Act.resolve(id: $0, using: self) }
    }

    /// ``discover(_:timeout:count:)`` with a timeout in seconds.
    public func discover<Act: PeripheralActor>(_ type: Act.Type, timeout seconds: Double, count: Int? = nil) async throws -> [Act] {
        try await discover(type, timeout: .milliseconds(Int64(seconds * 1000)), count: count)
    }

    /// Connects to the actor with a saved identifier and returns it as `type`: the peripheral
    /// known from an earlier discovery is reconnected; an identifier never seen is looked for
    /// among peripherals advertising `type`'s service. Throws
    /// ``BLEActorSystemError/actorNotFound(_:)`` when it is not found within
    /// ``Configuration/connectionTimeout``.
    public func connect<Act: PeripheralActor>(to id: UUID, as type: Act.Type) async throws -> Act {
        let client = try requireClient()
        try client.register(type)
        client.expect(id, service: ActorServiceLayout.serviceUUID(for: type))
        let timeout = configuration.connectionTimeout
        _ = try await client.channel(for: id, until: client.clock.now() + timeout, failFast: false,
                                     timeout: { BLEActorSystemError.actorNotFound(id) })
        return try Act.resolve(id: id, using: self)
    }

    /// Disconnects from the peripheral hosting the actor; calls in progress on it fail with
    /// ``/BleuCore/BleuError/disconnected(_:_:)``. The next call reconnects.
    public func disconnect(from actor: some PeripheralActor) async {
        await disconnect(from: actor.id)
    }

    /// Disconnects from the peripheral hosting the actor with this id.
    public func disconnect(from id: UUID) async {
        guard let client, let location = client.location(of: id) else { return }
        await client.disconnect(location.peripheral)
    }

    /// Whether the peripheral hosting the actor is connected now (as the radio reports it).
    public func isConnected(_ actor: some PeripheralActor) async -> Bool {
        await isConnected(actor.id)
    }

    /// Whether the peripheral hosting the actor with this id is connected now.
    public func isConnected(_ id: UUID) async -> Bool {
        guard let client, let location = client.location(of: id) else { return false }
        return await client.manager.isConnected(location.peripheral)
    }

    /// Where the link to the actor with this id stands now.
    public func currentConnectivity(of id: UUID) -> ActorConnectivity {
        guard let client, let location = client.location(of: id) else { return .disconnected(nil) }
        if client.currentLink(location.peripheral) != nil { return .ready }
        return client.observer.connectivity(of: location.peripheral)
            ?? .disconnected(client.state.withLock { $0.lastLoss[location.peripheral] })
    }

    /// The connectivity of the actor with this id: its state now, then every change — the
    /// link engine connecting, ready, backing off after a failure, suspended, or given up.
    /// Follows the actor when it is located on another peripheral. Ends when the caller stops
    /// iterating (or the system goes away); a slow consumer sees the latest states. A state is
    /// not repeated (resolving, connecting and setting up a link are all `.connecting`).
    public func connectivity(of id: UUID) -> AsyncStream<ActorConnectivity> {
        let (stream, continuation) = AsyncStream.makeStream(of: ActorConnectivity.self, bufferingPolicy: .bufferingNewest(32))
        guard let client else {
            continuation.yield(.disconnected(nil))
            continuation.finish()
            return stream
        }
        let changes = client.observer.changes()
        let initial = currentConnectivity(of: id)
        continuation.yield(initial)
        let task = Task { [weak client] in
            var last = initial
            for await change in changes {
                guard let client, client.location(of: id)?.peripheral == change.peripheral, change.connectivity != last else { continue }
                last = change.connectivity
                continuation.yield(change.connectivity)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// ``connectivity(of:)`` of an actor reference.
    public func connectivity(of actor: some PeripheralActor) -> AsyncStream<ActorConnectivity> {
        connectivity(of: actor.id)
    }

    /// Calls to the actor in flight or waiting for a slot on its current link (for tests).
    func admittedCalls(to id: UUID) -> Int {
        guard let client, let location = client.location(of: id) else { return 0 }
        return client.currentLink(location.peripheral)?.channels[id]?.admittedCalls ?? 0
    }

    private func requireClient() throws -> CentralClient {
        guard let client else { throw BleuError.notSupported(.noCentralRole) }
        return client
    }
}
