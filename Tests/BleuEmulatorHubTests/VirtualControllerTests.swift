import Bleu
import BleuCore
@testable import BleuEmulator
import BleuHCI
import BleuTesting
import Foundation
import Testing

@testable import BleuEmulatorHub

/// A bus with virtual HCI controllers served on loopback TCP ports, and BleuHCI radios on them.
struct ControllerAir {
    let bus: EmulatorBus
    let server: VirtualControllerServer
    let ports: [Int]

    static func start(controllers: Int, configuration: EmulatorConfiguration = .default) async throws -> ControllerAir {
        let bus = EmulatorBus(configuration: configuration)
        let server = VirtualControllerServer(bus: bus)
        let bound = try await server.start(at: Array(repeating: .tcp(host: "127.0.0.1", port: 0), count: controllers))
        return ControllerAir(bus: bus, server: server, ports: bound.compactMap { if case .tcp(_, let port) = $0 { port } else { nil } })
    }

    /// A started BleuHCI radio on controller `index`.
    func radio(_ index: Int, configuration: HCIRadioConfiguration = HCIRadioConfiguration(),
               bonds: any BondStore = InMemoryBondStore()) async throws -> HCIRadio {
        try await radioAndTransport(index, configuration: configuration, bonds: bonds).radio
    }

    /// A started BleuHCI radio on controller `index`, and its transport (closing it is a host
    /// that goes away without a word).
    func radioAndTransport(_ index: Int, configuration: HCIRadioConfiguration = HCIRadioConfiguration(),
                           bonds: any BondStore = InMemoryBondStore()) async throws -> (radio: HCIRadio, transport: NIOHCITransport) {
        let transport = try await NIOHCITransport.connect(host: "127.0.0.1", port: ports[index])
        let radio = HCIRadio(host: HCIHost(transport: transport), configuration: configuration, bonds: bonds)
        try await radio.start()
        return (radio, transport)
    }
}

