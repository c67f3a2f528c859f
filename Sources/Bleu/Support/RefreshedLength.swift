/// The longest value a link takes in one write or notification, as the radio last said, asked
/// again once it is ``period`` old.
///
/// It is a fact of the link's ATT MTU, which an exchange can raise but never lower during a link:
/// a kept length is never too long, and a raised MTU is used within a period. Asking on every
/// message was a radio round trip on some backends (a hop onto CoreBluetooth's queue and back,
/// onto the HCI host's actor) and thousands of instructions on the emulator.
struct RefreshedLength: Sendable {
    /// How long a length is used before the radio is asked again.
    static let period: Duration = .seconds(1)

    private var length: Int?
    private var askedAt: Duration = .zero

    /// The kept length, if there is one and it is younger than ``period`` at `now`.
    func current(at now: Duration) -> Int? {
        guard let length, now - askedAt < Self.period else { return nil }
        return length
    }

    /// Keeps `length`, as the radio said it at `now`.
    mutating func keep(_ length: Int, at now: Duration) {
        self.length = length
        askedAt = now
    }
}
