/// The HTTP API described once: `/v1/api/*`, incoming hooks and media, as OpenAPI 3.0,
/// served at `/v1/openapi.yaml`. docs/openapi.yaml is the source (`scripts/openapi.py`
/// writes it here); `OpenAPITests` checks the two agree and that its ops are `apiOps`,
/// and `scripts/schemathesis.sh` runs schemathesis against a live server with it.
extension ParleyServer {
    static let openAPIDocument = openAPIPaths + "\n" + openAPIComponents + "\n"

    /// The document up to its components: the paths.
    private static let openAPIPaths = #"""
        openapi: 3.0.3
        info:
          title: Parley HTTP API
          version: "1"
          description: >-
            What a script does most, over plain HTTP: `POST /v1/api/OP` with a session or bot
            token as `Authorization: Bearer`, the op's arguments as the JSON body (as on the
            WebSocket, docs/protocol.md), and the reply frame as the answer, with the HTTP status
            of its error code. Incoming webhooks post to `/v1/hooks/TOKEN` (docs/hooks.md); media
            goes up with `PUT /v1/media` and comes down with `GET /v1/media/ID`. A server serves
            this document at `/v1/openapi.yaml`.
        servers:
          - url: http://127.0.0.1:7878
        security:
          - bearer: []
        paths:
          /v1/api/me:
            post:
              summary: The account the token signs in as.
              operationId: me
              requestBody: {$ref: '#/components/requestBodies/None'}
              responses:
                "200": {$ref: '#/components/responses/User'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/user:
            post:
              summary: An account by handle.
              operationId: user
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [handle]
                      properties:
                        handle: {type: string}
              responses:
                "200": {$ref: '#/components/responses/User'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/chats:
            post:
              summary: The chat list, most recent activity first, with unread counts.
              operationId: chats
              requestBody: {$ref: '#/components/requestBodies/None'}
              responses:
                "200": {$ref: '#/components/responses/List'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/chat:
            post:
              summary: One chat the caller is in.
              operationId: chat
              requestBody: {$ref: '#/components/requestBodies/Chat'}
              responses:
                "200": {$ref: '#/components/responses/Chat'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/direct_chat:
            post:
              summary: The direct chat with a person, if a message was ever sent between them.
              operationId: direct_chat
              requestBody: {$ref: '#/components/requestBodies/User'}
              responses:
                "200": {$ref: '#/components/responses/Object'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/groups:
            post:
              summary: The groups the caller is in.
              operationId: groups
              requestBody: {$ref: '#/components/requestBodies/None'}
              responses:
                "200": {$ref: '#/components/responses/List'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/group:
            post:
              summary: A public group by handle, or a private one the caller is in.
              operationId: group
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [handle]
                      properties:
                        handle: {type: string}
              responses:
                "200": {$ref: '#/components/responses/Chat'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/members:
            post:
              summary: A chat's members and their roles.
              operationId: members
              requestBody: {$ref: '#/components/requestBodies/Chat'}
              responses:
                "200": {$ref: '#/components/responses/List'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/history:
            post:
              summary: A chat's messages before `before` (or the newest), oldest first.
              description: >-
                Every message, threads' too; with `main`, the chat's main flow (a thread's root carries
                `thread_head`); with `thread` (a root's `seq`), that thread's messages.
              operationId: history
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [chat]
                      properties:
                        chat: {$ref: '#/components/schemas/ChatRef'}
                        limit: {type: integer}
                        before: {type: integer, format: int64}
                        thread: {type: integer, format: int64}
                        main: {type: boolean}
              responses:
                "200": {$ref: '#/components/responses/List'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/search:
            post:
              summary: Messages in the caller's chats with every word and the filters given.
              operationId: search
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        words: {type: string}
                        chat: {$ref: '#/components/schemas/ChatRef'}
                        from: {$ref: '#/components/schemas/UserRef'}
                        before: {type: string, format: date-time}
                        after: {type: string, format: date-time}
                        context: {type: integer}
                        limit: {type: integer}
                        thread: {type: integer, format: int64, description: "Only the thread of this root, in `chat`."}
              responses:
                "200": {$ref: '#/components/responses/List'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/mentions:
            post:
              summary: Messages that mention the caller, newest first.
              operationId: mentions
              requestBody:
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        limit: {type: integer}
              responses:
                "200": {$ref: '#/components/responses/List'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/send:
            post:
              summary: Sends a message to a chat, or to a person (a direct chat on the first).
              description: >-
                `client_id` makes a retry land once. With `media` (an upload's id), an image, video
                or file message whose caption is `text`. With `thread` (the `seq` of a message, or of
                one in its thread), a text into that thread, also in the chat's main flow with
                `also_to_chat`.
              operationId: send
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [text]
                      properties:
                        chat: {$ref: '#/components/schemas/ChatRef'}
                        user: {$ref: '#/components/schemas/UserRef'}
                        text: {type: string}
                        media: {type: string}
                        name: {type: string}
                        client_id: {type: string}
                        via: {type: string}
                        reply_to: {type: integer, format: int64}
                        thread: {type: integer, format: int64}
                        also_to_chat: {type: boolean}
              responses:
                "200": {$ref: '#/components/responses/Message'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/threads:
            post:
              summary: A chat's threads, latest activity first, with the caller's unread counts.
              operationId: threads
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [chat]
                      properties:
                        chat: {$ref: '#/components/schemas/ChatRef'}
                        limit: {type: integer}
              responses:
                "200": {$ref: '#/components/responses/List'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/open_thread:
            post:
              summary: Opens the thread of message `seq` (or the one it is in), naming it when `title` is given.
              operationId: open_thread
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [chat, seq]
                      properties:
                        chat: {$ref: '#/components/schemas/ChatRef'}
                        seq: {type: integer, format: int64}
                        title: {type: string}
              responses:
                "200": {$ref: '#/components/responses/Object'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/mark_read:
            post:
              summary: Moves the caller's read marker forward to message `seq`.
              operationId: mark_read
              requestBody: {$ref: '#/components/requestBodies/ChatSeq'}
              responses:
                "200": {$ref: '#/components/responses/Object'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/edit_message:
            post:
              summary: Replaces the text of one of the caller's messages.
              operationId: edit_message
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [chat, seq, text]
                      properties:
                        chat: {$ref: '#/components/schemas/ChatRef'}
                        seq: {type: integer, format: int64}
                        text: {type: string}
              responses:
                "200": {$ref: '#/components/responses/Message'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/delete_message:
            post:
              summary: Deletes a message (the caller's, or a member's for the group's managers).
              operationId: delete_message
              requestBody: {$ref: '#/components/requestBodies/ChatSeq'}
              responses:
                "200": {$ref: '#/components/responses/Message'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/react:
            post:
              summary: Adds the caller's reaction to a message.
              operationId: react
              requestBody: {$ref: '#/components/requestBodies/Reaction'}
              responses:
                "200": {$ref: '#/components/responses/List'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/api/unreact:
            post:
              summary: Takes the caller's reaction back.
              operationId: unreact
              requestBody: {$ref: '#/components/requestBodies/Reaction'}
              responses:
                "200": {$ref: '#/components/responses/List'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/hooks/{token}:
            post:
              summary: An incoming webhook's post (plain text, Slack's or Alertmanager's JSON; GitHub's deliveries).
              description: >-
                Answers `ok`, as Slack does, or Slack's JSON to a client that accepts JSON. Either way the
                posted message's `ts` (its number in the group) is in `X-Parley-Ts`: a later post's
                `thread_ts` names it to go into its thread.
              operationId: hook
              security: []
              parameters:
                - {name: token, in: path, required: true, schema: {type: string}}
              requestBody:
                required: true
                content:
                  text/plain:
                    schema: {type: string}
                  application/json:
                    schema: {type: object}
              responses:
                "200":
                  description: Posted.
                  headers:
                    X-Parley-Ts:
                      description: The posted message's number, which `thread_ts` names.
                      schema: {type: string}
                  content:
                    text/plain:
                      schema: {type: string}
                    application/json:
                      schema:
                        type: object
                        required: [ok, ts]
                        properties:
                          ok: {type: boolean}
                          ts: {type: string}
                          thread_ts: {type: string}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/media:
            put:
              summary: Uploads media for a chat; answers its id.
              operationId: upload_media
              parameters:
                - {name: kind, in: query, required: false, schema: {type: string, enum: [image, video, file]}}
                - {name: chat, in: query, required: false, schema: {type: string}}
                - {name: name, in: query, required: false, schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/octet-stream:
                    schema: {type: string, format: binary}
              responses:
                "201":
                  description: The upload, as a message carries it.
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Media'}
                default: {$ref: '#/components/responses/Refusal'}
          /v1/media/{id}:
            get:
              summary: Downloads media the caller may see (a `Range` is honoured).
              operationId: download_media
              parameters:
                - {name: id, in: path, required: true, schema: {type: string}}
              responses:
                "200":
                  description: The bytes, as the media's own type (image/png, video/mp4, …).
                  content:
                    "*/*":
                      schema: {type: string, format: binary}
                "206":
                  description: The range asked for.
                  content:
                    "*/*":
                      schema: {type: string, format: binary}
                default: {$ref: '#/components/responses/Refusal'}
        """#
}
