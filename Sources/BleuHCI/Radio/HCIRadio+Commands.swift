import BleuCore

/// A command the radio sends without waiting on its outcome: a reply to the peer, a
/// best-effort request, a tidy-up.
struct BackgroundCommand: Sendable {
    var command: HCICommand
    /// Whether the controller answers it with Command Complete (else Command Status).
    var completes: Bool
    /// What it is for, for the log line when it fails.
    var purpose: String
}

extension HCIRadio {
    /// Queues a command the radio does not wait on. The radio's command task sends such
    /// commands in order and logs each one that fails: nothing is sent from a stray task, and no
    /// refusal is hidden.
    func issue(_ command: HCICommand, completes: Bool, _ purpose: String) {
        backgroundCommands.yield(BackgroundCommand(command: command, completes: completes, purpose: purpose))
    }

    /// Sends a command whose failure the radio can live with (a controller that keeps no
    /// scan to stop, a peer that refuses a request) and logs the failure instead of hiding it.
    func attempt(_ command: HCICommand, completes: Bool, _ purpose: String) async {
        do {
            if completes {
                _ = try await host.execute(command)
            } else {
                _ = try await host.send(command)
            }
        } catch {
            logger.debug("\(purpose) did not succeed (\(command.opcode)): \(error)")
        }
    }

    /// Starts the task that sends ``issue(_:completes:_:)``'s commands, owned by the radio until it stops.
    func startCommandTask() {
        let (stream, continuation) = AsyncStream.makeStream(of: BackgroundCommand.self)
        backgroundCommands = continuation
        commandTask = Task {
            for await item in stream {
                await self.attempt(item.command, completes: item.completes, item.purpose)
            }
        }
    }
}
