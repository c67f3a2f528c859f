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

/// The best rates of two bodies measured in alternating rounds (`a`, `b`, `a`, `b`, …): a
/// machine busy for a while slows both alike, so their ratio holds where two measurements
/// taken seconds apart would not.
func bestRates(rounds: Int = 6, seconds: Double, _ a: () throws -> Int, _ b: () throws -> Int) rethrows -> (Double, Double) {
    var best = (0.0, 0.0)
    for _ in 0..<rounds {
        best.0 = max(best.0, try bestRate(rounds: 1, seconds: seconds, a))
        best.1 = max(best.1, try bestRate(rounds: 1, seconds: seconds, b))
    }
    return best
}
