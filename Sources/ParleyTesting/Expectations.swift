public import ParleyCore
public import Testing

/// Expects `body` to fail with a `ParleyError` carrying `code`.
public func expectError<T>(
    _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected error \(code), but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as ParleyError {
        #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
        expectNoLeak(error.message, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected ParleyError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Polls until `condition` holds; the timeout only guards against a hang.
public func eventually(timeout: Duration = .seconds(120), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        guard await pause(.milliseconds(20)) else { break }
    }
    return try await condition()
}

/// Sleeps between two polls; false once the task is cancelled (a test past its time
/// limit), when a poll must stop: a cancelled sleep returns at once, and a loop that
/// ignored it would spin and starve every other test of the machine.
public func pause(_ duration: Duration) async -> Bool {
    (try? await Task.sleep(for: duration)) != nil
}

/// The code `body` failed with, or nil when it succeeded (`internal` for an error that
/// is not a `ParleyError`): for racing calls whose outcomes a test counts.
public func errorCode<T>(of body: () async throws -> T) async -> ErrorCode? {
    do {
        _ = try await body()
        return nil
    } catch {
        return (error as? ParleyError)?.code ?? .internalError
    }
}
