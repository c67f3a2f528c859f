import Foundation

// The one "send, and when the radio's queue is full wait for its ready event" loop of each
// direction: writes without response from a central, notifications and indications from a
// peripheral. Bleu's actor system, BleuGATT and BleuOrchestration all send through them.

extension CentralManager {
    /// Writes `value` without response, waiting whenever the radio's write-without-response
    /// queue is full (``BleuError/sendQueueFull(_:)``) and trying again, so a burst never fails
    /// for want of room and never buffers without bound.
    ///
    /// - Parameter ready: signalled by the caller's own event loop on every
    ///   ``CentralEvent/readyToSendWriteWithoutResponse(_:)`` of the peripheral (and failed when
    ///   the link goes); without one, each wait watches the manager's events itself.
    package func writeWithoutResponse(_ value: Data, to characteristic: RemoteCharacteristic,
                                      ready: ReadySignal? = nil) async throws {
        while true {
            let generation = ready?.generation ?? 0
            do {
                try await write(value, to: characteristic, type: .withoutResponse)
                return
            } catch BleuError.sendQueueFull {
                if let ready {
                    try await ready.wait(after: generation)
                } else {
                    try await waitUntilReadyToSend(to: characteristic.peripheral)
                }
            }
        }
    }

    /// Returns when a write without response to `peripheral` would be accepted. The event
    /// stream is opened before the check, so a ready event between the two is not missed.
    private func waitUntilReadyToSend(to peripheral: UUID) async throws {
        let events = events()
        if await canSendWriteWithoutResponse(to: peripheral) { return }
        guard await isConnected(peripheral) else { throw BleuError.notConnected(peripheral) }
        for await event in events {
            switch event {
            case .readyToSendWriteWithoutResponse(let id) where id == peripheral:
                return
            case .disconnected(let id, let reason) where id == peripheral:
                throw BleuError.disconnected(id, reason)
            case .stateChanged(let state):
                if let error = state.unavailableError { throw error }
            default:
                continue
            }
        }
        throw BleuError.cancelled
    }
}

extension PeripheralManager {
    /// Sends `value` to the subscribed `centrals` (all of them for `nil`), waiting on `ready`
    /// — signalled by the caller's event loop on every ``PeripheralEvent/readyToUpdateSubscribers`` —
    /// whenever the notification queue is full. A radio that is not on refuses every value and
    /// never gets ready: its state's error is thrown instead of waiting.
    ///
    /// - Parameter proceed: asked before each attempt; throws to give up (the receiver went away).
    package func updateValue(_ value: Data, for characteristic: PublishedCharacteristic, onSubscribedCentrals centrals: [UUID]?,
                             ready: ReadySignal, proceed: () throws -> Void = {}) async throws {
        while true {
            let generation = ready.generation
            try proceed()
            if await updateValue(value, for: characteristic, onSubscribedCentrals: centrals) { return }
            if let error = await state.unavailableError { throw error }
            try await ready.wait(after: generation)
        }
    }
}
