import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL schema, as named migrations applied in order and recorded in
/// `schema_migration`. Append-only: never edit one that has shipped, add the next.
/// Times are milliseconds since 1970 (`bigint`), as in the SQLite store.
enum PostgresSchema {
    static let migrations = earlyMigrations + laterMigrations

    private static let earlyMigrations: [(name: String, sql: String)] = [
        (
            "1-accounts-chats-messages",
            """
            CREATE TABLE users (
                id bigserial PRIMARY KEY,
                handle text NOT NULL,
                email text,
                display_name text NOT NULL,
                password_hash text,
                is_bot boolean NOT NULL DEFAULT false,
                avatar text,
                created_at bigint NOT NULL,
                last_login_at bigint,
                phone text,
                owner_id bigint REFERENCES users(id)
            );
            CREATE UNIQUE INDEX users_handle ON users (lower(handle));
            CREATE UNIQUE INDEX users_email ON users (lower(email));
            CREATE UNIQUE INDEX users_phone ON users (phone);
            CREATE INDEX users_owner ON users (owner_id) WHERE owner_id IS NOT NULL;
            CREATE INDEX users_avatar ON users (avatar) WHERE avatar IS NOT NULL;

            CREATE TABLE session (
                token_hash bytea PRIMARY KEY,
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                expires_at bigint NOT NULL
            );
            CREATE INDEX session_by_user ON session (user_id);

            CREATE TABLE chat (
                id bigserial PRIMARY KEY,
                kind text NOT NULL CHECK (kind IN ('direct', 'group')),
                handle text,
                direct_key text,
                user_low bigint,
                user_high bigint,
                title text,
                is_public boolean NOT NULL DEFAULT true,
                created_at bigint NOT NULL,
                last_seq bigint NOT NULL DEFAULT 0,
                last_activity_at bigint NOT NULL,
                last_message_id bigint,
                last_sender_id bigint,
                last_kind text,
                last_text text,
                last_media text,
                last_client_id text
            );
            CREATE UNIQUE INDEX chat_handle ON chat (handle);
            CREATE UNIQUE INDEX chat_direct_key ON chat (direct_key);

            CREATE TABLE member (
                chat_id bigint NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
                joined_at bigint NOT NULL,
                read_seq bigint NOT NULL DEFAULT 0,
                read_at bigint NOT NULL,
                cleared_seq bigint NOT NULL DEFAULT 0,
                hidden boolean NOT NULL DEFAULT false,
                PRIMARY KEY (chat_id, user_id)
            );
            CREATE INDEX member_user ON member (user_id, chat_id);

            CREATE TABLE message (
                id bigserial PRIMARY KEY,
                chat_id bigint NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                seq bigint NOT NULL,
                sender_id bigint NOT NULL REFERENCES users(id),
                kind text NOT NULL,
                text text NOT NULL,
                media text,
                sent_at bigint NOT NULL,
                client_id text,
                via text,
                UNIQUE (chat_id, seq)
            );
            CREATE UNIQUE INDEX message_client ON message (sender_id, client_id) WHERE client_id IS NOT NULL;
            CREATE INDEX message_media ON message (substr(media, 1, 64)) WHERE media IS NOT NULL;
            CREATE INDEX message_search ON message USING gin (to_tsvector('simple', text));

            CREATE TABLE invite (
                code text PRIMARY KEY,
                chat_id bigint NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                created_by bigint NOT NULL REFERENCES users(id),
                created_at bigint NOT NULL,
                expires_at bigint,
                uses_left bigint,
                revoked boolean NOT NULL DEFAULT false
            );

            CREATE TABLE media (
                id text PRIMARY KEY,
                kind text NOT NULL CHECK (kind IN ('image', 'video')),
                type text NOT NULL,
                size bigint NOT NULL,
                width bigint,
                height bigint,
                created_at bigint NOT NULL
            );
            CREATE TABLE media_upload (
                media_id text NOT NULL REFERENCES media(id) ON DELETE CASCADE,
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                uploaded_at bigint NOT NULL,
                PRIMARY KEY (media_id, user_id)
            );

            CREATE TABLE phone_code (
                phone text PRIMARY KEY,
                code_hash bytea NOT NULL,
                expires_at bigint NOT NULL,
                attempts_left bigint NOT NULL
            );
            CREATE TABLE code_request (
                id bigserial PRIMARY KEY,
                phone text NOT NULL,
                address text NOT NULL,
                requested_at bigint NOT NULL
            );
            CREATE INDEX code_request_phone ON code_request (phone, requested_at);
            CREATE INDEX code_request_address ON code_request (address, requested_at);

            CREATE TABLE identity (
                issuer text NOT NULL,
                subject text NOT NULL,
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                linked_at bigint NOT NULL,
                PRIMARY KEY (issuer, subject)
            );

            CREATE TABLE signup_code (
                code text PRIMARY KEY,
                created_by bigint REFERENCES users(id),
                created_at bigint NOT NULL,
                expires_at bigint,
                uses_left bigint,
                revoked boolean NOT NULL DEFAULT false
            );
            """
        ),
        (
            // What carries events between nodes: each event once, with the users it is
            // for, numbered by `event_position` in commit order (see PostgresEventBus);
            // and the nodes with their live sessions, for presence across them.
            "2-events-and-nodes",
            """
            CREATE TABLE event (
                position bigint PRIMARY KEY,
                recipients bigint[] NOT NULL,
                origin bytea,
                kept boolean NOT NULL,
                membership_chat bigint,
                message_id bigint,
                body text NOT NULL,
                created_at bigint NOT NULL
            );
            CREATE INDEX event_recipients ON event USING gin (recipients);
            CREATE UNIQUE INDEX event_message ON event (message_id) WHERE message_id IS NOT NULL;
            CREATE SEQUENCE event_position;
            CREATE TABLE bus (id int PRIMARY KEY CHECK (id = 1), epoch text NOT NULL, pruned_through bigint NOT NULL DEFAULT 0);
            INSERT INTO bus (id, epoch) VALUES (1, substr(md5(random()::text || clock_timestamp()::text), 1, 8));

            CREATE TABLE node (
                id text PRIMARY KEY,
                started_at bigint NOT NULL,
                heartbeat_at bigint NOT NULL
            );
            CREATE TABLE node_session (
                node_id text NOT NULL REFERENCES node(id) ON DELETE CASCADE,
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                sessions bigint NOT NULL,
                PRIMARY KEY (node_id, user_id)
            );
            CREATE INDEX node_session_user ON node_session (user_id);
            """
        ),
        (
            // A batch of events in one round trip: the lock that keeps positions in
            // commit order, the rows in the order given (a message's event once), and
            // one NOTIFY.
            "3-publish-function",
            """
            CREATE FUNCTION parley_publish(
                recipients text[], origins text[], kept boolean[], chats bigint[], messages bigint[], bodies text[], at bigint
            ) RETURNS void LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock(787802);
                FOR i IN 1 .. coalesce(array_length(bodies, 1), 0) LOOP
                    INSERT INTO event (position, recipients, origin, kept, membership_chat, message_id, body, created_at)
                    VALUES (nextval('event_position'), recipients[i]::bigint[], decode(nullif(origins[i], ''), 'hex'), kept[i],
                            nullif(chats[i], 0), nullif(messages[i], 0), bodies[i], at)
                    ON CONFLICT (message_id) WHERE message_id IS NOT NULL DO NOTHING;
                END LOOP;
                PERFORM pg_notify('parley_events', '');
            END
            $$
            """
        ),
        (
            // Mentions, replies, edits, deletions and reactions on messages; group topics
            // and rules; away, last seen and hidden activity on users; where and when each
            // session signed in and was last used.
            "4-conversation-features",
            """
            ALTER TABLE message ADD COLUMN mentions text;
            ALTER TABLE message ADD COLUMN mentions_all boolean NOT NULL DEFAULT false;
            ALTER TABLE message ADD COLUMN reply_seq bigint;
            ALTER TABLE message ADD COLUMN reactions text;
            ALTER TABLE message ADD COLUMN edited_at bigint;
            ALTER TABLE message ADD COLUMN deleted_at bigint;
            CREATE INDEX message_mentions_all ON message (chat_id, seq) WHERE mentions_all;
            CREATE TABLE mention (
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                chat_id bigint NOT NULL,
                seq bigint NOT NULL,
                message_id bigint NOT NULL REFERENCES message(id) ON DELETE CASCADE,
                PRIMARY KEY (user_id, chat_id, seq)
            );
            CREATE INDEX mention_message ON mention (message_id);
            CREATE TABLE reaction (
                chat_id bigint NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                seq bigint NOT NULL,
                emoji text NOT NULL,
                user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                reacted_at bigint NOT NULL,
                PRIMARY KEY (chat_id, seq, emoji, user_id)
            );
            ALTER TABLE chat ADD COLUMN last_deleted_at bigint;
            ALTER TABLE chat ADD COLUMN topic text;
            ALTER TABLE chat ADD COLUMN anyone_sets_topic boolean NOT NULL DEFAULT false;
            ALTER TABLE chat ADD COLUMN anyone_mentions_all boolean NOT NULL DEFAULT false;
            ALTER TABLE users ADD COLUMN away text;
            ALTER TABLE users ADD COLUMN last_seen_at bigint;
            ALTER TABLE users ADD COLUMN hide_activity boolean NOT NULL DEFAULT false;
            ALTER TABLE session ADD COLUMN client text NOT NULL DEFAULT 'unknown';
            ALTER TABLE session ADD COLUMN address text NOT NULL DEFAULT 'unknown';
            ALTER TABLE session ADD COLUMN created_at bigint NOT NULL DEFAULT 0;
            ALTER TABLE session ADD COLUMN last_active_at bigint NOT NULL DEFAULT 0;
            """
        ),
        (
            // IRC guests: accounts without credentials that last as long as a connection.
            "5-guests",
            """
            ALTER TABLE users ADD COLUMN is_guest boolean NOT NULL DEFAULT false;
            """
        ),
        (
            // Group modes as IRC has them: moderated, a member limit, a key; bans.
            "6-group-modes",
            """
            ALTER TABLE chat ADD COLUMN moderated boolean NOT NULL DEFAULT false;
            ALTER TABLE chat ADD COLUMN member_limit bigint;
            ALTER TABLE chat ADD COLUMN join_key text;
            ALTER TABLE chat ADD COLUMN unlisted boolean NOT NULL DEFAULT false;
            CREATE TABLE ban (
                chat_id bigint NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                handle text NOT NULL,
                banned_at bigint NOT NULL,
                PRIMARY KEY (chat_id, handle)
            );
            ALTER TABLE member DROP CONSTRAINT member_role_check;
            ALTER TABLE member ADD CONSTRAINT member_role_check CHECK (role IN ('owner', 'admin', 'voiced', 'member'));
            """
        ),
        (
            // An invitation to one user (IRC's INVITE): an invite code only they can use.
            // Who set a group's topic, and when (IRC's RPL_TOPICTIME).
            "7-invitations-and-topic-setters",
            """
            ALTER TABLE chat ADD COLUMN topic_set_by text;
            ALTER TABLE chat ADD COLUMN topic_set_at bigint;
            ALTER TABLE invite ADD COLUMN for_user bigint REFERENCES users(id) ON DELETE CASCADE;
            CREATE INDEX invite_for_user ON invite(for_user, chat_id) WHERE for_user IS NOT NULL;
            """
        ),
        (
            // How far a member has read as a time (IRCv3 draft/read-marker's MARKREAD).
            "8-read-up-to",
            """
            ALTER TABLE member ADD COLUMN read_up_to bigint;
            """
        ),
        (
            // Handles a user watches come online and go (IRC's MONITOR), taken or not.
            "9-presence-watch",
            """
            CREATE TABLE presence_watch (
                handle text NOT NULL,
                watcher_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                PRIMARY KEY (handle, watcher_id)
            );
            CREATE INDEX presence_watch_watcher ON presence_watch (watcher_id);
            """
        ),
        (
            // A message's event is written with the message (an empty body: the reader
            // reads the message), and its IRCv3 client-only tags, which the message does
            // not keep, go with the event.
            "10-client-tags-with-message-events",
            """
            ALTER TABLE event ADD COLUMN client_tags text;
            """
        ),
        (
            // A user's own bound on what IRC clients are played back (NULL: the server's).
            "11-irc-playback",
            """
            ALTER TABLE users ADD COLUMN irc_playback bigint;
            """
        ),
    ]

