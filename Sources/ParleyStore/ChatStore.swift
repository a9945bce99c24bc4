/// Storage for everything the engine knows. It keeps data consistent (one direct chat
/// per pair, gap-free sequence numbers, one message per client id) but decides nothing
/// about who may do what: that is `ChatEngine`'s job.
///
/// One protocol per feature (`Slices/`), each named as the feature is on every floor:
/// `IgnoreStore` is `EngineSession+Ignore`'s, kept in `SQLiteChatStore+Ignore` and
/// `PostgresChatStore+Ignore` (docs/contributing.md has the table, and
/// `scripts/features.py` checks it). `SQLiteChatStore` is the implementation on one
/// machine, `PostgresChatStore` the one several nodes share.
public protocol ChatStore:
    AccountsStore, GuestsStore, PhoneStore, IdentityStore, SignupStore, ActivityStore, WatchStore, MessagesStore, EditsStore,
    MediaStore, MembersStore, GroupsStore, InvitesStore, BotTokensStore, BotCommandsStore, RemindersStore, IgnoreStore, ReportsStore,
    OperatorsStore, ExportStore, ErasureStore, RetentionStore, HooksStore, ThreadsStore
{}
