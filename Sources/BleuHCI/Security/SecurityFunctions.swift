import Crypto
import CryptoExtras

/// The cryptographic functions of the Security Manager (Core Specification Vol 3 Part H §2.2),
/// built on AES-128 and AES-CMAC (RFC 4493).
///
/// Every value is written **most significant octet first**, as the specification writes its
/// functions and sample data (Appendix D); SMP PDUs and HCI carry the same values least
/// significant octet first, and their codecs reverse them. Keys and values of the wrong length
/// are programming errors (the PDU codecs check lengths before anything reaches here).
public enum SecurityFunctions {
    /// The security function `e`: AES-128 of one 16-octet block.
    public static func e(key: [UInt8], _ plaintext: [UInt8]) -> [UInt8] {
        precondition(key.count == 16 && plaintext.count == 16, "e takes a 16-octet key and block")
        var block = plaintext
        do {
            try AES.permute(&block, key: SymmetricKey(data: key))
        } catch {
            preconditionFailure("AES-128 refused a 16-octet key and block: \(error)")
        }
        return block
    }

    /// AES-CMAC (RFC 4493) of `message` under a 16-octet `key`: the 16-octet MAC.
    public static func aesCMAC(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        precondition(key.count == 16, "AES-CMAC takes a 16-octet key")
        let subkey1 = doubled(e(key: key, [UInt8](repeating: 0, count: 16)))
        let subkey2 = doubled(subkey1)
        let blocks = max(1, (message.count + 15) / 16)
        let complete = !message.isEmpty && message.count % 16 == 0
        var state = [UInt8](repeating: 0, count: 16)
        for index in 0..<(blocks - 1) {
            for offset in 0..<16 { state[offset] ^= message[index * 16 + offset] }
            state = e(key: key, state)
        }
        var last = Array(message[((blocks - 1) * 16)...])
        if complete {
            for offset in 0..<16 { last[offset] ^= subkey1[offset] }
        } else {
            last.append(0x80)
            last += [UInt8](repeating: 0, count: 16 - last.count)
            for offset in 0..<16 { last[offset] ^= subkey2[offset] }
        }
        for offset in 0..<16 { state[offset] ^= last[offset] }
        return e(key: key, state)
    }

