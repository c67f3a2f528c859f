import BleuATT
import BleuCore
import Foundation

@testable import BleuHCI

/// An ``HCIRadio`` on a scripted controller (in memory, virtual time): the controller answers
/// start-up, addressing, connection and data-length commands like a real one, and the test
/// plays the peer.
struct RadioHarness {
    let radio: HCIRadio
    let controller: FakeController
    let clock: ManualClock
    let central: HCICentralManager
    static let peer = BluetoothAddress(string: "D0:11:22:33:44:55")!

    /// `extra` answers what the defaults leave out (return `nil` to leave it unanswered); the
    /// radio counts its ATT PDUs in `attTraffic`, when given.
    /// `completesPackets` false leaves the controller's ACL buffers to the test (Number Of
    /// Completed Packets events it sends itself).
    static func start(attTraffic: ATTTrafficCounter? = nil, completesPackets: Bool = true,
                      host hostConfiguration: HCIHost.Configuration = .init(),
                      extra: @escaping @Sendable (HCICommand) -> [HCIEvent]? = { _ in nil }) async throws -> RadioHarness {
        let (hostEnd, controllerEnd) = InMemoryHCITransport.makePair()
        let clock = ManualClock()
        let startUp = FakeController.startUpAnswers(bufferLength: 251, bufferCount: 8)
        let controller = FakeController(transport: controllerEnd, completesPackets: completesPackets) { command in
            if let events = startUp(command) { return events }
            if let events = extra(command) { return events }
            switch command {
            case .leSetRandomAddress, .leSetScanEnable, .leSetScanParameters, .leSetAdvertisingEnable,
                 .leSetExtendedScanEnable, .leSetExtendedScanParameters, .leSetExtendedAdvertisingEnable:
                return [FakeController.complete(command)]
            case .leCreateConnection, .leExtendedCreateConnection, .disconnect:
                return [.commandStatus(status: 0, numHCICommandPackets: 1, opcode: command.opcode)]
            case .leSetDataLength(let handle, _, _):
                return [FakeController.complete(command, [0, UInt8(handle & 0xFF), UInt8(handle >> 8)])]
            default:
                return nil
            }
        }
        let radio = HCIRadio(host: HCIHost(transport: hostEnd, clock: clock, configuration: hostConfiguration), clock: clock,
                             attTraffic: attTraffic)
        try await radio.start()
        return RadioHarness(radio: radio, controller: controller, clock: clock, central: HCICentralManager(radio: radio))
    }

    /// Connects the central to ``peer`` (handle 1): answers LE Create Connection with a
    /// connection and the MTU exchange with `mtu`.
    func connect(mtu: UInt16 = 247) async throws -> UUID {
        let id = await radio.identify(Self.peer, type: .randomDevice)
        async let connected: Void = central.connect(id, timeout: nil)
        var acl = controller.acl.makeAsyncIterator()
        try await controller.send(.le(.connectionComplete(LEConnectionComplete(
            handle: 1, role: .central, peerAddressType: .randomDevice, peerAddress: Self.peer, interval: .milliseconds(30)))))
        // The central exchanges MTUs on every connection.
        while let packet = await acl.next() {
            let frame = try L2CAPBFrame(decoding: packet.data)
            if case .exchangeMTURequest = try ATTPDU(decoding: frame.payload) { break }
        }
        try await controller.send(ACLPacket(handle: 1, boundary: .firstFlushable, data: L2CAPBFrame(
            channelID: L2CAPBFrame.attCID, payload: ATTPDU.exchangeMTUResponse(serverRxMTU: mtu).encoded).encoded))
        try await connected
        return id
    }
}
