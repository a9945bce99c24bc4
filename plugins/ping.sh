#!/bin/sh
# A bot in plain sh: answers !ping with pong and !date with the date.
# Every line on stdin is one JSON event; each line printed is an action.
# The hello names it; it always gives the chat, so messages need not wait for its answer.
echo '{"type":"hello","name":"ping","reply_wait":false}'
while IFS= read -r event; do
    case "$event" in
        *'"catch_up":true'*) continue ;;  # sent while the bot was away: too late to answer
        *'"type":"message"'*) ;;
        *) continue ;;
    esac
    # The message's text and chat (good enough for short commands; use a JSON parser for more).
    text=$(printf '%s\n' "$event" | sed -n 's/.*"text":"\([^"]*\)".*/\1/p')
    chat=$(printf '%s\n' "$event" | sed -n 's/.*"chat_id":\([0-9]*\).*/\1/p')
    case "$text" in
        '!ping') echo "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"pong\"}" ;;
        '!date') printf '{"type":"reply","chat":%s,"text":"%s"}\n' "$chat" "$(date -u '+%Y-%m-%d %H:%M UTC')" ;;
        '!help') echo "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"I answer !ping and !date\"}" ;;
    esac
done
