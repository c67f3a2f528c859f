extension Duration {
    /// The duration in whole nanoseconds, rounded towards zero and saturating at `Int64`'s
    /// bounds (a duration of about 292 years or more). For the modules' own arithmetic on
    /// clocks and timers; not public API.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = product.addingReportingOverflow(attoseconds / 1_000_000_000)
        if sumOverflow { return seconds < 0 ? .min : .max }
        return sum
    }
}
