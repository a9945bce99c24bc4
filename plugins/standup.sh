#!/bin/sh
# Stand-up bot in plain sh: calls a group's daily stand-up on weekdays.
#   !standup 09:30   the group's admins set the time (UTC, or $STANDUP_TZ)
#   !standup off     the group's admins stop it
#   !next            anyone: when the next one is
# The host keeps the schedule across restarts and refuses !standup to other members.
tz=${STANDUP_TZ:-UTC}
echo '{"type":"hello","name":"standup","reply_wait":false,"commands":[
{"name":"standup","usage":"!standup HH:MM|off","help":"set or stop the daily stand-up","allow":"admins"},
{"name":"next","usage":"!next","help":"when the next stand-up is"}]}' | tr -d '\n'
echo
field() { printf '%s\n' "$event" | sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }
while IFS= read -r event; do
    case "$event" in
    *'"type":"tick"'*)    # a schedule came due: its data holds the chat
        chat=$(printf '%s\n' "$event" | sed -n 's/.*"data":{"chat":\([0-9]*\)}.*/\1/p')
        echo "{\"type\":\"send\",\"to\":\"$chat\",\"text\":\"Stand-up time! Yesterday, today, blockers?\"}" ;;
    *'"schedules":['*)    # the answer to our schedules action: ref is the chat asking
        chat=$(field ref)
        next=$(printf '%s\n' "$event" | grep -o "\"name\":\"standup-$chat\",\"next\":\"[^\"]*\"" | sed 's/.*"next":"\([^"]*\)"/\1/')
        if [ -n "$next" ]; then answer="Next stand-up: $next"; else answer="No stand-up set here"; fi
        echo "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"$answer\"}" ;;
    *'"type":"message"'*)
        case "$event" in *'"catch_up":true'*) continue ;; esac
        chat=$(field chat_id)
        text=$(field text)
        case "$text" in
        '!standup off')
            echo "{\"type\":\"unschedule\",\"name\":\"standup-$chat\"}"
            echo "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"No more stand-ups here\"}" ;;
        '!standup '[0-2][0-9]:[0-5][0-9])
            hour=${text#!standup }; minute=${hour#*:}; hour=${hour%:*}
            echo "{\"type\":\"schedule\",\"name\":\"standup-$chat\",\"cron\":\"$minute $hour * * mon-fri\",\"tz\":\"$tz\",\"data\":{\"chat\":$chat}}"
            echo "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"Stand-up at $hour:$minute ($tz) on weekdays\"}" ;;
        '!standup'*) echo "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"usage: !standup HH:MM or !standup off\"}" ;;
        '!next') echo "{\"type\":\"schedules\",\"ref\":$chat}" ;;
        esac ;;
    esac
done
