import Foundation
import ParleyCore
import ParleyEngine
import ParleyProtocol
import Prometheus
import Synchronization

/// A socket's requests: the reply, and which user the socket is signed in as (the rate is
/// the socket's own: `SocketHandler` paces its requests).
extension ParleyServer {
    /// Answers one request frame: the reply frame, whether the socket must close, and
    /// whether the socket's session changed (signed in, resumed or signed out).
    func handle(
        _ frame: Data, dispatcher: Dispatcher, user: SocketUser
    ) async -> (frame: Data, close: Bool, sessionChanged: Bool) {
        let started = ContinuousClock.now
        switch dispatcher.head(of: frame) {
        case .failure(let failure):
            metrics.rejected.increment()
            metrics.count(failure.error.code)
            return (dispatcher.failure(failure.id, failure.error), false, false)
        case .success(let (id, op)):
            let (reply, error, signedIn) = await dispatcher.perform(op, id: id, frame: frame)
            metrics.record(op: op, since: started, error: error)
            if op == .send && error == nil { metrics.sent.increment() }
            if op == .signOut, let previous = user.value.withLock({ $0 }) {
                release(previous)
                user.value.withLock { $0 = nil }
                user.place?.retake()
            }
            if let signedIn {
                guard claim(signedIn.id) else {
                    await dispatcher.session.close()
                    let error = ParleyError(.tooManySockets, "at most \(configuration.maxSocketsPerUser) connections per user")
                    return (dispatcher.failure(id, error), true, false)
                }
                if let previous = user.value.withLock({ $0 }) { release(previous) }
                user.value.withLock { $0 = signedIn.id }
                user.place?.release()
            }
            return (reply, false, op == .signOut || signedIn != nil)
        }
    }

    func claim(_ user: UserID) -> Bool {
        socketsPerUser.withLock { counts in
            guard counts[user, default: 0] < configuration.maxSocketsPerUser else { return false }
            counts[user, default: 0] += 1
            metrics.signedInConnections.increment()
            metrics.anonymousConnections.decrement()
            return true
        }
    }

    func release(_ user: UserID) {
        socketsPerUser.withLock { counts in
            counts[user, default: 1] -= 1
            if counts[user] == 0 { counts[user] = nil }
            metrics.signedInConnections.decrement()
            metrics.anonymousConnections.increment()
        }
    }
}

/// Who a socket is signed in as, and its place among its address's connections that
/// have not signed in.
final class SocketUser: Sendable {
    let value = Mutex<UserID?>(nil)
    let place: AddressSlots.Slot?

    init(place: AddressSlots.Slot?) {
        self.place = place
    }
}
