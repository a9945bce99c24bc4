// libFuzzer target: any bytes through HookPayload (in ParleyCore; see scripts/fuzz.sh),
// as each kind of post: a crash is a bug, and whatever is taken fits in a message.
import ParleyCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHook(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    let kinds: [(String?, String?)] = [
        ("application/json", nil), ("text/plain", nil), ("application/x-www-form-urlencoded", nil), (nil, nil),
        ("application/json", "push"), ("application/json", "pull_request"), ("application/json", "workflow_run"),
    ]
    let (type, event) = kinds[Int(body.first ?? 0) % kinds.count]
    if let post = try? HookPayload.post(body: Array(body.dropFirst()), contentType: type, githubEvent: event) {
        precondition(!post.text.isEmpty && post.text.count <= Limits.maxTextLength, "a post that does not fit a message")
        precondition(post.username.map { $0.count <= 32 && !$0.unicodeScalars.contains(where: Limits.isControl) } ?? true, "a bad username")
    }
    return 0
}
