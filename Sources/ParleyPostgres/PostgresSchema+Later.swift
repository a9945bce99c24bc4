/// The PostgreSQL migrations from 12 on (the earlier ones are in PostgresSchema.swift).
extension PostgresSchema {
    static let laterMigrations: [(name: String, sql: String)] = [
        (
            // Media may be a file of any kind (`/file`), not only an image or a video.
            "12-media-files",
            """
            ALTER TABLE media DROP CONSTRAINT media_kind_check;
            ALTER TABLE media ADD CONSTRAINT media_kind_check CHECK (kind IN ('image', 'video', 'file'));
            """
        ),
        (
            // Incoming webhooks: a group's secret URLs, kept as the token's hash.
            "13-hooks",
            """
            CREATE TABLE hook (
                id bigserial PRIMARY KEY,
                chat_id bigint NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                name text NOT NULL,
                token_hash bytea NOT NULL UNIQUE,
                signing_secret text,
                created_by bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at bigint NOT NULL,
                last_used_at bigint
            );
            CREATE INDEX hook_chat ON hook (chat_id);
            """
        ),
        (
            // Bot tokens, and which sessions each opened (so revoking it ends them).
            "14-bot-tokens",
            """
            CREATE TABLE bot_token (
                id bigserial PRIMARY KEY,
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name text NOT NULL,
                token_hash bytea NOT NULL UNIQUE,
                created_at bigint NOT NULL,
                last_used_at bigint
            );
            CREATE INDEX bot_token_user ON bot_token (user_id);
            ALTER TABLE session ADD COLUMN bot_token_id bigint;
            CREATE INDEX session_bot_token ON session (bot_token_id) WHERE bot_token_id IS NOT NULL;
            """
        ),
        (
            // Outgoing hooks: where a group's triggering messages are posted, and the
            // last failure there for its admins to see.
            "15-outgoing-hooks",
            """
            ALTER TABLE hook ADD COLUMN url text;
            ALTER TABLE hook ADD COLUMN trigger text;
            ALTER TABLE hook ADD COLUMN last_error text;
            ALTER TABLE hook ADD COLUMN last_error_at bigint;
            """
        ),
        (
            // The commands a bot answers in chats (`!NAME`), as JSON, for /help there.
            "16-bot-commands",
            """
            CREATE TABLE bot_command_set (
                user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                commands text NOT NULL
            );
            """
        ),
        (
            // Reminders users set (/remind), kept until they come due and are told.
            "17-reminders",
            """
            CREATE TABLE reminder (
                id bigserial PRIMARY KEY,
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                chat_id bigint REFERENCES chat(id) ON DELETE SET NULL,
                place text,
                text text NOT NULL,
                due_at bigint NOT NULL,
                created_at bigint NOT NULL,
                fired_at bigint,
                delivered boolean NOT NULL DEFAULT false
            );
            CREATE INDEX reminder_due ON reminder (due_at) WHERE fired_at IS NULL;
            CREATE INDEX reminder_user ON reminder (user_id, delivered);
            """
        ),
        (
            // Messages members reported to the server's operators, and how each was resolved.
            "18-reports",
            """
            CREATE TABLE report (
                id bigserial PRIMARY KEY,
                chat_id bigint NOT NULL,
                place text NOT NULL,
                seq bigint NOT NULL,
                sender_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                text text NOT NULL,
                reporter_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                reason text,
                created_at bigint NOT NULL,
                resolved_at bigint,
                resolved_by text,
                note text
            );
            CREATE INDEX report_open ON report (created_at) WHERE resolved_at IS NULL;
            CREATE INDEX report_reporter ON report (reporter_id, chat_id, seq);
            """
        ),
        (
            // Whom each user ignores: their messages, mentions, invites and direct messages
            // no longer reach the user, on any client.
            "19-ignore",
            """
            CREATE TABLE ignore (
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                ignored_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at bigint NOT NULL,
                PRIMARY KEY (user_id, ignored_id)
            );
            CREATE INDEX ignore_ignored ON ignore (ignored_id);
            """
        ),
        (
            // Each member's notification level for a chat (NULL: the default).
            "20-notify-levels",
            """
            ALTER TABLE member ADD COLUMN notify text;
            """
        ),
        (
            // The operators' tools: suspended accounts, server-wide bans and the audit log
            // of what operators and groups' owners and admins did.
            "21-operators",
            """
            CREATE TABLE suspension (
                user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                reason text NOT NULL,
                by_handle text NOT NULL,
                at bigint NOT NULL,
                with_owner bigint
            );
            CREATE INDEX suspension_owner ON suspension (with_owner) WHERE with_owner IS NOT NULL;
            CREATE TABLE server_ban (
                id bigserial PRIMARY KEY,
                kind text NOT NULL,
                pattern text NOT NULL,
                reason text,
                by_handle text NOT NULL,
                created_at bigint NOT NULL,
                expires_at bigint,
                UNIQUE (kind, pattern)
            );
            CREATE TABLE audit (
                id bigserial PRIMARY KEY,
                at bigint NOT NULL,
                actor text NOT NULL,
                action text NOT NULL,
                target text NOT NULL,
                chat_id bigint,
                place text,
                detail text,
                reason text
            );
            CREATE INDEX audit_chat ON audit (chat_id, id) WHERE chat_id IS NOT NULL;
            """
        ),
        (
            // A group's own retention policy, in days (NULL: the server's).
            "22-retention",
            """
            ALTER TABLE chat ADD COLUMN retention_days bigint;
            """
        ),
        (
            // Erased accounts, and the handles they gave up, held back for a while.
            "23-erasure",
            """
            ALTER TABLE users ADD COLUMN erased_at bigint;
            CREATE TABLE handle_hold (
                handle text PRIMARY KEY,
                until bigint NOT NULL
            );
            """
        ),
        (
            // What a message came through, typed (Provenance): `via` keeps the plugin's or
            // hook's name. An old `hook:NAME[:USERNAME]` is a hook's only where a hook of
            // that name in that group was made by the sender; any other stays the sender's
            // label, shown beside their handle (a member could once write it himself).
            "24-provenance",
            """
            ALTER TABLE message ADD COLUMN via_kind text;
            ALTER TABLE message ADD COLUMN via_username text;
            UPDATE message SET via_kind = 'notice', via = NULL WHERE via = 'irc notice';
            UPDATE message SET via_kind = 'hook', via = split_part(substr(via, 6), ':', 1),
                via_username = CASE WHEN strpos(substr(via, 6), ':') > 0
                    THEN substr(substr(via, 6), strpos(substr(via, 6), ':') + 1) END
            WHERE via LIKE 'hook:%' AND EXISTS (
                SELECT 1 FROM hook h WHERE h.chat_id = message.chat_id AND h.created_by = message.sender_id
                AND h.name = split_part(substr(message.via, 6), ':', 1));
            UPDATE message SET via_kind = 'plugin' WHERE via IS NOT NULL AND via_kind IS NULL;
            """
        ),
        (
            // Threads: a message's thread (its root's seq) and whether the main flow shows
            // it too; per thread its title and counts (and the item a hook's deliveries are
            // about: a pull request's thread), and per member following and reading.
            "25-threads",
            """
            ALTER TABLE message ADD COLUMN thread_seq bigint;
            ALTER TABLE message ADD COLUMN also_chat boolean NOT NULL DEFAULT false;
            CREATE INDEX message_thread ON message (chat_id, thread_seq, seq) WHERE thread_seq IS NOT NULL;
            CREATE TABLE thread (
                chat_id bigint NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                root_seq bigint NOT NULL,
                title text,
                replies bigint NOT NULL DEFAULT 0,
                last_seq bigint,
                last_at bigint,
                created_at bigint NOT NULL,
                item text,
                PRIMARY KEY (chat_id, root_seq)
            );
            CREATE INDEX thread_activity ON thread (chat_id, last_at);
            CREATE UNIQUE INDEX thread_item ON thread (chat_id, item) WHERE item IS NOT NULL;
            CREATE TABLE thread_member (
                chat_id bigint NOT NULL,
                root_seq bigint NOT NULL,
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                following text NOT NULL DEFAULT 'none',
                read_seq bigint NOT NULL DEFAULT 0,
                PRIMARY KEY (chat_id, root_seq, user_id),
                FOREIGN KEY (chat_id, root_seq) REFERENCES thread(chat_id, root_seq) ON DELETE CASCADE
            );
            CREATE INDEX thread_member_user ON thread_member (user_id, following);
            """
        ),
    ]
}
