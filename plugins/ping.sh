#!/bin/sh
# A bot in plain sh: answers !ping with pong and !date with the date.
# Every line on stdin is one JSON event; each line printed is an action.
# No hello line: it gets the default events (message, member_joined, member_left).
while IFS= read -r event; do
    case "$event" in
        *'"type":"message"'*) ;;
        *) continue ;;
    esac
    # The message's text (good enough for short commands; use a JSON parser for more).
    text=$(printf '%s\n' "$event" | sed -n 's/.*"text":"\([^"]*\)".*/\1/p')
    case "$text" in
        '!ping') echo '{"type":"reply","text":"pong"}' ;;
        '!date') printf '{"type":"reply","text":"%s"}\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" ;;
        '!help') echo '{"type":"reply","text":"I answer !ping and !date"}' ;;
    esac
done
