import BleuCore

extension HCIHost {
    /// Sends a command and returns its Command Complete or (successful) Command Status event.
    ///
    /// Commands go out in call order, no more at once than the controller's last
    /// Num_HCI_Command_Packets allowed. Throws ``HCIHostError/commandFailed(_:_:)`` for a Command
    /// Status with an error, ``HCIHostError/commandTimeout(_:after:)`` when no answer comes within
    /// the configured timeout, ``HCIHostError/commandQueueFull(limit:)`` past the queue bound.
    public func send(_ command: HCICommand) async throws -> HCIEvent {
        if let closedReason { throw HCIHostError.transportClosed(closedReason) }
        guard commandQueue.count < configuration.maxQueuedCommands else {
            throw HCIHostError.commandQueueFull(limit: configuration.maxQueuedCommands)
        }
        nextCommandID += 1
        let id = nextCommandID
        return try await withCheckedThrowingContinuation { continuation in
            commandQueue.append(PendingCommand(id: id, command: command, continuation: continuation))
            pumpCommands()
        }
    }

    /// Sends a command that completes with Command Complete and returns its return parameters,
    /// throwing ``HCIHostError/commandFailed(_:_:)`` when their status byte is not success.
    public func execute(_ command: HCICommand) async throws -> [UInt8] {
        let event = try await send(command)
        guard case let .commandComplete(_, opcode, parameters) = event else { return [] }
        if let status = parameters.first, status != 0 {
            throw HCIHostError.commandFailed(opcode, HCIStatus(rawValue: status))
        }
        return parameters
    }

    /// How many commands the controller accepts now.
    public var availableCommandSlots: Int { commandCredits }

    /// Commands waiting for a slot.
    public var queuedCommandCount: Int { commandQueue.count }

    func pumpCommands() {
        while commandCredits > 0, !commandQueue.isEmpty {
            let pending = commandQueue.removeFirst()
            commandCredits -= 1
            commandsInFlight.append(pending)
            let id = pending.id
            let timeout = configuration.commandTimeout
            let clock = self.clock
            commandTimers[id] = Task { [weak self] in
                do {
                    try await clock.sleep(for: timeout)
                } catch {
                    return  // answered in time
                }
                await self?.commandTimedOut(id)
            }
            outgoing.post([pending.command.h4Packet])
        }
    }

    func commandAnswered(opcode: HCIOpcode, credits: UInt8, event: HCIEvent, failure: HCIHostError?) {
        commandCredits = Int(credits)
        if opcode.rawValue != 0, let index = commandsInFlight.firstIndex(where: { $0.command.opcode == opcode }) {
            let pending = commandsInFlight.remove(at: index)
            commandTimers.removeValue(forKey: pending.id)?.cancel()
            if let failure {
                pending.continuation.resume(throwing: failure)
            } else {
                pending.continuation.resume(returning: event)
            }
        } else if opcode.rawValue != 0 {
            noteDrop(.unexpected, "answer to \(opcode), which no command waits for")
        }
        pumpCommands()
    }

    func commandTimedOut(_ id: UInt64) {
        commandTimers[id] = nil
        guard let index = commandsInFlight.firstIndex(where: { $0.id == id }) else { return }
        let pending = commandsInFlight.remove(at: index)
        // The controller will never hand this slot back; take it back so the stack does not hang.
        commandCredits = max(commandCredits, 1)
        pending.continuation.resume(throwing: HCIHostError.commandTimeout(pending.command.opcode,
                                                                           after: configuration.commandTimeout))
        pumpCommands()
    }
}
