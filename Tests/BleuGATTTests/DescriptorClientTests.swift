import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// Typed descriptors read and written by a ``GATTClient`` from a characteristic hosted on an
/// emulated peripheral, and ``GATTClient/isNotifying(_:)`` following its subscriptions.
@Suite("Typed descriptors on the client: end to end")
struct DescriptorClientTests {
    static let service: BluetoothUUID = "9F1E0100-7B51-4C9A-9E2A-1B2C3D4E5F60"
    static let calibration = GATTDescriptor<Int16>("9F1E0101-7B51-4C9A-9E2A-1B2C3D4E5F60", name: "Calibration", codec: .sint16)
    static let percent = PresentationFormat(format: .uint16, unit: PresentationFormat.Unit.percentage)
    static let measurement = EnvironmentalSensingMeasurement(samplingFunction: .arithmeticMean, measurementPeriod: 60,
                                                             updateInterval: 3600, application: .water, measurementUncertainty: 4)
    static let trigger = EnvironmentalSensingTriggerSetting(condition: .fixedInterval, operand: .seconds(30))
    /// A characteristic with no descriptor of its own (the backend adds a configuration one).
    static let plain = Characteristic<UInt8>("9F1E0103-7B51-4C9A-9E2A-1B2C3D4E5F60", name: "Plain", codec: .uint8,
                                             properties: [.read, .notify])

    /// A characteristic carrying every typed descriptor, with the values the tests expect.
    static func level() throws -> Characteristic<UInt16> {
        Characteristic<UInt16>(
            "9F1E0102-7B51-4C9A-9E2A-1B2C3D4E5F60", name: "Tank Level", codec: .uint16, properties: [.read, .notify],
            userDescription: "Tank level", presentationFormat: percent,
            descriptors: [
                try GATTDescriptor.extendedProperties.definition([.writableAuxiliaries]),
                try GATTDescriptor.serverCharacteristicConfiguration.definition([.broadcast]),
                try GATTDescriptor.validRange(.uint16).definition(ValidRange<UInt16>(lower: 0, upper: 10_000)),
                try GATTDescriptor.environmentalSensingMeasurement.definition(measurement),
                try GATTDescriptor.environmentalSensingTriggerSetting.definition(trigger),
                try GATTDescriptor.environmentalSensingConfiguration.definition(.anyTrigger),
                try calibration.definition(-7),
                // Bytes that are not a presentation format, under a UUID of our own.
                DescriptorDefinition(uuid: "9F1E0104-7B51-4C9A-9E2A-1B2C3D4E5F60", value: bytes("06 00 AD")),
            ])
    }

    static func connected() async throws -> (GATTFixture, RemoteGATTService, Characteristic<UInt16>) {
        let level = try level()
        let (fixture, _) = try await GATTFixture.make { server in
            try await server.host(ServiceDeclaration(service) {
                level
                plain
            })
        }
        let remote = try await fixture.client.discoverService(service)
        return (fixture, remote, level)
    }

    @Test("every typed descriptor of a hosted characteristic reads as the value the peripheral declared")
    func readsEveryDescriptor() async throws {
        let (fixture, service, level) = try await Self.connected()
        #expect(try await service.read(.userDescription, of: level) == "Tank level")
        #expect(try await service.read(.presentationFormat, of: level) == Self.percent)
        #expect(try await service.read(.extendedProperties, of: level) == [.writableAuxiliaries])
        #expect(try await service.read(.serverCharacteristicConfiguration, of: level) == [.broadcast])
        #expect(try await service.read(.clientCharacteristicConfiguration, of: level) == [])
        #expect(try await service.read(.validRange(of: level), of: level) == ValidRange<UInt16>(lower: 0, upper: 10_000))
        #expect(try await service.read(.environmentalSensingMeasurement, of: level) == Self.measurement)
        #expect(try await service.read(.environmentalSensingTriggerSetting, of: level) == Self.trigger)
        #expect(try await service.read(.environmentalSensingConfiguration, of: level) == .anyTrigger)
        #expect(try await service.read(Self.calibration, of: level) == -7)
        // The same through the client, with the characteristic as discovered.
        let remote = try service.remote(level)
        #expect(try await fixture.client.read(.userDescription, of: remote) == "Tank level")
        #expect(try await fixture.client.remote(.presentationFormat, of: remote).characteristicValueHandle == remote.valueHandle)
    }

