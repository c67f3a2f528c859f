import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import Distributed
import Foundation
import Testing

/// Counts executions per token: a call executed twice shows up as a count of 2.
distributed actor Ledger: PeripheralActor {
    typealias ActorSystem = BLEActorSystem
    private var executions: [Int: Int] = [:]

    distributed func apply(_ token: Int) -> Int {
        executions[token, default: 0] += 1
        return executions[token]!
    }

    distributed func counts() -> [Int: Int] { executions }
}

@Suite("The whole flow on an unreliable radio")
struct UnreliableTests {
    @Test("every call succeeds or fails with a typed error within its timeout, and none runs twice")
    func unreliable() async throws {
        let seed = ProcessInfo.processInfo.environment["BLEU_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("UnreliableTests seed: \(seed) (rerun with BLEU_SEED=\(seed))")
        var emulator = EmulatorConfiguration.unreliable
        emulator.seed = seed
        emulator.connectionInterval = .microseconds(7500)
        emulator.supervisionTimeout = .milliseconds(200)
        emulator.faults.linkLoss = 0.01
        let callTimeout = Duration.milliseconds(1500)
        var configuration = BLEActorSystem.Configuration.fast
        configuration.callTimeout = callTimeout
        configuration.connectionTimeout = .seconds(1)
        configuration.connectionAttempts = 5
        let pair = ConnectedPair(emulator: emulator, configuration: configuration)
        let ledger = Ledger(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(ledger)
        let remote = try #require(try await pair.central.discover(Ledger.self, timeout: .seconds(10), count: 1).first)

        let clock = ContinuousClock()
        var successes: [Int] = []
        var failures: [String: Int] = [:]
        for batch in 0..<20 {
            let outcomes = await withTaskGroup(of: (Int, Result<Int, any Error>, Duration).self) { group in
                for index in 0..<4 {
                    let token = batch * 4 + index
                    group.addTask {
                        let start = clock.now
                        do {
                            return (token, .success(try await remote.apply(token)), clock.now - start)
                        } catch {
                            return (token, .failure(error), clock.now - start)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for (token, outcome, elapsed) in outcomes {
                // A connection attempt may precede the call; each is bounded by its own timeout.
                #expect(elapsed < callTimeout + configuration.connectionTimeout * configuration.connectionAttempts + .seconds(1),
                        "call \(token) took \(elapsed) (seed \(seed))")
                switch outcome {
                case .success(let executions):
                    #expect(executions == 1, "token \(token) executed \(executions) times (seed \(seed))")
                    successes.append(token)
                case .failure(let error):
                    let typed = error is BleuError || error is BLEActorSystemError
                    #expect(typed, "call \(token) failed with an untyped error \(error) (seed \(seed))")
                    failures["\(type(of: error)).\(String(describing: error).prefix(40))", default: 0] += 1
                }
            }
        }
        let counts = try await ledger.counts()
        #expect(counts.values.allSatisfy { $0 == 1 }, "a call ran twice (seed \(seed)): \(counts.filter { $0.value > 1 })")
        for token in successes { #expect(counts[token] == 1) }
        print("UnreliableTests: \(successes.count) of 80 calls succeeded; failures: \(failures)")
        #expect(successes.count > 0)
    }
}
