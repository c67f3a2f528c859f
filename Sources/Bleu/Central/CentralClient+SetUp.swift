import BleuCore
import Foundation

extension CentralClient {
    /// Reads every actor service of a connected peripheral: each actor's id, and a channel
    /// subscribed to its replies (kept from `old` for actors still there).
    func setUp(_ peripheral: UUID, reusing old: ConnectedPeripheral? = nil) async throws -> ConnectedPeripheral {
        let ready = old?.ready ?? ReadySignal()
        var channels: [UUID: ClientChannel] = [:]
        var services: [UUID: Set<BluetoothUUID>] = [:]
        do {
            for service in try await manager.discoverServices(nil, on: peripheral) {
                // Every service is looked at; one without the three actor characteristics is not an actor's.
                // Laid out as the type hosted under this UUID declares, when this system knows it.
                let layout = layout(of: service.uuid)
                let found: DiscoveredService
                do {
                    found = try await manager.discover(ServiceRequirement(service: service.uuid, required: layout.characteristicUUIDs,
                                                                          discovering: .nothingElse), in: service)
                } catch BleuError.characteristicNotFound {
                    continue
                }
                guard let idCharacteristic = found.characteristics[layout.actorID.uuid],
                      let call = found.characteristics[layout.call.uuid],
                      let reply = found.characteristics[layout.reply.uuid] else { continue }
                guard let id = UUID(bytes: try await manager.read(idCharacteristic)) else {
                    configuration.logger.warning("the actor service \(service.uuid) on \(peripheral) has a malformed actor id; skipped")
                    continue
                }
                services[id, default: []].insert(service.uuid)
                guard channels[id] == nil else { continue }
                if let existing = old?.channels[id], !existing.isClosed {
                    channels[id] = existing
                    continue
                }
                let channel = ClientChannel(actorID: id, peripheral: peripheral, call: call, manager: manager, ready: ready,
                                            configuration: configuration)
                channels[id] = channel
                try await channel.start { try await manager.subscribe(to: reply, receive: $0) }
            }
        } catch {
            // Channels made here do not outlive the failed set-up.
            for (id, channel) in channels where old?.channels[id] !== channel { channel.close(error) }
            throw error
        }
        return ConnectedPeripheral(id: peripheral, channels: channels, services: services, ready: ready)
    }

    /// The peripheral's services changed (actors hosted or removed): keeps the channels of
    /// actors still there, sets up new ones, and fails calls to actors that are gone.
    func refresh(_ peripheral: UUID) async {
        let before = state.withLock { state in state.links[peripheral].map { ($0, state.epochs[peripheral, default: 0]) } }
        guard let (old, epoch) = before else { return }
        do {
            let link = try await setUp(peripheral, reusing: old)
            let installed = state.withLock { state -> Bool in
                guard state.epochs[peripheral, default: 0] == epoch else { return false }
                state.links[peripheral] = link
                state.locate(actorsOn: link)
                return true
            }
            guard installed else {
                for (id, channel) in link.channels where old.channels[id] !== channel { channel.close(BleuError.cancelled) }
                return
            }
            for (id, channel) in old.channels where link.channels[id] !== channel {
                channel.close(BLEActorSystemError.actorNotFound(id))
            }
        } catch {
            configuration.logger.info("refreshing the services of \(peripheral) failed: \(error)")
            // The engine sets the link up again from scratch.
            await fleet.reconnect(peripheral)
        }
    }
}
