import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// End to end on the emulator: a typed peripheral and a typed central of the
/// SIG profiles, through the radio protocols only.
@Suite("Typed GATT on the emulator: the SIG profiles")
struct TypedProfileTests {
    @Test("a typed heart-rate sensor streams measurements that a typed central receives decoded, in order, through a full notification queue")
    func heartRateStream() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.notificationQueueDepth = 2      // the sensor must wait for the queue's ready event
        configuration.subscriptionBufferLimit = 2     // and the central's stream holds the link back
        let (fixture, sensor) = try await GATTFixture.make(configuration: configuration) { server in
            try await server.host(HeartRateService.self) { handlers in
                handlers.onRead(HeartRateService.bodySensorLocation) { _ in .chest }
            }
        }
        let measurements = (0..<200).map { index in
            HeartRateMeasurement(heartRate: UInt16(60 + index % 120) + (index.isMultiple(of: 7) ? 300 : 0),
                                 sensorContact: index.isMultiple(of: 2) ? .detected : .notDetected,
                                 energyExpended: index.isMultiple(of: 5) ? UInt16(index) : nil,
                                 rrIntervals: Array(repeating: UInt16(700 + index), count: index % 4))
        }
        var peripheralEvents = fixture.peripheral.events()
        let heartRate = try await fixture.client.discover(HeartRateService.self)
        #expect(try await heartRate.read(HeartRateService.bodySensorLocation) == .chest)
        let stream = try await heartRate.subscribe(to: HeartRateService.measurement)
        _ = await peripheralEvents.first { if case .subscribed = $0 { true } else { false } }

        var flowEvents = fixture.peripheral.events()
        let sending = Task {
            for measurement in measurements { try await sensor.notify(HeartRateService.measurement, measurement) }
        }
        var received: [HeartRateMeasurement] = []
        for try await measurement in stream {
            received.append(measurement)
            if received.count == measurements.count { break }
        }
        try await sending.value
        #expect(received == measurements)
        // A read marks the end of what the sending produced on the event stream.
        #expect(try await heartRate.read(HeartRateService.bodySensorLocation) == .chest)
        var readyEvents = 0
        while let event = await flowEvents.first(matching: {
            if case .readyToUpdateSubscribers = $0 { true } else if case .readRequest = $0 { true } else { false }
        }) {
            guard case .readyToUpdateSubscribers = event else { break }
            readyEvents += 1
        }
        #expect(readyEvents > 0, "the queue never filled, so the ready-event path was not exercised")
        // The server saw the subscription before the ready events that let the sending finish.
        #expect(sensor.subscribers(of: HeartRateService.measurement) == Set(await fixture.peripheral.connectedCentrals))
    }

    @Test("a battery service read, from a handler and from the value last notified")
    func batteryRead() async throws {
        let (fixture, battery) = try await GATTFixture.make { server in
            try await server.host(BatteryService.self)
        }
        let remote = try await fixture.client.discover(BatteryService.self)
        #expect(attError(await thrown { try await remote.read(BatteryService.level) }) == .unlikelyError,
                "no value yet, no handler: Unlikely Error")
        try battery.setValue(87, for: BatteryService.level)
        #expect(try await remote.read(BatteryService.level) == 87)
        try await battery.notify(BatteryService.level, 42)   // no subscriber: sent to nobody, but stored
        #expect(try await remote.read(BatteryService.level) == 42)
        #expect(throws: GATTError.self) { try battery.setValue(101, for: BatteryService.level) }
    }

    @Test("a Device Information read of every field, served as static values")
    func deviceInformation() async throws {
        let system = SystemID(manufacturerIdentifier: 0x12_3456_789A, organizationallyUniqueIdentifier: 0xABCDEF)
        let pnp = PnPID(vendorIDSource: .bluetoothSIG, vendorID: 0x004C, productID: 0x1234, productVersion: 0x0110)
        let (fixture, _) = try await GATTFixture.make { server in
            try await server.host(DeviceInformationService.declaration {
                try DeviceInformationService.manufacturerName.value("Acme Medical")
                try DeviceInformationService.modelNumber.value("HR-7 Ünïcode")
                try DeviceInformationService.serialNumber.value("SN-000123")
                try DeviceInformationService.hardwareRevision.value("rev C")
                try DeviceInformationService.firmwareRevision.value("1.4.2")
                try DeviceInformationService.softwareRevision.value("2026.11")
                try DeviceInformationService.systemID.value(system)
                try DeviceInformationService.pnpID.value(pnp)
            })
        }
        let info = try await fixture.client.discover(DeviceInformationService.self)
        #expect(info.characteristics.count == 8)
        #expect(try await info.read(DeviceInformationService.manufacturerName) == "Acme Medical")
        #expect(try await info.read(DeviceInformationService.modelNumber) == "HR-7 Ünïcode")
        #expect(try await info.read(DeviceInformationService.serialNumber) == "SN-000123")
        #expect(try await info.read(DeviceInformationService.hardwareRevision) == "rev C")
        #expect(try await info.read(DeviceInformationService.firmwareRevision) == "1.4.2")
        #expect(try await info.read(DeviceInformationService.softwareRevision) == "2026.11")
        #expect(try await info.read(DeviceInformationService.systemID) == system)
        #expect(try await info.read(DeviceInformationService.pnpID) == pnp)
    }

    @Test("Heart Rate Control Point: a valid command reaches the handler; an unknown one is answered 0x80 and does not")
    func controlPoint() async throws {
        let commands = Received<HeartRateControlPoint>()
        let (fixture, _) = try await GATTFixture.make { server in
            try await server.host(HeartRateService.self) { handlers in
                handlers.onWrite(HeartRateService.controlPoint) { command, _ in commands.append(command) }
            }
        }
        let heartRate = try await fixture.client.discover(HeartRateService.self)
        try await heartRate.write(.resetEnergyExpended, to: HeartRateService.controlPoint)
        let error = await thrown { try await heartRate.write(Data([0x02]), to: HeartRateService.controlPoint.uuid) }
        #expect(attError(error) == HeartRateService.controlPointNotSupported)
        #expect(commands.values == [.resetEnergyExpended])
    }
}
