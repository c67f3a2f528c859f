/// How `Date` values are represented; encoder and decoder of one link must agree.
public enum CBORDateFormat: Sendable, Hashable {
    /// Tag 1 around the seconds since 1970 (an integer when whole, else the shortest exact float),
    /// as every CBOR library reads it. Precise to within a few hundred nanoseconds for present-day
    /// dates (a `Date` stores seconds since 2001 in a `Double`, and the shift to 1970 rounds).
    /// The decoder also reads tag 0 (RFC 3339 text) and untagged numbers as epoch seconds.
    case epochTime
    /// `timeIntervalSinceReferenceDate` as an untagged float: bit-exact round trips between Swift
    /// peers, like Foundation's `deferredToDate`. The decoder still reads tags 0 and 1.
    case secondsSinceReferenceDate
}
