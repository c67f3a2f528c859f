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
        let ids = try await client.search(service: ActorServiceLayout.serviceUUID(for: type), timeout: timeout,
                                          until: { found in count.map { found.count >= $0 } ?? false })
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
        client.expect(id, service: ActorServiceLayout.serviceUUID(for: type))
        _ = try await client.channel(for: id)
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

    private func requireClient() throws -> CentralClient {
        guard let client else { throw BleuError.notSupported(.noCentralRole) }
        return client
    }
}
