import GRDB
import ParleyStore

/// The SQLite schema. Migrations are append-only: never edit a registered one, add the next.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE user (
                        id INTEGER PRIMARY KEY,
                        handle TEXT NOT NULL UNIQUE COLLATE NOCASE,
                        email TEXT UNIQUE COLLATE NOCASE,
                        display_name TEXT NOT NULL,
                        password_hash TEXT,
                        is_bot INTEGER NOT NULL DEFAULT 0,
                        avatar TEXT,
                        created_at INTEGER NOT NULL,
                        last_login_at INTEGER
                    );
                    CREATE INDEX user_display_name ON user(display_name COLLATE NOCASE);

                    CREATE TABLE session (
                        token_hash BLOB PRIMARY KEY,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        expires_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX session_user ON session(user_id);

                    CREATE TABLE chat (
                        id INTEGER PRIMARY KEY,
                        kind TEXT NOT NULL CHECK (kind IN ('direct', 'group')),
                        handle TEXT UNIQUE,
                        direct_key TEXT UNIQUE,
                        title TEXT,
                        is_public INTEGER NOT NULL DEFAULT 1,
                        created_at INTEGER NOT NULL,
                        last_seq INTEGER NOT NULL DEFAULT 0,
                        last_activity_at INTEGER NOT NULL
                    );

                    CREATE TABLE member (
                        chat_id INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
                        joined_at INTEGER NOT NULL,
                        read_seq INTEGER NOT NULL DEFAULT 0,
                        read_at INTEGER NOT NULL,
                        cleared_seq INTEGER NOT NULL DEFAULT 0,
                        hidden INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (chat_id, user_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX member_user ON member(user_id);
                    CREATE INDEX member_hidden ON member(chat_id) WHERE hidden = 1;

                    CREATE TABLE message (
                        id INTEGER PRIMARY KEY,
                        chat_id INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                        seq INTEGER NOT NULL,
                        sender_id INTEGER NOT NULL REFERENCES user(id),
                        kind TEXT NOT NULL,
                        text TEXT NOT NULL,
                        media TEXT,
                        sent_at INTEGER NOT NULL,
                        client_id TEXT,
                        UNIQUE (chat_id, seq)
                    );
                    CREATE UNIQUE INDEX message_client ON message(sender_id, client_id) WHERE client_id IS NOT NULL;

                    CREATE VIRTUAL TABLE message_fts USING fts5(text, content = 'message', content_rowid = 'id');

                    CREATE TABLE invite (
                        code TEXT PRIMARY KEY,
                        chat_id INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                        created_by INTEGER NOT NULL REFERENCES user(id),
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER,
                        uses_left INTEGER,
                        revoked INTEGER NOT NULL DEFAULT 0
                    ) WITHOUT ROWID;
                    """)
        }
        // A deleted chat is now hidden by comparing the member's cleared_seq with the
        // chat's last_seq, so a send no longer updates members and this index is unused.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: "DROP INDEX member_hidden")
        }
        // Messages are indexed for search in batches after they are stored; this
        // remembers how far the index goes.
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    CREATE TABLE search_state (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_up_to INTEGER NOT NULL);
                    INSERT INTO search_state (id, indexed_up_to) VALUES (1, (SELECT coalesce(max(id), 0) FROM message));
                    """)
        }
        // The chat list reads the last message by rowid and the peer of a direct chat by
        // primary key instead of searching indexes for them.
        migrator.registerMigration("v4") { db in
            try db.execute(
                sql: """
                    ALTER TABLE chat ADD COLUMN last_message_id INTEGER;
                    ALTER TABLE chat ADD COLUMN user_low INTEGER;
                    ALTER TABLE chat ADD COLUMN user_high INTEGER;
                    UPDATE chat SET last_message_id = (SELECT id FROM message WHERE chat_id = chat.id AND seq = chat.last_seq);
                    UPDATE chat SET
                        user_low = CAST(substr(direct_key, 1, instr(direct_key, ':') - 1) AS INTEGER),
                        user_high = CAST(substr(direct_key, instr(direct_key, ':') + 1) AS INTEGER)
                    WHERE kind = 'direct';
                    """)
        }
        // Media: one row per content, who uploaded it, and an index to find the messages
        // that carry it (message.media holds the media id first, see MediaColumn).
        migrator.registerMigration("v5") { db in
            try db.execute(
                sql: """
                    CREATE TABLE media (
                        id TEXT PRIMARY KEY,
                        kind TEXT NOT NULL CHECK (kind IN ('image', 'video')),
                        type TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        width INTEGER,
                        height INTEGER,
                        created_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE media_upload (
                        media_id TEXT NOT NULL REFERENCES media(id) ON DELETE CASCADE,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        uploaded_at INTEGER NOT NULL,
                        PRIMARY KEY (media_id, user_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX message_media ON message(substr(media, 1, 64)) WHERE media IS NOT NULL;
                    CREATE INDEX user_avatar ON user(avatar) WHERE avatar IS NOT NULL;
                    """)
        }
        // The chat list reads every membership of one user: an index holding the columns
        // it needs answers from the index alone, without a lookup in member per chat.
        migrator.registerMigration("v6") { db in
            try db.execute(
                sql: """
                    CREATE INDEX member_user_list ON member(user_id, chat_id, read_seq, cleared_seq, hidden);
                    DROP INDEX member_user;
                    """)
        }
        // Sign-in by phone: the number on the account, the one live code per number
        // (hashed), and the requests that the sending rate limits count.
        migrator.registerMigration("v7") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user ADD COLUMN phone TEXT;
                    CREATE UNIQUE INDEX user_phone ON user(phone) WHERE phone IS NOT NULL;
                    CREATE TABLE phone_code (
                        phone TEXT PRIMARY KEY,
                        code_hash BLOB NOT NULL,
                        expires_at INTEGER NOT NULL,
                        attempts_left INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE code_request (
                        id INTEGER PRIMARY KEY,
                        phone TEXT NOT NULL,
                        address TEXT NOT NULL,
                        requested_at INTEGER NOT NULL
                    );
                    CREATE INDEX code_request_phone ON code_request(phone, requested_at);
                    CREATE INDEX code_request_address ON code_request(address, requested_at);
                    """)
        }
        // Accounts signed in with an external identity, by issuer and subject.
        migrator.registerMigration("v8") { db in
            try db.execute(
                sql: """
                    CREATE TABLE identity (
                        issuer TEXT NOT NULL,
                        subject TEXT NOT NULL,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        linked_at INTEGER NOT NULL,
                        PRIMARY KEY (issuer, subject)
                    ) WITHOUT ROWID;
                    """)
        }
        // The chat list shows each chat's last message: the chat row carries a copy
        // (messages never change once stored), so the list reads no message rows. Its
        // time is last_activity_at, which only a message moves after creation.
        migrator.registerMigration("v9") { db in
            try db.execute(
                sql: """
                    ALTER TABLE chat ADD COLUMN last_sender_id INTEGER;
                    ALTER TABLE chat ADD COLUMN last_kind TEXT;
                    ALTER TABLE chat ADD COLUMN last_text TEXT;
                    ALTER TABLE chat ADD COLUMN last_media TEXT;
                    ALTER TABLE chat ADD COLUMN last_client_id TEXT;
                    UPDATE chat SET (last_sender_id, last_kind, last_text, last_media, last_client_id) =
                        (SELECT sender_id, kind, text, media, client_id FROM message WHERE id = chat.last_message_id)
                    WHERE last_message_id IS NOT NULL;
                    """)
        }
        // The plugin that sent a message for its user, so other plugins can tell.
        migrator.registerMigration("v10") { db in
            try db.execute(sql: "ALTER TABLE message ADD COLUMN via TEXT")
        }
        migrator.registerMigration("v11") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user ADD COLUMN owner_id INTEGER REFERENCES user(id);
                    CREATE INDEX user_owner ON user(owner_id) WHERE owner_id IS NOT NULL;
                    CREATE TABLE signup_code (
                        code TEXT PRIMARY KEY,
                        created_by INTEGER REFERENCES user(id),
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER,
                        uses_left INTEGER,
                        revoked INTEGER NOT NULL DEFAULT 0
                    ) WITHOUT ROWID;
                    """)
        }
        // Mentions, replies, edits, deletions and reactions on messages; group topics
        // and rules; away, last seen and hidden activity on users; where and when each
        // session signed in and was last used.
        migrator.registerMigration("v12") { db in
            try db.execute(
                sql: """
                    ALTER TABLE message ADD COLUMN mentions TEXT;
                    ALTER TABLE message ADD COLUMN mentions_all INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE message ADD COLUMN reply_seq INTEGER;
                    ALTER TABLE message ADD COLUMN reactions TEXT;
                    ALTER TABLE message ADD COLUMN edited_at INTEGER;
                    ALTER TABLE message ADD COLUMN deleted_at INTEGER;
                    CREATE INDEX message_mentions_all ON message(chat_id, seq) WHERE mentions_all = 1;
                    CREATE TABLE mention (
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        chat_id INTEGER NOT NULL,
                        seq INTEGER NOT NULL,
                        message_id INTEGER NOT NULL REFERENCES message(id) ON DELETE CASCADE,
                        PRIMARY KEY (user_id, chat_id, seq)
                    ) WITHOUT ROWID;
                    CREATE INDEX mention_message ON mention(message_id);
                    CREATE TABLE reaction (
                        chat_id INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                        seq INTEGER NOT NULL,
                        emoji TEXT NOT NULL,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        reacted_at INTEGER NOT NULL,
                        PRIMARY KEY (chat_id, seq, emoji, user_id)
                    ) WITHOUT ROWID;
                    ALTER TABLE chat ADD COLUMN last_deleted_at INTEGER;
                    ALTER TABLE chat ADD COLUMN topic TEXT;
                    ALTER TABLE chat ADD COLUMN anyone_sets_topic INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE chat ADD COLUMN anyone_mentions_all INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE user ADD COLUMN away TEXT;
                    ALTER TABLE user ADD COLUMN last_seen_at INTEGER;
                    ALTER TABLE user ADD COLUMN hide_activity INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE session ADD COLUMN client TEXT NOT NULL DEFAULT 'unknown';
                    ALTER TABLE session ADD COLUMN address TEXT NOT NULL DEFAULT 'unknown';
                    ALTER TABLE session ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE session ADD COLUMN last_active_at INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        // IRC guests: accounts without credentials that last as long as a connection.
        migrator.registerMigration("v13") { db in
            try db.execute(sql: "ALTER TABLE user ADD COLUMN is_guest INTEGER NOT NULL DEFAULT 0")
        }
        // Group modes as IRC has them: moderated, a member limit, a key; bans.
        migrator.registerMigration("v14") { db in
            try db.execute(
                sql: """
                    ALTER TABLE chat ADD COLUMN moderated INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE chat ADD COLUMN member_limit INTEGER;
                    ALTER TABLE chat ADD COLUMN join_key TEXT;
                    ALTER TABLE chat ADD COLUMN unlisted INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE ban (
                        chat_id INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                        handle TEXT NOT NULL COLLATE NOCASE,
                        banned_at INTEGER NOT NULL,
                        PRIMARY KEY (chat_id, handle)
                    ) WITHOUT ROWID;
                    -- A member's role may be 'voiced' too: SQLite changes a CHECK by
                    -- rebuilding the table.
                    CREATE TABLE member_v14 (
                        chat_id INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'voiced', 'member')),
                        joined_at INTEGER NOT NULL,
                        read_seq INTEGER NOT NULL DEFAULT 0,
                        read_at INTEGER NOT NULL,
                        cleared_seq INTEGER NOT NULL DEFAULT 0,
                        hidden INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (chat_id, user_id)
                    ) WITHOUT ROWID;
                    INSERT INTO member_v14 (chat_id, user_id, role, joined_at, read_seq, read_at, cleared_seq, hidden)
                        SELECT chat_id, user_id, role, joined_at, read_seq, read_at, cleared_seq, hidden FROM member;
                    DROP TABLE member;
                    ALTER TABLE member_v14 RENAME TO member;
                    CREATE INDEX member_user_list ON member(user_id, chat_id, read_seq, cleared_seq, hidden);
                    """)
        }
        // An invitation to one user (IRC's INVITE): an invite code only they can use.
        // Who set a group's topic, and when (IRC's RPL_TOPICTIME).
        migrator.registerMigration("v15") { db in
            try db.execute(
                sql: """
                    ALTER TABLE chat ADD COLUMN topic_set_by TEXT;
                    ALTER TABLE chat ADD COLUMN topic_set_at INTEGER;
                    ALTER TABLE invite ADD COLUMN for_user INTEGER REFERENCES user(id) ON DELETE CASCADE;
                    CREATE INDEX invite_for_user ON invite(for_user, chat_id) WHERE for_user IS NOT NULL;
                    """)
        }
        // How far a member has read as a time (IRCv3 draft/read-marker's MARKREAD).
        migrator.registerMigration("v16") { db in
            try db.execute(sql: "ALTER TABLE member ADD COLUMN read_up_to INTEGER")
        }
        // Handles a user watches come online and go (IRC's MONITOR), taken or not.
        migrator.registerMigration("v17") { db in
            try db.execute(
                sql: """
                    CREATE TABLE presence_watch (
                        handle TEXT NOT NULL COLLATE NOCASE,
                        watcher_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        PRIMARY KEY (handle, watcher_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX presence_watch_watcher ON presence_watch(watcher_id);
                    """)
        }
        // Events kept for resuming across restarts (`SQLiteEventJournal`): a message's
        // event names the message; any other event is its wire frame, for the users in
        // `event_recipient`. The epoch names this database's positions; no position up
        // to `reserved_through` is handed out again, kept or not.
        migrator.registerMigration("v18") { db in
            try db.execute(
                sql: """
                    CREATE TABLE event (
                        position INTEGER PRIMARY KEY,
                        message_id INTEGER,
                        origin BLOB,
                        body BLOB
                    );
                    CREATE TABLE event_recipient (
                        user_id INTEGER NOT NULL,
                        position INTEGER NOT NULL,
                        PRIMARY KEY (user_id, position)
                    ) WITHOUT ROWID;
                    CREATE TABLE event_log (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        epoch TEXT NOT NULL,
                        pruned_through INTEGER NOT NULL DEFAULT 0,
                        reserved_through INTEGER NOT NULL DEFAULT 0
                    );
                    INSERT INTO event_log (id, epoch) VALUES (1, lower(hex(randomblob(4))));
                    """)
        }
        // The search index moves to a file of its own (`SearchIndexer`), rebuilt there
        // from the messages; edits and deletions reach it through `search_change`.
        migrator.registerMigration("v19") { db in
            try db.execute(
                sql: """
                    DROP TABLE message_fts;
                    DROP TABLE search_state;
                    CREATE TABLE search_change (seq INTEGER PRIMARY KEY, message_id INTEGER NOT NULL);
                    """)
        }
        // A user's own bound on what IRC clients are played back (NULL: the server's).
        migrator.registerMigration("v20") { db in
            try db.execute(sql: "ALTER TABLE user ADD COLUMN irc_playback INTEGER")
        }
        registerLaterMigrations(&migrator)
        return migrator
    }
}
