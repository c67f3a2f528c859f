import BleuTesting

/// How many of `host`'s stream sources have ended, once at least one has (polling, with
/// yields, as a source notices its cancellation at its next step); 0 if none did within 1,000
/// looks.
func waitForEndedSources(of host: StreamingSensorActor) async throws -> Int {
    var ended = 0
    for _ in 0..<1000 where ended == 0 {
        ended = try await host.endedSources()
        await Task.yield()
    }
    return ended
}
