/// Numbers the engine gives what it starts and later recognises by number: procedures
/// (connection attempts, advertising sets, scans, pairing) and the peripheral's ATT requests.
struct SerialNumbers {
    private var procedure: UInt64 = 1
    private var request: UInt64 = 1

    /// A number for a connection attempt, an advertising set, a scan or a pairing procedure.
    mutating func nextProcedure() -> UInt64 {
        defer { procedure += 1 }
        return procedure
    }

    /// A number for an ATT request the peripheral's application answers.
    mutating func nextRequest() -> UInt64 {
        defer { request += 1 }
        return request
    }
}
