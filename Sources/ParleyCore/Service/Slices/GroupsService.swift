/// Groups made, found and joined by name, the directory of public groups, and a group's own
/// settings (topic, rules, bans).
public protocol GroupsService: AnyObject, Sendable {
    /// Makes a public or private group with the caller its owner.
    func createGroup(handle: String, title: String?, isPublic: Bool) async throws -> Chat
    /// A public group by its handle, or a private one the caller is in.
    func group(handle: String) async throws -> Chat

    /// Joins a public group by handle, with its key if it has one.
    func joinGroup(handle: String, key: String?) async throws -> Chat

    /// Sets a group's topic (nil or empty clears it): owner and admins, or every member
    /// when the group allows it. Members get `chat_updated`.
    func setTopic(_ topic: String?, in chat: ChatID) async throws -> Chat

    /// Changes a group's rules: who may set the topic, mention everyone and post;
    /// public or private; a member limit; a key (owner and admins only).
    func setGroupRules(in chat: ChatID, _ change: GroupRulesChange) async throws -> Chat

    /// Bans a handle from a group (removing its user if they are in it): nobody under
    /// it can join or be invited until unbanned, whether or not it is taken yet, as IRC
    /// bans a nick (owner and admins).
    func ban(handle: String, from chat: ChatID) async throws
    func unban(handle: String, from chat: ChatID) async throws

    /// The handles banned from a group, oldest first (members see the list).
    func bans(in chat: ChatID) async throws -> [String]

    /// The directory of public groups whose handle starts with `prefix`, by handle,
    /// with their member counts.
    func publicGroups(_ prefix: String, limit: Int, offset: Int) async throws -> [GroupListing]
}
