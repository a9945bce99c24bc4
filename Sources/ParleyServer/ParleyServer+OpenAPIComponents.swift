/// The components of `ParleyServer.openAPIDocument`: schemas, bodies and answers.
extension ParleyServer {
    static let openAPIComponents = #"""
        components:
          securitySchemes:
            bearer:
              type: http
              scheme: bearer
              description: A session token (the one a sign-in answers) or a bot token (`/bots token`).
          schemas:
            ChatRef:
              description: A chat's id, a `#group` or an `@handle` (the direct chat with them).
              example: "#team"
              oneOf:
                - {type: integer, format: int64}
                - {type: string}
            UserRef:
              description: An account's id or its `@handle`.
              example: "@alice"
              oneOf:
                - {type: integer, format: int64}
                - {type: string}
            Reply:
              type: object
              required: [id, result]
              properties:
                id: {type: integer}
                result: {}
            Error:
              type: object
              required: [error]
              properties:
                id: {type: integer, nullable: true}
                error:
                  type: object
                  required: [code, message]
                  properties:
                    code: {type: string}
                    message: {type: string}
            Media:
              type: object
              required: [id, kind, size, type]
              properties:
                id: {type: string}
                kind: {type: string, enum: [image, video, file]}
                size: {type: integer, format: int64}
                type: {type: string}
            User:
              type: object
              required: [id, handle, display_name]
              properties:
                id: {type: integer, format: int64}
                handle: {type: string}
                display_name: {type: string}
            Chat:
              type: object
              required: [id, kind]
              properties:
                id: {type: integer, format: int64}
                kind: {type: string, enum: [direct, group]}
            Message:
              type: object
              required: [id, chat_id, seq, sender, kind, text, sent_at]
              properties:
                id: {type: integer, format: int64}
                chat_id: {type: integer, format: int64}
                seq: {type: integer, format: int64}
                sender: {$ref: '#/components/schemas/User'}
                kind: {type: string}
                text: {type: string}
                sent_at: {type: string, format: date-time}
          requestBodies:
            None:
              description: No arguments (an empty body or `{}`).
              content:
                application/json:
                  schema: {type: object}
            Chat:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    required: [chat]
                    properties:
                      chat: {$ref: '#/components/schemas/ChatRef'}
            User:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    required: [user]
                    properties:
                      user: {$ref: '#/components/schemas/UserRef'}
            ChatSeq:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    required: [chat, seq]
                    properties:
                      chat: {$ref: '#/components/schemas/ChatRef'}
                      seq: {type: integer, format: int64}
            Reaction:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    required: [chat, seq, emoji]
                    properties:
                      chat: {$ref: '#/components/schemas/ChatRef'}
                      seq: {type: integer, format: int64}
                      emoji: {type: string}
          responses:
            User:
              description: The account.
              content:
                application/json:
                  schema:
                    type: object
                    required: [id, result]
                    properties:
                      id: {type: integer}
                      result: {$ref: '#/components/schemas/User'}
            Chat:
              description: The chat.
              content:
                application/json:
                  schema:
                    type: object
                    required: [id, result]
                    properties:
                      id: {type: integer}
                      result: {$ref: '#/components/schemas/Chat'}
            Message:
              description: The message as stored.
              content:
                application/json:
                  schema:
                    type: object
                    required: [id, result]
                    properties:
                      id: {type: integer}
                      result: {$ref: '#/components/schemas/Message'}
            List:
              description: The list.
              content:
                application/json:
                  schema:
                    type: object
                    required: [id, result]
                    properties:
                      id: {type: integer}
                      result: {type: array, items: {}}
            Object:
              description: The answer.
              content:
                application/json:
                  schema:
                    type: object
                    required: [id, result]
                    properties:
                      id: {type: integer}
                      result: {type: object}
            Refusal:
              description: >-
                A refusal: 400 a bad argument, 401 no or a bad token, 403 not allowed, 404 no such
                op, chat, message or hook, 413 too large, 415 not that kind of media, 429 over the
                rate, 503 not now.
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Error'}
        """#
}
