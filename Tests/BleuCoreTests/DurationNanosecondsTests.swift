import Testing
@testable import BleuCore

@Suite("Duration in nanoseconds")
struct DurationNanosecondsTests {
    @Test("whole nanoseconds, rounded towards zero on both sides of zero")
    func rounding() {
        #expect(Duration.milliseconds(20).nanoseconds == 20_000_000)
        #expect(Duration(secondsComponent: 1, attosecondsComponent: 999_999_999).nanoseconds == 1_000_000_000)
        #expect(Duration(secondsComponent: 0, attosecondsComponent: 1_999_999_999).nanoseconds == 1)
        #expect((Duration.zero - .nanoseconds(3)).nanoseconds == -3)
        #expect(Duration(secondsComponent: -2, attosecondsComponent: 500_000_000_000_000_000).nanoseconds == -1_500_000_000)
    }

    @Test("saturates at Int64's bounds instead of overflowing")
    func saturation() {
        #expect(Duration.seconds(Int64.max / 1_000_000_000).nanoseconds == Int64.max / 1_000_000_000 * 1_000_000_000)
        #expect(Duration.seconds(Int64.max / 1_000_000_000 + 1).nanoseconds == .max)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds == .min)
        // The multiplication fits, the added fraction does not.
        let edge = Duration(secondsComponent: Int64.max / 1_000_000_000, attosecondsComponent: 999_999_999_999_999_999)
        #expect(edge.nanoseconds == .max)
    }
}
