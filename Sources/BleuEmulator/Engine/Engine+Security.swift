import BleuATT
import BleuCore
import DequeModule
import Foundation

/// Pairing, bonding and encryption. A pairing runs as its Security Manager PDUs over the link
/// (LE Secure Connections: Just Works, or passkey entry with its 20 confirm rounds; or LE legacy
/// passkey entry), then the Link Layer encryption start; a bond's keys skip straight to the
/// encryption start. A method whose keys fall short of what the central needs fails after the
/// features exchange with Authentication Requirements.
extension Engine {
    /// A manager asks for at least `minimum` on the link ("pair now", or a peripheral's Security
    /// Request, which a central answers by pairing as CoreBluetooth does): the operation
    /// succeeds at once when the link has it, else once pairing (or the bond's encryption)
    /// gives it.
    mutating func raiseSecurity(on linkID: LinkID, to minimum: SecurityLevel, operation: OperationID) {
        guard let link = links[linkID] else { return fail(operation, BleuError.invalidState(.connectionClosed(handle: 0))) }
        if link.security >= minimum { return succeed(operation) }
        startSecurity(on: linkID, required: minimum, resumption: .operation(operation, minimum: minimum))
    }

    /// Raises the link's security to `required`, then resumes what waits for it. Requests that
    /// arrive meanwhile wait behind the one that triggered it.
    mutating func startSecurity(on linkID: LinkID, required: SecurityLevel, resumption: PairingResumption) {
        guard let link = links[linkID], let central = centrals[link.central], let peripheral = peripherals[link.peripheral] else { return }
        if central.external != nil || peripheral.external != nil {
            // The emulator's pairing is not byte-level: it cannot pair with an HCI host's SMP.
            record(.security, link: linkID, "pairing with an HCI host is not supported: Pairing Not Supported")
            return failResumptions([resumption], reason: .pairingNotSupported, on: linkID)
        }
        if links[linkID]?.pairing != nil {
            links[linkID]?.pairing?.resumptions.append(resumption)
            return
        }
        var steps = Deque<PairingStep>()
        var level = SecurityLevel.encrypted
        var passkey: UInt32?
        let bonded = bonds[BondKey(central: central.address, peripheral: peripheral.address)]
        if let bonded, bonded >= required {
            level = bonded
        } else {
            let c = RadioSchedule.Direction.centralToPeripheral
            let p = RadioSchedule.Direction.peripheralToCentral
            steps.append(.smp(SMPMessage(code: .pairingRequest, direction: c)))
            let method = configuration.pairing.method
            if method == .rejected {
                steps.append(.smp(SMPMessage(code: .pairingFailed, direction: p, reason: 0x05)))
            } else if method.level < required {
                // The features exchanged lead to keys too weak for what the central needs: it
                // ends pairing with Authentication Requirements, as BleuHCI's session does.
                steps += [.smp(SMPMessage(code: .pairingResponse, direction: p)),
                          .smp(SMPMessage(code: .pairingFailed, direction: c, reason: 0x03))]
            } else {
                level = method.level
                steps.append(.smp(SMPMessage(code: .pairingResponse, direction: p)))
                switch method {
                case .rejected:
                    break
                case .justWorks:
                    steps += [.smp(SMPMessage(code: .publicKey, direction: c)), .smp(SMPMessage(code: .publicKey, direction: p)),
                              .smp(SMPMessage(code: .pairingConfirm, direction: p)),
                              .smp(SMPMessage(code: .pairingRandom, direction: c)), .smp(SMPMessage(code: .pairingRandom, direction: p)),
                              .smp(SMPMessage(code: .dhKeyCheck, direction: c)), .smp(SMPMessage(code: .dhKeyCheck, direction: p))]
                case .passkeyEntry:
                    passkey = UInt32(chance.pairing.next() % 1_000_000)
                    steps += [.smp(SMPMessage(code: .publicKey, direction: c)), .smp(SMPMessage(code: .publicKey, direction: p)),
                              .enterPasskey]
                    for _ in 0..<20 {
                        steps += [.smp(SMPMessage(code: .pairingConfirm, direction: c)), .smp(SMPMessage(code: .pairingConfirm, direction: p)),
                                  .smp(SMPMessage(code: .pairingRandom, direction: c)), .smp(SMPMessage(code: .pairingRandom, direction: p))]
                    }
                    steps += [.smp(SMPMessage(code: .dhKeyCheck, direction: c)), .smp(SMPMessage(code: .dhKeyCheck, direction: p))]
                case .legacyPasskeyEntry:
                    // LE legacy pairing: one confirm and random each way, then the STK encrypts.
                    passkey = UInt32(chance.pairing.next() % 1_000_000)
                    steps += [.enterPasskey,
                              .smp(SMPMessage(code: .pairingConfirm, direction: c)), .smp(SMPMessage(code: .pairingConfirm, direction: p)),
                              .smp(SMPMessage(code: .pairingRandom, direction: c)), .smp(SMPMessage(code: .pairingRandom, direction: p))]
                }
            }
        }
        steps += EncryptionStep.allCases.map { .encryption($0) }
        if bonded == nil || bonded! < required, configuration.pairing.bonding {
            steps += [.smp(SMPMessage(code: .identityInformation, direction: .peripheralToCentral)),
                      .smp(SMPMessage(code: .identityInformation, direction: .centralToPeripheral))]
        }
        let id = numbers.nextProcedure()
        links[linkID]?.pairing = PairingProcedure(id: id, steps: steps, level: level, passkey: passkey,
                                                  bonds: configuration.pairing.bonding && !(bonded.map { $0 >= required } ?? false),
                                                  resumptions: [resumption])
        advancePairing(on: linkID)
    }

