import ParleyCommands

// The commands live in ParleyCommands, where the tests run the shell in process too.
await CommandLineEntry.main()