    /// RFC 4493's subkey step: the block shifted left by one bit, folded with 0x87 when a bit
    /// fell off.
    private static func doubled(_ block: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 16)
        for index in 0..<16 {
            let carry: UInt8 = index < 15 ? block[index + 1] >> 7 : 0
            result[index] = block[index] << 1 | carry
        }
        if block[0] & 0x80 != 0 { result[15] ^= 0x87 }
        return result
    }

    // MARK: LE legacy pairing

    /// The legacy confirm value `c1`: `e(k, e(k, r ⊕ p1) ⊕ p2)`, where `p1` is the pairing
    /// response, the pairing request and the two address types, and `p2` the two addresses.
    ///
    /// - Parameters:
    ///   - k: The TK.
    ///   - r: The side's 16-octet random value.
    ///   - pairingRequest: The 7-octet Pairing Request, opcode last (most significant octet
    ///     first, so the reverse of the bytes on air).
    ///   - pairingResponse: The 7-octet Pairing Response, likewise.
    ///   - initiatorAddressType: 0 public, 1 random.
    ///   - responderAddressType: 0 public, 1 random.
    ///   - initiatorAddress: The initiator's 6-octet address.
    ///   - responderAddress: The responder's 6-octet address.
    public static func c1(k: [UInt8], r: [UInt8], pairingRequest: [UInt8], pairingResponse: [UInt8],
                          initiatorAddressType: UInt8, responderAddressType: UInt8,
                          initiatorAddress: [UInt8], responderAddress: [UInt8]) -> [UInt8] {
        precondition(r.count == 16 && pairingRequest.count == 7 && pairingResponse.count == 7
                     && initiatorAddress.count == 6 && responderAddress.count == 6, "c1's operands have fixed lengths")
        let p1 = pairingResponse + pairingRequest + [responderAddressType & 1, initiatorAddressType & 1]
        let p2 = [UInt8](repeating: 0, count: 4) + initiatorAddress + responderAddress
        return e(key: k, xor(e(key: k, xor(r, p1)), p2))
    }

    /// The legacy key generation function `s1`: the STK from the two random values, of which
    /// it takes the least significant 64 bits each.
    public static func s1(k: [UInt8], r1: [UInt8], r2: [UInt8]) -> [UInt8] {
        precondition(r1.count == 16 && r2.count == 16, "s1 takes two 16-octet values")
        return e(key: k, Array(r1[8...]) + Array(r2[8...]))
    }

    // MARK: LE Secure Connections

    /// The confirm value generation function `f4`: AES-CMAC keyed by `x` of `u ‖ v ‖ z`
    /// (`u`, `v` public key X coordinates, 32 octets; `z` one octet).
    public static func f4(u: [UInt8], v: [UInt8], x: [UInt8], z: UInt8) -> [UInt8] {
        precondition(u.count == 32 && v.count == 32, "f4 takes two 32-octet coordinates")
        return aesCMAC(key: x, u + v + [z])
    }

    /// The key generation function `f5`: the MacKey and the LTK from the Diffie-Hellman key `w`,
    /// the two nonces and the two addresses (`a1`, `a2`: the address type octet then the six
    /// address octets).
    public static func f5(w: [UInt8], n1: [UInt8], n2: [UInt8], a1: [UInt8], a2: [UInt8]) -> (macKey: [UInt8], ltk: [UInt8]) {
        precondition(w.count == 32 && n1.count == 16 && n2.count == 16 && a1.count == 7 && a2.count == 7,
                     "f5's operands have fixed lengths")
        let salt: [UInt8] = [0x6C, 0x88, 0x83, 0x91, 0xAA, 0xF5, 0xA5, 0x38, 0x60, 0x37, 0x0B, 0xDB, 0x5A, 0x60, 0x83, 0xBE]
        let t = aesCMAC(key: salt, w)
        let keyID: [UInt8] = [0x62, 0x74, 0x6C, 0x65]   // "btle"
        let length: [UInt8] = [0x01, 0x00]              // 256 bits
        let body = keyID + n1 + n2 + a1 + a2 + length
        return (aesCMAC(key: t, [0] + body), aesCMAC(key: t, [1] + body))
    }

    /// The check value generation function `f6`: AES-CMAC keyed by `w` (the MacKey) of the
    /// nonces, `r`, the IO capabilities (AuthReq, OOB data flag, IO capability: three octets)
    /// and the two addresses.
    public static func f6(w: [UInt8], n1: [UInt8], n2: [UInt8], r: [UInt8], ioCap: [UInt8], a1: [UInt8], a2: [UInt8]) -> [UInt8] {
        precondition(n1.count == 16 && n2.count == 16 && r.count == 16 && ioCap.count == 3 && a1.count == 7 && a2.count == 7,
                     "f6's operands have fixed lengths")
        return aesCMAC(key: w, n1 + n2 + r + ioCap + a1 + a2)
    }

    /// The numeric comparison value generation function `g2`: a 32-bit value whose last six
    /// decimal digits both devices show.
    public static func g2(u: [UInt8], v: [UInt8], x: [UInt8], y: [UInt8]) -> UInt32 {
        precondition(u.count == 32 && v.count == 32 && y.count == 16, "g2's operands have fixed lengths")
        let mac = aesCMAC(key: x, u + v + y)
        return mac[12...].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The link key conversion function `h6`: AES-CMAC keyed by `w` of a 4-octet key id.
    public static func h6(w: [UInt8], keyID: [UInt8]) -> [UInt8] {
        precondition(keyID.count == 4, "h6 takes a 4-octet key id")
        return aesCMAC(key: w, keyID)
    }

    /// The link key conversion function `h7`: AES-CMAC keyed by `salt` of `w`.
    public static func h7(salt: [UInt8], w: [UInt8]) -> [UInt8] {
        aesCMAC(key: salt, w)
    }

    // MARK: Privacy

    /// The random address hash function `ah`: the 24-bit hash of a resolvable private
    /// address's 24-bit `prand` under an IRK.
    public static func ah(k: [UInt8], r: [UInt8]) -> [UInt8] {
        precondition(r.count == 3, "ah takes a 3-octet prand")
        return Array(e(key: k, [UInt8](repeating: 0, count: 13) + r)[13...])
    }

    private static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        zip(a, b).map { $0 ^ $1 }
    }
}
