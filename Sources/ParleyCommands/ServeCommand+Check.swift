import ArgumentParser
import Logging
import ParleyServer

/// `parley serve --check`: every check the server makes of its settings before it
/// serves, without serving; then the settings as they stand.
extension ServeCommand {
    func checkSettings() throws {
        try checkMediaLimits()
        _ = try identity.provider()
        if let smsCommand { _ = try CommandCodeSender(template: smsCommand, logger: Logger(label: "parley.check")) }
        if let tlsCert, let tlsKey {
            var configuration = ParleyServer.Configuration(host: host, port: port)
            try configuration.useTLS(certificateFile: tlsCert, keyFile: tlsKey)
        }
        print(ServeConfigFile.effective(self))
    }

    func checkMediaLimits() throws {
        let mediaRange = 1...(1 << 20)
        guard [maxImageMb, maxVideoMb, maxFileMb].allSatisfy(mediaRange.contains) else {
            throw ValidationError("media limits are 1 MiB to 1 TiB")
        }
    }
}
