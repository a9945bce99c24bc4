import GRDB

/// The SQLite migrations from v21 on (the earlier ones are in Schema.swift).
extension Schema {
    static func registerLaterMigrations(_ migrator: inout DatabaseMigrator) {
        // Media may be a file of any kind (`/file`), not only an image or a video. The
        // migrator defers foreign keys, so dropping the old table cascades to no upload.
        migrator.registerMigration("v21") { db in
            try db.execute(
                sql: """
                    CREATE TABLE media_v21 (
                        id TEXT PRIMARY KEY,
                        kind TEXT NOT NULL CHECK (kind IN ('image', 'video', 'file')),
                        type TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        width INTEGER,
                        height INTEGER,
                        created_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    INSERT INTO media_v21 SELECT id, kind, type, size, width, height, created_at FROM media;
                    DROP TABLE media;
                    ALTER TABLE media_v21 RENAME TO media;
                    """)
        }
        // Incoming webhooks: a group's secret URLs, kept as the token's hash (ids never
        // reused, so revoking by a number seen earlier cannot hit a newer hook).
        migrator.registerMigration("v22") { db in
            try db.execute(
                sql: """
                    CREATE TABLE hook (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        chat_id INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        token_hash BLOB NOT NULL UNIQUE,
                        signing_secret TEXT,
                        created_by INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        last_used_at INTEGER
                    );
                    CREATE INDEX hook_chat ON hook(chat_id);
                    """)
        }
        // Bot tokens, and which sessions each opened (so revoking it ends them).
        migrator.registerMigration("v23") { db in
            try db.execute(
                sql: """
                    CREATE TABLE bot_token (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        token_hash BLOB NOT NULL UNIQUE,
                        created_at INTEGER NOT NULL,
                        last_used_at INTEGER
                    );
                    CREATE INDEX bot_token_user ON bot_token(user_id);
                    ALTER TABLE session ADD COLUMN bot_token_id INTEGER;
                    CREATE INDEX session_bot_token ON session(bot_token_id) WHERE bot_token_id IS NOT NULL;
                    """)
        }
        // Outgoing hooks: where a group's triggering messages are posted, and the last
        // failure there for its admins to see.
        migrator.registerMigration("v24") { db in
            try db.execute(
                sql: """
                    ALTER TABLE hook ADD COLUMN url TEXT;
                    ALTER TABLE hook ADD COLUMN trigger TEXT;
                    ALTER TABLE hook ADD COLUMN last_error TEXT;
                    ALTER TABLE hook ADD COLUMN last_error_at INTEGER;
                    """)
        }
        // The commands a bot answers in chats (`!NAME`), as JSON, for /help there.
        migrator.registerMigration("v25") { db in
            try db.execute(
                sql: """
                    CREATE TABLE bot_command_set (
                        user_id INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                        commands TEXT NOT NULL
                    );
                    """)
        }
        // Reminders users set (/remind), kept until they come due and are told.
        migrator.registerMigration("v26") { db in
            try db.execute(
                sql: """
                    CREATE TABLE reminder (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        chat_id INTEGER REFERENCES chat(id) ON DELETE SET NULL,
                        place TEXT,
                        text TEXT NOT NULL,
                        due_at INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        fired_at INTEGER,
                        delivered INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX reminder_due ON reminder(due_at) WHERE fired_at IS NULL;
                    CREATE INDEX reminder_user ON reminder(user_id, delivered);
                    """)
        }
        // Messages members reported to the server's operators, and how each was resolved.
        migrator.registerMigration("v27") { db in
            try db.execute(
                sql: """
                    CREATE TABLE report (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        chat_id INTEGER NOT NULL,
                        place TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        sender_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        text TEXT NOT NULL,
                        reporter_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        reason TEXT,
                        created_at INTEGER NOT NULL,
                        resolved_at INTEGER,
                        resolved_by TEXT,
                        note TEXT
                    );
                    CREATE INDEX report_open ON report(created_at) WHERE resolved_at IS NULL;
                    CREATE INDEX report_reporter ON report(reporter_id, chat_id, seq);
                    """)
        }
        // Whom each user ignores: their messages, mentions, invites and direct messages
        // no longer reach the user, on any client.
        migrator.registerMigration("v28") { db in
            try db.execute(
                sql: """
                    CREATE TABLE ignore (
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        ignored_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, ignored_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX ignore_ignored ON ignore(ignored_id);
                    """)
        }
        // Each member's notification level for a chat (NULL: the default).
        migrator.registerMigration("v29") { db in
            try db.execute(sql: "ALTER TABLE member ADD COLUMN notify TEXT")
        }
        // The operators' tools: suspended accounts, server-wide bans and the audit log of
        // what operators and groups' owners and admins did.
        migrator.registerMigration("v30") { db in
            try db.execute(
                sql: """
                    CREATE TABLE suspension (
                        user_id INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                        reason TEXT NOT NULL,
                        by_handle TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        with_owner INTEGER
                    );
                    CREATE INDEX suspension_owner ON suspension(with_owner) WHERE with_owner IS NOT NULL;
                    CREATE TABLE server_ban (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        pattern TEXT NOT NULL,
                        reason TEXT,
                        by_handle TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER,
                        UNIQUE (kind, pattern)
                    );
                    CREATE TABLE audit (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        at INTEGER NOT NULL,
                        actor TEXT NOT NULL,
                        action TEXT NOT NULL,
                        target TEXT NOT NULL,
                        chat_id INTEGER,
                        place TEXT,
                        detail TEXT,
                        reason TEXT
                    );
                    CREATE INDEX audit_chat ON audit(chat_id, id) WHERE chat_id IS NOT NULL;
                    """)
        }
        // A group's own retention policy, in days (NULL: the server's).
        migrator.registerMigration("v31") { db in
            try db.execute(sql: "ALTER TABLE chat ADD COLUMN retention_days INTEGER")
        }
        // Erased accounts, and the handles they gave up, held back for a while.
        migrator.registerMigration("v32") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user ADD COLUMN erased_at INTEGER;
                    CREATE TABLE handle_hold (
                        handle TEXT PRIMARY KEY COLLATE NOCASE,
                        until INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        // What a message came through, typed (Provenance): `via` keeps the plugin's or
        // hook's name. An old `hook:NAME[:USERNAME]` is a hook's only where a hook of that
        // name in that group was made by the sender; any other stays the sender's label,
        // shown beside their handle (a member could once write it himself).
        migrator.registerMigration("v33") { db in
            try db.execute(
                sql: """
                    ALTER TABLE message ADD COLUMN via_kind TEXT;
                    ALTER TABLE message ADD COLUMN via_username TEXT;
                    UPDATE message SET via_kind = 'notice', via = NULL WHERE via = 'irc notice';
                    UPDATE message SET via_kind = 'hook',
                        via = CASE WHEN instr(substr(via, 6), ':') > 0
                            THEN substr(via, 6, instr(substr(via, 6), ':') - 1) ELSE substr(via, 6) END,
                        via_username = CASE WHEN instr(substr(via, 6), ':') > 0
                            THEN substr(via, 6 + instr(substr(via, 6), ':')) END
                    WHERE via LIKE 'hook:%' AND EXISTS (
                        SELECT 1 FROM hook h WHERE h.chat_id = message.chat_id AND h.created_by = message.sender_id
                        AND h.name = CASE WHEN instr(substr(message.via, 6), ':') > 0
                            THEN substr(message.via, 6, instr(substr(message.via, 6), ':') - 1) ELSE substr(message.via, 6) END);
                    UPDATE message SET via_kind = 'plugin' WHERE via IS NOT NULL AND via_kind IS NULL;
                    """)
        }
        // Threads: a message's thread (its root's seq) and whether the main flow shows it
        // too; per thread its title and counts (and the item a hook's deliveries are
        // about: a pull request's thread), and per member following and reading.
        migrator.registerMigration("v34") { db in
            try db.execute(
                sql: """
                    ALTER TABLE message ADD COLUMN thread_seq INTEGER;
                    ALTER TABLE message ADD COLUMN also_chat INTEGER NOT NULL DEFAULT 0;
                    CREATE INDEX message_thread ON message(chat_id, thread_seq, seq) WHERE thread_seq IS NOT NULL;
                    CREATE TABLE thread (
                        chat_id INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                        root_seq INTEGER NOT NULL,
                        title TEXT,
                        replies INTEGER NOT NULL DEFAULT 0,
                        last_seq INTEGER,
                        last_at INTEGER,
                        created_at INTEGER NOT NULL,
                        item TEXT,
                        PRIMARY KEY (chat_id, root_seq)
                    ) WITHOUT ROWID;
                    CREATE INDEX thread_activity ON thread(chat_id, last_at);
                    CREATE UNIQUE INDEX thread_item ON thread(chat_id, item) WHERE item IS NOT NULL;
                    CREATE TABLE thread_member (
                        chat_id INTEGER NOT NULL,
                        root_seq INTEGER NOT NULL,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        following TEXT NOT NULL DEFAULT 'none',
                        read_seq INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (chat_id, root_seq, user_id),
                        FOREIGN KEY (chat_id, root_seq) REFERENCES thread(chat_id, root_seq) ON DELETE CASCADE
                    ) WITHOUT ROWID;
                    CREATE INDEX thread_member_user ON thread_member(user_id, following);
                    """)
        }
    }
}
