import BleuCore
import BleuOrchestration
import Foundation

extension CentralClient {
    /// The channel to an actor, waiting for its link until `deadline` (elapsed time on
    /// ``clock``) — or not at all when `failFast` — and locating the actor first when its
    /// peripheral is not known, or again when it moved.
    func channel(for id: UUID, until deadline: Duration, failFast: Bool, timeout: @escaping @Sendable () -> any Error) async throws -> ClientChannel {
        var relocated = false
        while true {
            let location = try await locate(id, until: deadline)
            let peripheral = location.peripheral
            await hold(peripheral)
            if let stale = currentLink(peripheral), await !manager.isConnected(peripheral) {
                // The radio lost the link; its event is on its way to the engine. Nothing can go out on it.
                let reason = state.withLock { $0.lastLoss[peripheral] }
                stale.close(BleuError.disconnected(peripheral, reason ?? .supervisionTimeout))
            }
            let link: ConnectedPeripheral
            if let current = currentLink(peripheral) {
                link = current
            } else if failFast {
                let reason = state.withLock { $0.lastLoss[peripheral] }
                throw BleuError.disconnected(peripheral, reason ?? .localHostTerminated)
            } else {
                link = try await waitForLinkOrRelocation(of: id, from: location, until: deadline, timeout: timeout)
            }
            if let channel = link.channels[id] { return channel }
            // The link is up but the actor is not there any more (its app restarted without it,
            // or it is hosted elsewhere now): look for it once more.
            guard !relocated else { throw BLEActorSystemError.actorNotFound(id) }
            relocated = true
            state.withLock { state in
                if state.directory[id]?.peripheral == link.id { state.directory[id] = nil }
                state.wanted[id] = location.service
            }
            await releaseIfUnused(link.id)
        }
    }

    /// Where the actor lives: known, or found by a search for the service it was last
    /// resolved or connected as (every peripheral the search sets up has all its actor
    /// services read, so the id is found under whichever service hosts it there).
    private func locate(_ id: UUID, until deadline: Duration) async throws -> Location {
        if let location = location(of: id) { return location }
        guard let wanted = state.withLock({ $0.wanted[id] }) else { throw BLEActorSystemError.actorNotFound(id) }
        let remaining = max(.zero, deadline - clock.now())
        let search = try await search(service: wanted, timeout: min(configuration.connectionTimeout, remaining), keeping: [id],
                                      until: { [weak self] _ in self?.location(of: id) != nil })
        guard let location = location(of: id) else {
            // A peripheral that may host it would not let this central in: say so.
            throw search.refusal ?? BLEActorSystemError.actorNotFound(id)
        }
        return location
    }

    /// Waits for the link to the actor's peripheral; meanwhile, once an attempt to reach it
    /// failed or ``BLEActorSystem/LinkPolicy/relocateAfter`` passed, also looks for the actor
    /// elsewhere, and takes whichever link hosting it comes first.
    private func waitForLinkOrRelocation(of id: UUID, from location: Location, until deadline: Duration,
                                         timeout: @escaping @Sendable () -> any Error) async throws -> ConnectedPeripheral {
        try await withThrowingTaskGroup(of: ConnectedPeripheral?.self) { group in
            group.addTask { try await self.waitForLink(location.peripheral, until: deadline, timeout: timeout) }
            group.addTask {
                await self.untilUnreachable(location.peripheral, orAfter: self.configuration.links.relocateAfter)
                guard !Task.isCancelled, let moved = await self.relocate(id, from: location, until: deadline) else { return nil }
                return try await self.waitForLink(moved, until: deadline, timeout: timeout)
            }
            while let result = try await group.next() {
                if let link = result {
                    group.cancelAll()
                    return link
                }
            }
            throw timeout()
        }
    }

    /// Returns once an attempt to reach `peripheral` failed (the engine backs off or rests),
    /// after `delay`, or when the task is cancelled.
    private func untilUnreachable(_ peripheral: UUID, orAfter delay: Duration) async {
        let changes = observer.changes()
        if Self.isUnreachable(observer.connectivity(of: peripheral)) { return }
        let clock = clock
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await change in changes where change.peripheral == peripheral && Self.isUnreachable(change.connectivity) { return }
            }
            group.addTask { _ = try? await clock.sleep(for: delay) }
            await group.next()
            group.cancelAll()
        }
    }

    private static func isUnreachable(_ connectivity: ActorConnectivity?) -> Bool {
        switch connectivity {
        case .backingOff?, .suspended?: true
        default: false
        }
    }

    /// One search per actor at a time looks for it on other peripherals; returns the
    /// peripheral it was found on, if not the old one.
    private func relocate(_ id: UUID, from location: Location, until deadline: Duration) async -> UUID? {
        let task = state.withLock { state in
            if let running = state.relocations[id] { return running }
            let remaining = max(.zero, deadline - clock.now())
            let task = Task {
                do {
                    _ = try await self.search(service: location.service, timeout: remaining, keeping: [id], until: { [weak self] _ in
                        guard let found = self?.location(of: id) else { return false }
                        return found.peripheral != location.peripheral
                    })
                } catch {
                    self.configuration.logger.info("looking for \(id) elsewhere failed: \(error)")
                }
            }
            state.relocations[id] = task
            return task
        }
        await task.value
        state.withLock { state in
            if state.relocations[id] == task { state.relocations[id] = nil }
        }
        guard let moved = self.location(of: id), moved.peripheral != location.peripheral else { return nil }
        configuration.logger.info("actor located on another peripheral",
                                  metadata: ["actor": "\(id)", "from": "\(location.peripheral)", "to": "\(moved.peripheral)"])
        await hold(moved.peripheral)
        await releaseIfUnused(location.peripheral)
        return moved.peripheral
    }

    /// Stops keeping a peripheral that hosts no actor the directory points to any more.
    func releaseIfUnused(_ peripheral: UUID) async {
        let used = state.withLock { state in state.directory.values.contains { $0.peripheral == peripheral } }
        if !used { await release(peripheral) }
    }
}
