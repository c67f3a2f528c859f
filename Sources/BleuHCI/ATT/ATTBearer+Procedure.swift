import BleuATT
import BleuCore

extension ATTBearer {
    /// Runs a GATT client procedure to its end over this bearer: sends each request BleuATT's
    /// ``/BleuATT/GATTProcedure`` asks for and feeds it the answers — the same procedure the emulator's
    /// links run. A failure arrives as the ``/BleuCore/BleuError`` the procedure names.
    public func run(_ kind: GATTProcedure.Kind, mtu: Int) async throws -> GATTProcedure.Outcome {
        var procedure = GATTProcedure(kind, mtu: mtu)
        var step = procedure.start()
        while true {
            switch step {
            case .send(let pdu):
                step = procedure.receive(try await request(pdu))
            case .finished(.success(let outcome)):
                return outcome
            case .finished(.failure(let failure)):
                throw failure.bleuError
            }
        }
    }
}
