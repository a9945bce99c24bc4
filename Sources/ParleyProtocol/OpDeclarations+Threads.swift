public import ParleyCore

/// The thread ops; a thread's messages are sent with `send` (`thread`) and read with
/// `history` (`thread`, or `main` for the chat without them).
extension OpDeclarations {
    public static let openThread = OpDeclaration(.openThread) { (call, args: Args.OpenThread) in
        try await call.service.openThread(chat: args.chat, seq: args.seq, title: args.title)
    }
    public static let thread = OpDeclaration(.thread) { (call, args: Args.Thread) in
        try await call.service.thread(chat: args.chat, root: args.root)
    }
    public static let threads = OpDeclaration(.threads) { (call, args: Args.Threads) in
        try await call.service.threads(in: args.chat, limit: args.limit ?? 50)
    }
    public static let followedThreads = OpDeclaration(.followedThreads) { (call, args: Args.Limit) in
        try await call.service.followedThreads(limit: args.limit ?? 50)
    }
    public static let followThread = OpDeclaration(.followThread) { (call, args: Args.FollowThread) in
        try await call.service.setFollowing(args.following, chat: args.chat, root: args.root)
    }
    public static let markThreadRead = OpDeclaration(.markThreadRead) { (call, args: Args.ThreadRead) in
        try await call.service.markThreadRead(chat: args.chat, root: args.root, upTo: args.seq)
    }
}
