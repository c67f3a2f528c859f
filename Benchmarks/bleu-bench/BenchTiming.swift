/// Repeats `body` in rounds of at least `seconds` each and returns the best round's rate: units
/// of work (whatever `body` returns, summed) per second. Best-of-rounds filters out the other
/// processes sharing the machine.
func bestRate(rounds: Int = 3, seconds: Double, _ body: () throws -> Int) rethrows -> Double {
    let clock = ContinuousClock()
    var best = 0.0
    for _ in 0..<rounds {
        var units = 0
        let start = clock.now
        var elapsed = 0.0
        repeat {
            units += try body()
            elapsed = (clock.now - start).seconds
        } while elapsed < seconds
        best = max(best, Double(units) / elapsed)
    }
    return best
}
