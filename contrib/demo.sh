#!/bin/sh
# The quick-start demo: creates the example campaign in a scratch folder,
# lets four players send their orders by mail into a local Maildir the way
# their mail clients would, runs the daemon once, and shows what it answered.
# No mail server is needed. Usage: demo.sh BUILDDIR SRCDIR DEMODIR
set -eu
build=$1 src=$2 demo=$3
ctl="$build/campaignctl"
daemon="$build/campaignd"

rm -rf "$demo"
mkdir -p "$demo/inbox/new" "$demo/inbox/cur" "$demo/inbox/tmp"
cd "$demo"

"$ctl" init "$src/contrib/examples/europe1450.campaign" -d campaign.db > passwords.txt
cat passwords.txt
password() { awk -v n="$1" '$1 == n { print $NF }' passwords.txt; }

cat > campaignd.conf <<CONF
# The embedded default: mail in from a local Maildir, mail out as .eml files.
database         = campaign.db
campaign-address = campaign@example.org
maildir          = inbox
outbox           = outbox
CONF

n=0
deliver() { # from subject body
	n=$((n + 1))
	f="inbox/new/$(date +%s).M${n}P$$.demo"
	printf 'From: %s\r\nTo: campaign@example.org\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <demo%s.%s@example.net>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 8bit\r\n\r\n%s' \
		"$1" "$2" "$(date -R)" "$n" "$$" "$3" > "$f"
}

deliver "Pieter van Damme <pieter@example.org>" "Burgundy's orders for 1450" "Good day,

PLAYER burgundy $(password Burgundy)
INVADE Liège VIA Brabant
IF INVADED ANY BATTLE
IN STORM CONTINUE
RECRUIT 2 Pikemen

-- 
Pieter
"
deliver "Thomas Ashdown <thomas.ashdown@example.net>" "Re: England" "PLAYER england $(password England)
MOVE Gascony
IN STORM HALT
STATUS

On Monday the organiser wrote:
> Orders are due by Friday.
"
deliver "Konrad Weißkopf <konrad@example.net>" "Befehle" "PLAYER empire $(password 'Holy')
INVADE Bohmen
"
deliver "Someone <mallory@example.com>" "orders" "PLAYER france not-the-password
INVADE Flanders
"

echo
echo "== four mails delivered to $demo/inbox; running: campaignd -c campaignd.conf --once"
"$daemon" -c campaignd.conf --once
echo
echo "== the daemon's answers (in $demo/outbox):"
ls outbox
for f in outbox/*.eml; do
	echo
	echo "------------------------------------------------------------ $f"
	# the mail as the player will read it (quoted-printable decoded)
	python3 -c 'import email,sys; m=email.message_from_binary_file(open(sys.argv[1],"rb")); print("To: "+m["To"]+"\nSubject: "+m["Subject"]+"\n"); print(m.get_payload(decode=True).decode())' "$f" 2>/dev/null || cat "$f"
done
echo
echo "== campaignctl status -d campaign.db"
"$ctl" status -d campaign.db
echo
echo "The demo campaign is in $demo: passwords.txt, campaignd.conf, the Maildir"
echo "inbox/ (processed mail in inbox/.processed) and the answers in outbox/."
