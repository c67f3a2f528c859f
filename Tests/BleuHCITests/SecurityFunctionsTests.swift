import BleuHCI
import Testing

/// The Security Manager's functions against the specification's sample data (Core Specification
/// Vol 3 Part H Appendix D) and AES-CMAC against RFC 4493's examples. Values are written most
/// significant octet first, as both documents print them.
@Suite("Security Manager functions: the specification's sample data")
struct SecurityFunctionsTests {
    static func bytes(_ text: String) -> [UInt8] { hexBytes(text.filter { !$0.isWhitespace }) }

    /// Appendix D.1's P-256 sample keys (the private key of A is the specification's debug key).
    static let privateA = bytes("3f49f6d4 a3c55f38 74c9b3e3 d2103f50 4aff607b eb40b799 5899b8a6 cd3c1abd")
    static let privateB = bytes("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd")
    static let publicAX = bytes("20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6")
    static let publicAY = bytes("dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b")
    static let publicBX = bytes("1ea1f0f0 1faf1d96 09592284 f19e4c00 47b58afd 8615a69f 559077b2 2faaa190")
    static let publicBY = bytes("4c55f33e 429dad37 7356703a 9ab85160 472d1130 e28e3676 5f89aff9 15b1214a")
    static let dhKey = bytes("ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698")

    static let n1 = bytes("d5cb8454 d177733e ffffb2ec 712baeab")
    static let n2 = bytes("a6e8e7cc 25a75f6e 216583f7 ff3dc4cf")
    static let a1 = bytes("00561237 37bfce")
    static let a2 = bytes("00a71370 2dcfc1")

    @Test("P-256: both sides of the sample derive the sample DHKey; a point off the curve is refused")
    func ecdh() throws {
        let a = try #require(PairingKeyPair(privateKey: Self.privateA))
        let b = try #require(PairingKeyPair(privateKey: Self.privateB))
        #expect(a.x == Self.publicAX && a.y == Self.publicAY)
        #expect(b.x == Self.publicBX && b.y == Self.publicBY)
        #expect(try a.dhKey(peerX: b.x, peerY: b.y) == Self.dhKey)
        #expect(try b.dhKey(peerX: a.x, peerY: a.y) == Self.dhKey)
        var offCurve = Self.publicBY
        offCurve[31] ^= 1
        #expect(throws: PairingKeyPair.InvalidPublicKey.self) { try a.dhKey(peerX: Self.publicBX, peerY: offCurve) }
        #expect(throws: PairingKeyPair.InvalidPublicKey.self) { try a.dhKey(peerX: [UInt8](repeating: 0, count: 32), peerY: [UInt8](repeating: 0, count: 32)) }
        // Fresh pairs agree with each other.
        let c = PairingKeyPair(), d = PairingKeyPair()
        #expect(try c.dhKey(peerX: d.x, peerY: d.y) == d.dhKey(peerX: c.x, peerY: c.y))
    }

    @Test("AES-CMAC: RFC 4493's four examples (empty, one block, a partial last block, four blocks)")
    func aesCMAC() {
        let key = Self.bytes("2b7e1516 28aed2a6 abf71588 09cf4f3c")
        let message = Self.bytes("""
            6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51
            30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710
            """)
        #expect(SecurityFunctions.aesCMAC(key: key, []) == Self.bytes("bb1d6929 e9593728 7fa37d12 9b756746"))
        #expect(SecurityFunctions.aesCMAC(key: key, Array(message[..<16])) == Self.bytes("070a16b4 6b4d4144 f79bdd9d d04a287c"))
        #expect(SecurityFunctions.aesCMAC(key: key, Array(message[..<40])) == Self.bytes("dfa66747 de9ae630 30ca3261 1497c827"))
        #expect(SecurityFunctions.aesCMAC(key: key, message) == Self.bytes("51f0bebf 7e3b9d92 fc497417 79363cfe"))
    }

    @Test("c1 and s1: the legacy confirm value and STK of the sample")
    func legacy() {
        let zero = [UInt8](repeating: 0, count: 16)
        let confirm = SecurityFunctions.c1(
            k: zero, r: Self.bytes("5783D52156AD6F0E6388274EC6702EE0"),
            pairingRequest: Self.bytes("07071000000101"), pairingResponse: Self.bytes("05000800000302"),
            initiatorAddressType: 1, responderAddressType: 0,
            initiatorAddress: Self.bytes("A1A2A3A4A5A6"), responderAddress: Self.bytes("B1B2B3B4B5B6"))
        #expect(confirm == Self.bytes("1e1e3fef878988ead2a74dc5bef13b86"))
        let stk = SecurityFunctions.s1(k: zero, r1: Self.bytes("000F0E0D0C0B0A091122334455667788"),
                                       r2: Self.bytes("010203040506070899AABBCCDDEEFF00"))
        #expect(stk == Self.bytes("9a1fe1f0e8b0f49b5b4216ae796da062"))
    }

    /// The specification's f4 and g2 samples take private key B's octets for `V` (any 32 octets
    /// do for the function); so does this test.
    @Test("f4, f5, f6 and g2: the Secure Connections sample")
    func secureConnections() {
        let x = Self.n1
        #expect(SecurityFunctions.f4(u: Self.publicAX, v: Self.privateB, x: x, z: 0) == Self.bytes("f2c916f1 07a9bd1c f1eda1be a974872d"))
        let keys = SecurityFunctions.f5(w: Self.dhKey, n1: Self.n1, n2: Self.n2, a1: Self.a1, a2: Self.a2)
        #expect(keys.macKey == Self.bytes("2965f176 a1084a02 fd3f6a20 ce636e20"))
        #expect(keys.ltk == Self.bytes("69867911 69d7cd23 980522b5 94750a38"))
        let check = SecurityFunctions.f6(w: keys.macKey, n1: Self.n1, n2: Self.n2, r: Self.bytes("12a3343b b453bb54 08da42d2 0c2d0fc8"),
                                         ioCap: Self.bytes("010102"), a1: Self.a1, a2: Self.a2)
        #expect(check == Self.bytes("e3c47398 9cd0e8c5 d26c0b09 da958f61"))
        #expect(SecurityFunctions.g2(u: Self.publicAX, v: Self.privateB, x: Self.n1, y: Self.n2) == 0x2F9E_D5BA)
    }

    @Test("h6, h7 and ah: the key conversion and address hash samples")
    func conversionAndHash() {
        let key = Self.bytes("ec0234a3 57c8ad05 341010a6 0a397d9b")
        #expect(SecurityFunctions.h6(w: key, keyID: Self.bytes("6c656272")) == Self.bytes("2d9ae102 e76dc91c e8d3a9e2 80b16399"))
        #expect(SecurityFunctions.h7(salt: Self.bytes("00000000 00000000 00000000 746D7031"), w: key)
                == Self.bytes("fb173597 c6a3c0ec d2998c2a 75a57011"))
        #expect(SecurityFunctions.ah(k: key, r: Self.bytes("708194")) == Self.bytes("0dfbaa"))
    }
}