    @Test("a descriptor the characteristic lacks, or an unknown characteristic, is a typed error")
    func missing() async throws {
        let (_, service, _) = try await Self.connected()
        let noDescription = await thrown { try await service.read(.userDescription, of: Self.plain) }
        #expect(noDescription as? GATTError
            == .descriptorNotFound(descriptor: "Characteristic User Description", uuid: BluetoothUUID(0x2901), characteristic: "Plain"),
            "\(String(describing: noDescription))")
        let noRange = await thrown { try await service.read(.validRange(.uint8), of: Self.plain) }
        #expect(noRange as? GATTError == .descriptorNotFound(descriptor: "Valid Range", uuid: BluetoothUUID(0x2906), characteristic: "Plain"),
                "\(String(describing: noRange))")
        let absent = Characteristic<UInt8>("9F1E01FF-7B51-4C9A-9E2A-1B2C3D4E5F60", name: "Absent", codec: .uint8, properties: [.read])
        #expect(await thrown { try await service.read(.userDescription, of: absent) } as? GATTError
            == .characteristicNotFound(characteristic: "Absent", uuid: absent.uuid, service: service.name))
    }

    @Test("bytes that are not the descriptor's layout fail with decodingFailed naming the descriptor and field")
    func undecodable() async throws {
        let (_, service, level) = try await Self.connected()
        let mislabelled = GATTDescriptor("9F1E0104-7B51-4C9A-9E2A-1B2C3D4E5F60", name: "Mislabelled", codec: PresentationFormat.codec)
        let error = await thrown { try await service.read(mislabelled, of: level) }
        guard case GATTError.decodingFailed(let codecError)? = error as? GATTError else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(codecError.kind == .invalidLength && codecError.path == ["Mislabelled", "Unit"])
        // A valid range read with the wrong width: four bytes are not two uint32 bounds.
        let wide = await thrown { try await service.read(.validRange(.uint32), of: level) }
        guard case GATTError.decodingFailed(let wideError)? = wide as? GATTError else {
            Issue.record("expected decodingFailed, got \(String(describing: wide))")
            return
        }
        #expect(wideError.path == ["Valid Range", "Upper Inclusive Value"])
    }

    @Test("writes: configuration refused, a value too long not sent, a read-only descriptor's refusal arrives as its ATT error")
    func writes() async throws {
        let (_, service, level) = try await Self.connected()
        #expect(await thrown { try await service.write([.notification], to: .clientCharacteristicConfiguration, of: level) } as? GATTError
            == .configuredBySubscribing(characteristic: "Tank Level"))
        #expect(try await service.read(.clientCharacteristicConfiguration, of: level) == [], "nothing was written")

        let tooLong = await thrown { try await service.write(String(repeating: "x", count: 513), to: .userDescription, of: level) }
        guard case GATTError.encodingFailed(let codecError)? = tooLong as? GATTError else {
            Issue.record("expected encodingFailed, got \(String(describing: tooLong))")
            return
        }
        #expect(codecError.path == ["Characteristic User Description"])

        // The emulated peripheral serves descriptors with static values only, so it refuses the write.
        let refused = await thrown { try await service.write("Water tank", to: .userDescription, of: level) }
        #expect(attError(refused) == .writeNotPermitted, "\(String(describing: refused))")
        #expect(try await service.read(.userDescription, of: level) == "Tank level")
        #expect(await thrown { try await service.write("x", to: .userDescription, of: Self.plain) } as? GATTError
            == .descriptorNotFound(descriptor: "Characteristic User Description", uuid: BluetoothUUID(0x2901), characteristic: "Plain"))
    }

    @Test("isNotifying: false before, true once subscribed (the server's configuration agrees), false after unsubscribe")
    func isNotifyingFollowsUnsubscribe() async throws {
        let (fixture, service, level) = try await Self.connected()
        #expect(await service.isNotifying(level) == false)
        let stream = try await service.subscribe(to: level)
        #expect(await service.isNotifying(level))
        #expect(await fixture.client.isNotifying(try service.remote(level)))
        #expect(await service.isNotifying(Self.plain) == false, "only the subscribed characteristic")
        #expect(try await service.read(.clientCharacteristicConfiguration, of: level) == [.notification])

        try await service.unsubscribe(from: level)
        #expect(await service.isNotifying(level) == false)
        #expect(try await service.read(.clientCharacteristicConfiguration, of: level) == [])
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == nil, "the stream ended with the unsubscription")
    }

    @Test("isNotifying: false once the last stream is dropped, and once the peripheral is disconnected")
    func isNotifyingFollowsStreamsAndLink() async throws {
        let (fixture, service, level) = try await Self.connected()
        do {
            let dropped = try await service.subscribe(to: level)
            #expect(await service.isNotifying(level))
            _ = dropped
        }
        #expect(await service.isNotifying(level) == false, "the dropped stream turned notifications off")

        let kept = try await service.subscribe(to: level)
        #expect(await service.isNotifying(level))
        await fixture.central.cancelConnection(fixture.client.peripheral)
        #expect(await service.isNotifying(level) == false)
        _ = kept
    }

    @Test("isNotifying: a stream that ended with the link stays off after a reconnection")
    func isNotifyingAfterReconnection() async throws {
        let (fixture, service, level) = try await Self.connected()
        let stream = try await service.subscribe(to: level)
        #expect(await service.isNotifying(level))
        await fixture.central.cancelConnection(fixture.client.peripheral)
        var iterator = stream.makeAsyncIterator()
        do {
            while try await iterator.next() != nil {}
        } catch {
            // The link's error ends the stream: expected.
        }
        try await fixture.central.connect(fixture.client.peripheral)
        #expect(await fixture.central.isConnected(fixture.client.peripheral))
        #expect(await service.isNotifying(level) == false, "nothing subscribed on the new link")
    }
}
