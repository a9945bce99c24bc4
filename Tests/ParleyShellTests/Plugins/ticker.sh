#!/bin/sh
# A plugin for the schedule tests, in plain sh. Its hello keeps a schedule "beat" every
# 2 s, "once" at $TICKER_ONCE when that is set, and "midnight" at 00:00 Paris time.
# Each tick goes to @alice as "tick NAME late=true|false run=$TICKER_RUN"; in a chat
# "!next" answers with the next time of each schedule.
once=""
[ -n "$TICKER_ONCE" ] && once=",{\"name\":\"once\",\"at\":\"$TICKER_ONCE\"}"
echo "{\"type\":\"hello\",\"name\":\"ticker\",\"reply_wait\":false,\"schedules\":[{\"name\":\"beat\",\"every\":${TICKER_EVERY:-2}},{\"name\":\"midnight\",\"cron\":\"0 0 * * *\",\"tz\":\"Europe/Paris\"}$once]}"
while IFS= read -r event; do
    case "$event" in
        *'"type":"tick"'*)
            name=$(printf '%s\n' "$event" | sed -n 's/.*"name":"\([^"]*\)".*/\1/p')
            late=$(printf '%s\n' "$event" | sed -n 's/.*"late":\([a-z]*\).*/\1/p')
            due=$(printf '%s\n' "$event" | sed -n 's/.*"due":"\([^"]*\)".*/\1/p')
            echo "{\"type\":\"send\",\"to\":\"${TICKER_TO:-@alice}\",\"text\":\"tick $name late=$late run=${TICKER_RUN:-0} due=$due\"}" ;;
        *'"schedules":['*)  # the answer to a schedules action
            chat=$(printf '%s\n' "$event" | sed -n 's/.*"ref":\([0-9]*\).*/\1/p')
            list=$(printf '%s\n' "$event" | grep -o '"name":"[a-z]*","next":"[^"]*"' | sed 's/"name":"\([a-z]*\)","next":"\([^"]*\)"/\1 \2/' | tr '\n' ';')
            echo "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"$list\"}" ;;
        *'"text":"!next"'*)  # a message
            chat=$(printf '%s\n' "$event" | sed -n 's/.*"chat_id":\([0-9]*\).*/\1/p')
            echo "{\"type\":\"schedules\",\"ref\":$chat}" ;;
    esac
done
