import BleuCore
import Foundation

/// Privacy with host-made addresses (Core Spec Vol 3 Part C §10.7, Vol 6 Part B §1.3.2.2): the
/// radio takes a new resolvable private address from its identity's IRK at start and each
/// ``HCIRadioConfiguration/privateAddressInterval``. A controller refuses a new random address
/// while legacy advertising, scanning or initiating is on (Vol 4 Part E §7.8.4), so a rotation
/// pauses advertising and scanning around it, and waits for a connection attempt to end.
extension HCIRadio {
    /// Starts the timer of the next rotation, when privacy is on.
    func schedulePrivateAddressRotation(after delay: Duration? = nil) {
        guard let interval = configuration.privateAddressInterval, setup.privacyKey != nil else { return }
        setup.rotationTimer += 1
        let timer = setup.rotationTimer
        spawn(after: delay ?? interval) { radio in
            guard radio.setup.rotationTimer == timer else { return }  // a later rotation took over
            await radio.rotatePrivateAddress()
        }
    }

    /// Takes a new resolvable private address now (the timer does this each interval).
    ///
    /// Links keep the address they were made with. A connection attempt in progress puts the
    /// rotation off by a second, until it ends. When the controller refuses the address, the
    /// radio keeps the one it had (and logs a warning).
    public func rotatePrivateAddress() async {
        guard let key = setup.privacyKey, events.state == .poweredOn, !setup.rotatingAddress else { return }
        if connections.attempt != nil {
            schedulePrivateAddressRotation(after: .seconds(1))
            return
        }
        setup.rotatingAddress = true
        defer { setup.rotatingAddress = false }
        let address = ResolvablePrivateAddress.make(irk: key, random: random)
        let extended = setup.usesExtendedCommands
        let advertising = advertiser.isAdvertising
        let scanning = scanner.isScanning
        if advertising {
            await pipeline.attempt(RadioAdvertiser.enable(false, extended: extended), completes: true, "pausing advertising for a new address")
        }
        if scanning {
            await pipeline.attempt(RadioScanner.enable(false, extended: extended), completes: true, "pausing the scan for a new address")
        }
        do {
            _ = try await host.execute(.leSetRandomAddress(address))
            // An extended advertising set keeps an address of its own.
            if extended, advertising { _ = try await host.execute(RadioAdvertiser.setAddress(address)) }
            setup.address = address
            logger.debug("new private address \(address)")
        } catch {
            logger.warning("the controller refused a new private address; keeping \(setup.address): \(error)")
        }
        if advertising, advertiser.isAdvertising {
            await pipeline.attempt(RadioAdvertiser.enable(true, extended: extended), completes: true, "advertising again after a new address")
        }
        if scanning, scanner.isScanning {
            await pipeline.attempt(RadioScanner.enable(true, extended: extended), completes: true, "scanning again after a new address")
        }
        schedulePrivateAddressRotation()
    }
}
