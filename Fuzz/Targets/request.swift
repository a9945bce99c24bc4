// libFuzzer target: a WebSocket text frame's bytes through the server's request
// decoder, head then arguments of every type an op takes.
import Foundation
import ParleyCore
import ParleyProtocol

private let decoder = RequestDecoder()

private func decode<A: Decodable>(_ type: A.Type, _ frame: Data) {
    _ = try? decoder.arguments(type, from: frame)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let frame = Data(bytes: data, count: size)
    guard case .success = decoder.head(of: frame) else { return 0 }
    decode(Args.Register.self, frame)
    decode(Args.SignIn.self, frame)
    decode(Args.Resume.self, frame)
    decode(Args.ChangePassword.self, frame)
    decode(Args.IDToken.self, frame)
    decode(Args.Phone.self, frame)
    decode(Args.PhoneCode.self, frame)
    decode(Args.Profile.self, frame)
    decode(Args.SearchUsers.self, frame)
    decode(Args.Handle.self, frame)
    decode(Args.Avatar.self, frame)
    if let send = try? decoder.arguments(Args.Send.self, from: frame) {
        _ = try? send.recipient()
        _ = try? Limits.clientID(send.clientID)
        _ = try? Limits.messageText(send.text)
        // A send read without JSONDecoder (FlatArgs) must be the send the decoder reads.
        let reference = try? Wire.decoder().decode(SendEnvelope.self, from: frame).args
        precondition(
            reference?.chat == send.chat && reference?.user == send.user && reference?.text == send.text
                && reference?.media == send.media && reference?.clientID == send.clientID && reference?.via == send.via
                && reference?.replyTo == send.replyTo, "the flat path read a send otherwise than the decoder")
    }
    decode(Args.History.self, frame)
    decode(Args.Search.self, frame)
    decode(Args.ChatSeq.self, frame)
    decode(Args.Chat.self, frame)
    decode(Args.User.self, frame)
    decode(Args.CreateGroup.self, frame)
    decode(Args.Join.self, frame)
    decode(Args.Member.self, frame)
    if let invite = try? decoder.arguments(Args.CreateInvite.self, from: frame), let seconds = invite.expiresInSeconds {
        // What the dispatcher does with it, up to the engine's check.
        let duration = Duration.seconds(seconds)
        _ = duration > Limits.maxDuration
    }
    decode(Args.Code.self, frame)
    decode(Args.SetRole.self, frame)
    decode(Args.Viewing.self, frame)
    if let edit = try? decoder.arguments(Args.Edit.self, from: frame) { _ = try? Limits.messageText(edit.text) }
    if let reaction = try? decoder.arguments(Args.Reaction.self, from: frame) { _ = try? Limits.emoji(reaction.emoji) }
    decode(Args.Limit.self, frame)
    if let topic = try? decoder.arguments(Args.Topic.self, from: frame), let text = topic.topic { _ = try? Limits.topic(text) }
    decode(Args.GroupRules.self, frame)
    if let away = try? decoder.arguments(Args.Away.self, from: frame) { _ = try? Limits.awayMessage(away.message) }
    decode(Args.Hidden.self, frame)
    decode(Args.Session.self, frame)
    decode(Empty.self, frame)
    return 0
}

private struct SendEnvelope: Decodable {
    var args: Args.Send
}
