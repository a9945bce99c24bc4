public import Foundation
public import ParleyCore

/// The server operators' ops, and the audit log.
extension OpDeclarations {
    public static let suspend = OpDeclaration(.suspend) { (call, args: Args.Suspend) in
        try await call.service.suspend(handle: args.handle, reason: args.reason)
    }
    public static let reinstate = OpDeclaration(.reinstate) { (call, args: Args.Handle) in
        try await call.service.reinstate(handle: args.handle)
    }
    public static let suspensions = OpDeclaration(.suspensions) { (call, _: Empty) in
        try await call.service.suspensions()
    }
    public static let banServer = OpDeclaration(.banServer) { (call, args: Args.BanServer) in
        try await call.service.banServer(args.target, reason: args.reason, duration: args.seconds.map { .seconds($0) })
    }
    public static let unbanServer = OpDeclaration(.unbanServer) { (call, args: Args.BanTarget) in
        try await call.service.unbanServer(args.target)
    }
    public static let serverBans = OpDeclaration(.serverBans) { (call, _: Empty) in
        try await call.service.serverBans()
    }
    public static let redact = OpDeclaration(.redact) { (call, args: Args.Redact) in
        try await call.service.redact(handle: args.handle, from: args.from, to: args.to, reason: args.reason)
    }
    public static let deleteAccount = OpDeclaration(.deleteAccount) { (call, args: Args.DeleteAccount) in
        try await call.service.deleteAccount(password: args.password)
        return Empty()
    }
    public static let exportAccount = OpDeclaration(.exportAccount) { (call, args: Args.ExportAccount) in
        try await call.service.exportAccount(handle: args.handle, after: args.after)
    }
    public static let eraseAccount = OpDeclaration(.eraseAccount) { (call, args: Args.HandleReason) in
        try await call.service.eraseAccount(handle: args.handle, reason: args.reason)
        return Empty()
    }
    public static let disconnect = OpDeclaration(.disconnect) { (call, args: Args.HandleReason) in
        try await call.service.disconnect(handle: args.handle, reason: args.reason)
        return Empty()
    }
    public static let wallops = OpDeclaration(.wallops) { (call, args: Args.Text) in
        try await call.service.wallops(args.text)
        return Empty()
    }
    public static let audit = OpDeclaration(.audit) { (call, args: Args.Audit) in
        try await call.service.audit(chat: args.chat, actor: args.actor, before: args.before, limit: args.limit ?? 50)
    }
}

extension Args {
    public struct Suspend: Codable, Sendable {
        public var handle: String
        public var reason: String
        public init(handle: String, reason: String) {
            self.handle = handle
            self.reason = reason
        }
    }

    public struct BanServer: Codable, Sendable {
        /// `@handle`, a handle pattern (`spam*`) or an address range (`203.0.113.0/24`).
        public var target: String
        public var reason: String?
        /// How long it lasts; nil: until lifted.
        public var seconds: Int64?
        public init(target: String, reason: String?, duration: Duration?) {
            self.target = target
            self.reason = reason
            self.seconds = duration?.components.seconds
        }
    }

    public struct ExportAccount: Codable, Sendable {
        public var handle: String?
        public var after: Int64?
        public init(handle: String?, after: Int64?) {
            self.handle = handle
            self.after = after
        }
    }

    public struct DeleteAccount: Codable, Sendable {
        public var password: String?
        public init(password: String?) { self.password = password }
    }

    public struct HandleReason: Codable, Sendable {
        public var handle: String
        public var reason: String?
        public init(handle: String, reason: String?) {
            self.handle = handle
            self.reason = reason
        }
    }

    public struct Text: Codable, Sendable {
        public var text: String
        public init(text: String) { self.text = text }
    }

    public struct BanTarget: Codable, Sendable {
        /// The ban's id, or what it bans.
        public var target: String
        public init(target: String) { self.target = target }
    }

    public struct Redact: Codable, Sendable {
        public var handle: String
        public var from: Date?
        public var to: Date?
        public var reason: String?
        public init(handle: String, from: Date?, to: Date?, reason: String?) {
            self.handle = handle
            self.from = from
            self.to = to
            self.reason = reason
        }
    }

    public struct Audit: Codable, Sendable {
        public var chat: ChatID?
        public var actor: String?
        /// Entries before this id, for the next page.
        public var before: Int64?
        public var limit: Int?
        public init(chat: ChatID?, actor: String?, before: Int64?, limit: Int?) {
            self.chat = chat
            self.actor = actor
            self.before = before
            self.limit = limit
        }
    }
}