@Suite("Virtual HCI controllers on an emulator's air", .timeLimit(.minutes(1)))
struct VirtualControllerTests {
    @Test("the controller lists exactly the commands it implements, and answers any other with Unknown HCI Command")
    func supportedCommands() async throws {
        let air = try await ControllerAir.start(controllers: 1, configuration: .instant)
        let host = HCIHost(transport: try await NIOHCITransport.connect(host: "127.0.0.1", port: air.ports[0]))
        let controller = try await host.start()
        #expect(controller.address == VirtualController.bluetoothAddress(air.bus.withEngine { engine in
            engine.centrals.values.first { $0.external != nil }?.address ?? 0
        }))
        #expect(controller.aclDataPacketLength == VirtualController.aclBufferLength)
        #expect(controller.totalNumACLDataPackets == VirtualController.aclBufferCount)
        let mask = try await host.execute(.readLocalSupportedCommands)
        #expect(mask.count == 1 + 64)
        for (opcode, place) in VirtualController.supportedCommands {
            #expect(mask[1 + place.octet] & (1 << place.bit) != 0, "opcode 0x\(String(opcode, radix: 16)) listed")
        }
        #expect(mask.dropFirst().reduce(0) { $0 + $1.nonzeroBitCount } == VirtualController.supportedCommands.count)
        // LE Encrypt (OGF 0x08, OCF 0x0017) is not one of them.
        await #expect { _ = try await host.execute(.raw(HCIOpcode(ogf: 0x08, ocf: 0x0017), [UInt8](repeating: 0, count: 32))) } throws: { error in
            guard case .commandFailed(_, let status)? = error as? HCIHostError else { return false }
            return status == .unknownCommand
        }
        await host.stop()
        await air.server.stop()
    }

    @Test("on an instant medium the one report of a filtered scan comes right after Scan Enable's Command Complete, and the BleuHCI central takes it")
    func reportRightAfterScanEnable() async throws {
        let air = try await ControllerAir.start(controllers: 1, configuration: .instant)
        let peripheral = EmulatedPeripheralManager(bus: air.bus)
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "at once"))
        let radio = try await air.radio(0)
        let central = HCICentralManager(radio: radio)
        var heard: String?
        for try await advertisement in try await central.scan(ScanOptions(allowDuplicates: false)) {
            heard = advertisement.localName
            break
        }
        #expect(heard == "at once")
        await radio.stop()
        await air.server.stop()
    }

    @Test("a BleuHCI central calls an actor hosted on an emulated peripheral of the same air, and streams from it")
    func hciCentralEmulatedPeripheral() async throws {
        let air = try await ControllerAir.start(controllers: 1)
        let peripheralSystem = BLEActorSystem(peripheralManager: EmulatedPeripheralManager(bus: air.bus))
        let counter = CounterActor(actorSystem: peripheralSystem)
        let sensor = StreamingSensorActor(actorSystem: peripheralSystem)
        try await peripheralSystem.startAdvertising([counter, sensor])

        let radio = try await air.radio(0)
        let central = BLEActorSystem(centralManager: HCICentralManager(radio: radio))
        let remote = try #require(try await central.discover(CounterActor.self, timeout: .seconds(10), count: 1).first)
        #expect(try await remote.increment() == 1)
        try await remote.add(41)
        #expect(try await remote.current() == 42)
        let remoteSensor = try #require(try await central.discover(StreamingSensorActor.self, timeout: .seconds(10), count: 1).first)
        var readings: [Double] = []
        for try await reading in try await remoteSensor.readings(count: 20) { readings.append(reading) }
        #expect(readings == (0..<20).map { 20 + Double($0) / 2 })
        await radio.stop()
        await air.server.stop()
    }

    @Test("an emulated central calls an actor hosted by a BleuHCI peripheral on a virtual controller")
    func emulatedCentralHCIPeripheral() async throws {
        let air = try await ControllerAir.start(controllers: 1)
        var configuration = HCIRadioConfiguration()
        configuration.deviceName = "hci-peripheral"
        let radio = try await air.radio(0, configuration: configuration)
        let peripheralSystem = BLEActorSystem(peripheralManager: HCIPeripheralManager(radio: radio))
        let counter = CounterActor(actorSystem: peripheralSystem)
        try await peripheralSystem.startAdvertising([counter])

        let central = BLEActorSystem(centralManager: EmulatedCentralManager(bus: air.bus))
        let remote = try #require(try await central.discover(CounterActor.self, timeout: .seconds(10), count: 1).first)
        #expect(try await remote.increment() == 1)
        try await remote.add(9)
        #expect(try await remote.current() == 10)
        await peripheralSystem.stopAdvertising()
        await radio.stop()
        await air.server.stop()
    }

    @Test("two BleuHCI hosts pair through the air: the controllers run the encryption start (LTK request, Encryption Change), and a reconnection encrypts with the bond")
    func pairingBetweenHosts() async throws {
        let air = try await ControllerAir.start(controllers: 2)
        let centralBonds = InMemoryBondStore()
        let peripheralBonds = InMemoryBondStore()
        let centralRadio = try await air.radio(0, bonds: centralBonds)
        let peripheralRadio = try await air.radio(1, bonds: peripheralBonds)
        let central = HCICentralManager(radio: centralRadio)
        let peripheral = HCIPeripheralManager(radio: peripheralRadio)
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "pairing peer"))
        let peer = await centralRadio.identify(await peripheralRadio.address, type: .randomDevice)
        try await central.connect(peer, timeout: .seconds(10))
        try await central.pair(peer, minimum: .encrypted)
        #expect(await central.securityLevel(of: peer) == .encrypted)
        let centralBond = try #require(centralBonds.bonds().first)
        #expect(air.bus.trace.contains { $0.kind == .security && $0.detail.contains("encrypted with its hosts' key") })

        await central.cancelConnection(peer)
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "pairing peer"))
        try await central.connect(peer, timeout: .seconds(10))
        try await central.pair(peer, minimum: .encrypted)
        #expect(await central.securityLevel(of: peer) == .encrypted)
        #expect(centralBonds.bonds() == [centralBond], "encrypted with the bond's key: no new pairing")
        await centralRadio.stop()
        await peripheralRadio.stop()
        await air.server.stop()
    }

    @Test("a host that goes away without a word (its controller connection closes): its peer on the air sees the link end by supervision timeout")
    func hostLeaves() async throws {
        let air = try await ControllerAir.start(controllers: 1)
        let peripheral = EmulatedPeripheralManager(bus: air.bus)
        let events = peripheral.events()
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: "stays"))
        let (radio, transport) = try await air.radioAndTransport(0)
        let central = HCICentralManager(radio: radio)
        var found: UUID?
        for try await advertisement in try await central.scan() where advertisement.localName == "stays" {
            found = advertisement.peripheral
            break
        }
        await central.stopScan()
        try await central.connect(try #require(found), timeout: .seconds(10))
        // Not radio.stop(), which disconnects first (Remote Device Terminated due to Power Off).
        await transport.close()
        var reason: DisconnectReason?
        for await case .centralDisconnected(_, let why) in events {
            reason = why
            break
        }
        #expect(reason == .supervisionTimeout)
        await radio.stop()
        await air.server.stop()
    }
}