    /// Sends the next step, or finishes when none is left.
    private mutating func advancePairing(on linkID: LinkID) {
        guard let step = links[linkID]?.pairing?.steps.popFirst() else {
            finishPairing(on: linkID)
            return
        }
        switch step {
        case .smp(let message):
            send(LinkPacket(direction: message.direction, payload: .smp(message)), on: linkID)
        case .encryption(let encryption):
            send(LinkPacket(direction: encryption.direction, payload: .encryption(encryption)), on: linkID)
        case .enterPasskey:
            askPasskey(on: linkID)
        }
    }

    private mutating func askPasskey(on linkID: LinkID) {
        guard let link = links[linkID], let pairing = link.pairing, let passkey = pairing.passkey else { return }
        guard let handler = centrals[link.central]?.passkeyHandler else {
            failPairingStep(on: linkID, reason: 0x01)
            return
        }
        let request = PasskeyRequest(peripheral: link.peripheralID, displayedPasskey: passkey)
        hooks.requestPasskey(handler, request, linkID, pairing.id)
    }

    /// The central's user entered a passkey (or cancelled): pairing goes on, or fails with
    /// Passkey Entry Failed (cancelled) or Confirm Value Failed (a wrong passkey).
    mutating func passkeyEntered(_ entered: UInt32?, on linkID: LinkID, procedure: UInt64) {
        catchUp()
        guard let pairing = links[linkID]?.pairing, pairing.id == procedure else { return }
        if entered == nil {
            failPairingStep(on: linkID, reason: 0x01)
        } else if entered != pairing.passkey {
            links[linkID]?.pairing?.steps = [.smp(SMPMessage(code: .pairingConfirm, direction: .centralToPeripheral)),
                                             .smp(SMPMessage(code: .pairingFailed, direction: .peripheralToCentral, reason: 0x04))]
            advancePairing(on: linkID)
        } else {
            advancePairing(on: linkID)
        }
    }

    private mutating func failPairingStep(on linkID: LinkID, reason: UInt8) {
        links[linkID]?.pairing?.steps = [.smp(SMPMessage(code: .pairingFailed, direction: .centralToPeripheral, reason: reason))]
        advancePairing(on: linkID)
    }

    mutating func pairingReceived(_ message: SMPMessage, on linkID: LinkID) {
        guard links[linkID]?.pairing != nil else { return }
        if message.code == .pairingFailed {
            failPairing(on: linkID, reason: SMPReason(rawValue: message.reason))
            return
        }
        advancePairing(on: linkID)
    }

    mutating func encryptionReceived(_ step: EncryptionStep, on linkID: LinkID) {
        guard links[linkID]?.pairing != nil else { return }
        advancePairing(on: linkID)
    }

    private mutating func finishPairing(on linkID: LinkID) {
        guard let link = links[linkID], let pairing = link.pairing else { return }
        links[linkID]?.pairing = nil
        links[linkID]?.security = pairing.level
        if pairing.bonds, let central = centrals[link.central], let peripheral = peripherals[link.peripheral] {
            bonds[BondKey(central: central.address, peripheral: peripheral.address)] = pairing.level
        }
        record(.security, link: linkID, "link encrypted (\(pairing.level))\(pairing.bonds ? ", bonded" : "")")
        for resumption in pairing.resumptions {
            switch resumption {
            case .attRequest:
                if let request = links[linkID]?.client.operations.first?.procedure?.outstanding { sendRequest(request, on: linkID) }
            case .channelOpen(let channel):
                retryChannelOpen(channel)
            case let .operation(id, minimum):
                // The same shortfall BleuHCI reports: the association model could not give it.
                if pairing.level >= minimum { succeed(id) } else { fail(id, BleuError.pairingFailed(.smp(.authenticationRequirements))) }
            }
        }
    }

    private mutating func failPairing(on linkID: LinkID, reason: SMPReason) {
        guard let pairing = links[linkID]?.pairing else { return }
        links[linkID]?.pairing = nil
        record(.security, link: linkID, "pairing failed: \(reason)")
        failResumptions(pairing.resumptions, reason: reason, on: linkID)
    }

    /// What waited for a pairing that failed fails with its reason.
    private mutating func failResumptions(_ resumptions: [PairingResumption], reason: SMPReason, on linkID: LinkID) {
        for resumption in resumptions {
            switch resumption {
            case .attRequest:
                finishHead(on: linkID, .failure(BleuError.pairingFailed(.smp(reason))))
            case .channelOpen(let channel):
                failChannelOpen(channel, BleuError.pairingFailed(.smp(reason)))
            case .operation(let id, _):
                fail(id, BleuError.pairingFailed(.smp(reason)))
            }
        }
    }
}