    /// A migration's statements, one at a time (the extended protocol takes one): each
    /// ends with `;` at the end of a line, except inside a `$$`-quoted function body.
    static func statements(of sql: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var quoted = false
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            current += line + "\n"
            if line.components(separatedBy: "$$").count % 2 == 0 { quoted.toggle() }
            if !quoted, line.hasSuffix(";") {
                statements.append(String(current.dropLast(2)))
                current = ""
            }
        }
        if !current.allSatisfy(\.isWhitespace) { statements.append(current) }
        return statements
    }

    /// Applies the migrations not yet recorded, each in its own transaction, holding a
    /// lock throughout (the connection must be one of its own) so nodes that start together do not both apply one.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        // Held by the session: it ends when the caller closes the connection.
        try await connection.query("SELECT pg_advisory_lock(787801)", logger: logger)
        try await connection.query(
            "CREATE TABLE IF NOT EXISTS schema_migration (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
            logger: logger)
        for migration in migrations {
            try await connection.withTransaction(logger: logger) { connection in
                let applied = try await connection.query(
                    "SELECT 1 FROM schema_migration WHERE name = \(migration.name)", logger: logger
                ).collect()
                guard applied.isEmpty else { return }
                for statement in statements(of: migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO schema_migration (name) VALUES (\(migration.name))", logger: logger)
                logger.info("applied PostgreSQL migration \(migration.name)")
            }
        }
    }
}
