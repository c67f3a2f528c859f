import Testing

@testable import BleuHCI

@Suite("Pairing: the association model")
struct AssociationModelTests {
    /// Core Specification Vol 3 Part H Table 2.8, as printed: a row per responder IO capability,
    /// a column per initiator's (DisplayOnly, DisplayYesNo, KeyboardOnly, NoInputNoOutput,
    /// KeyboardDisplay). JW Just Works, NC Numeric Comparison, PI passkey shown by the initiator,
    /// PR shown by the responder, PB typed on both; "legacy|SC" where the two differ.
    static let table: [(responder: IOCapability, row: [String])] = [
        (.displayOnly, ["JW", "JW", "PR", "JW", "PR"]),
        (.displayYesNo, ["JW", "JW|NC", "PR", "JW", "PR|NC"]),
        (.keyboardOnly, ["PI", "PI", "PB", "JW", "PI"]),
        (.noInputNoOutput, ["JW", "JW", "JW", "JW", "JW"]),
        (.keyboardDisplay, ["PI", "PI|NC", "PR", "JW", "PI|NC"]),
    ]
    static let columns: [IOCapability] = [.displayOnly, .displayYesNo, .keyboardOnly, .noInputNoOutput, .keyboardDisplay]

    static func model(_ code: Substring) -> AssociationModel {
        switch code {
        case "JW": .justWorks
        case "NC": .numericComparison
        case "PI": .passkeyEntry(.initiatorDisplays)
        case "PR": .passkeyEntry(.responderDisplays)
        default: .passkeyEntry(.bothInput)
        }
    }

    static func features(_ io: IOCapability, _ authentication: AuthenticationRequirements, oob: Bool = false) -> PairingFeatures {
        PairingFeatures(ioCapability: io, oobDataPresent: oob, authentication: authentication, initiatorKeys: [], responderKeys: [])
    }

    @Test("with MITM asked for, the IO capabilities decide as Table 2.8 says, legacy and Secure Connections")
    func table28() {
        for (responder, row) in Self.table {
            for (initiator, cell) in zip(Self.columns, row) {
                let codes = cell.split(separator: "|")
                for secureConnections in [false, true] {
                    let expected = Self.model(secureConnections ? codes.last! : codes.first!)
                    let chosen = AssociationModel.select(initiator: Self.features(initiator, [.mitm]),
                                                         responder: Self.features(responder, []), secureConnections: secureConnections)
                    #expect(chosen == expected, "\(initiator) → \(responder), SC \(secureConnections)")
                }
            }
        }
    }

    @Test("without MITM on either side: Just Works whatever the capabilities")
    func noMITM() {
        for initiator in Self.columns {
            for responder in Self.columns {
                let chosen = AssociationModel.select(initiator: Self.features(initiator, [.bonding, .secureConnections]),
                                                     responder: Self.features(responder, [.bonding]), secureConnections: true)
                #expect(chosen == .justWorks)
                #expect(!chosen.isAuthenticated)
            }
        }
    }

    @Test("OOB: one side's data is enough with Secure Connections; legacy pairing needs both")
    func outOfBand() {
        let withData = Self.features(.noInputNoOutput, [], oob: true)
        let without = Self.features(.keyboardDisplay, [.mitm])
        #expect(AssociationModel.select(initiator: withData, responder: without, secureConnections: true) == .outOfBand)
        // Legacy without both sides' data: the capabilities decide (NoInputNoOutput: Just Works).
        #expect(AssociationModel.select(initiator: withData, responder: without, secureConnections: false) == .justWorks)
        #expect(AssociationModel.select(initiator: withData, responder: withData, secureConnections: false) == .outOfBand)
        #expect(AssociationModel.outOfBand.isAuthenticated)
    }
}
