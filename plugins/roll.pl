#!/usr/bin/perl
# A bot in Perl: answers !roll with a die from 1 to 6, and !help.
use strict;
use warnings;
$| = 1;    # flush each line: Perl buffers what it prints to a pipe
print qq({"type":"hello","name":"roll","reply_wait":false}\n);

while (my $event = <STDIN>) {
    next unless $event =~ /"type":"message"/;
    next if $event =~ /"catch_up":true/;    # sent while the bot was away
    my ($text) = $event =~ /"text":"((?:[^"\\]|\\.)*)"/;
    my ($chat) = $event =~ /"chat_id":(\d+)/;
    next unless defined $text && defined $chat;
    if ($text eq '!roll') {
        printf "{\"type\":\"reply\",\"chat\":%d,\"text\":\"rolled %d\"}\n", $chat, 1 + int(rand(6));
    } elsif ($text eq '!help') {
        print "{\"type\":\"reply\",\"chat\":$chat,\"text\":\"I answer !roll\"}\n";
    }
}
