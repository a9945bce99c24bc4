#!/bin/sh
# A plugin for the command-permission tests: !kick only for a group's admins, !ping for
# anyone, !stats for the bot's owner. The host refuses the others before this sees them.
echo '{"type":"hello","name":"moderator","reply_wait":false,"commands":[{"name":"kick","usage":"!kick @USER","help":"remove someone from the group","allow":"admins"},{"name":"ping","usage":"!ping","help":"say whether the bot is there"},{"name":"stats","usage":"!stats","help":"how busy the bot is","allow":["bot_owner","@carol"]}]}'
while IFS= read -r event; do
    case "$event" in *'"type":"message"'*) ;; *) continue ;; esac
    text=$(printf '%s\n' "$event" | sed -n 's/.*"text":"\([^"]*\)".*/\1/p')
    chat=$(printf '%s\n' "$event" | sed -n 's/.*"chat_id":\([0-9]*\).*/\1/p')
    case "$text" in
        '!kick '*) echo "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"kicking ${text#!kick }\"}" ;;
        '!ping') echo "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"pong\"}" ;;
        '!stats') echo "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"all quiet\"}" ;;
    esac
done
