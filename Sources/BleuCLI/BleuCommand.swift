import ArgumentParser

/// `bleu`: Bleu's command-line tool. Each subcommand lives in its own folder.
@main
struct BleuCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bleu",
        abstract: "Bluetooth LE with distributed actors: demos and tools.",
        subcommands: [DemoCommand.self, ServeCommand.self, HubCommand.self, ScanCommand.self, GATTCommand.self, PairCommand.self, BondsCommand.self]
    )
}
