// A relay of one IRC channel on Swift NIO, with only what `chatload --proto irc` speaks:
// CAP REQ (echo-message), NICK, USER, JOIN, PRIVMSG, PING and QUIT. A PRIVMSG goes to
// every member, its sender too (the echo is the bench's acknowledgement). With `--store`,
// each message is committed to SQLite first, in group commits, and relayed after.
//
//   floor [--port 6670] [--store PATH [--commit-on loop|thread]]
//
// One event loop, as InspIRCd has one thread. What a loop turn writes is flushed once per
// socket at the turn's end.
import NIOCore
import NIOPosix

var port = 6670
var storePath: String?
var commitOnLoop = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--port": port = arguments.next().flatMap { Int($0) } ?? port
    case "--store": storePath = arguments.next()
    case "--commit-on": commitOnLoop = arguments.next() == "loop"
    default:
        print("usage: floor [--port 6670] [--store PATH [--commit-on loop|thread]]")
        exit(2)
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let room = Room(loop: group.next())
if let storePath { room.store = Store(path: storePath, loop: room.loop, onLoop: commitOnLoop) }
let server = try ServerBootstrap(group: group)
    .serverChannelOption(ChannelOptions.backlog, value: 256)
    .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(LineHandler(room: room)) }
    }
    .bind(host: "127.0.0.1", port: port).wait()
let storing = storePath.map { ", storing in \($0), commits on the \(commitOnLoop ? "loop" : "writer's thread")" } ?? ""
print("floor listening on 127.0.0.1:\(port)\(storing)")
try server.closeFuture.wait()
