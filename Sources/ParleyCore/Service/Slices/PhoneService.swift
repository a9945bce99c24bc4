/// Sign-in by a code sent to a phone number.
public protocol PhoneService: AnyObject, Sendable {
    /// Sends a 6-digit sign-in code to a phone number (E.164; spaces and dashes are
    /// fine). Codes last 5 minutes; sending is rate limited per number and per client.
    func requestCode(phone: String) async throws -> CodeRequest

    /// Signs in with the code sent to `phone`. The first sign-in creates the account,
    /// which then needs a display name (`needsProfile`) before anything else.
    func signIn(phone: String, code: String) async throws -> SignedIn
}
