import BleuCore

/// What is left of a weight after `age`, halving every `halfLife`: 1 at age zero, 0.5 after one
/// half-life (a negative age counts as zero). The one decay of the policies: the pool's recency,
/// the radio choice's forgiveness of failures.
func halving(after age: Duration, halfLife: Duration) -> Double {
    let age = max(0, Double(age.nanoseconds))
    return pow(0.5, age / max(1, Double(halfLife.nanoseconds)))
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
