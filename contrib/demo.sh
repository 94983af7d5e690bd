#!/bin/sh
# The quick-start demo: the example campaign played for a whole year by
# mail, with no mail server. Four players send their orders into a local
# Maildir the way their mail clients would; the daemon runs once at each
# moment of the year (campaignd --now makes it act as if the time were that
# moment, so three days pass in a second); its answers are written as .eml
# files. At the end: the year's diary, the web diary and the dice checked.
# Usage: demo.sh BUILDDIR SRCDIR DEMODIR
# CAMPAIGNCTL, CAMPAIGND, CAMPAIGND_TEMPLATES and DEMO_CAMPAIGN, when set,
# name other programs, templates and campaign file (make check-package plays
# the demo with the installed ones).
set -eu
build=$1 src=$2 demo=$3
ctl="${CAMPAIGNCTL:-$build/campaignctl}"
daemon="${CAMPAIGND:-$build/campaignd}"
campaign="${DEMO_CAMPAIGN:-$src/contrib/examples/europe1450.campaign}"
export CAMPAIGND_TEMPLATES="${CAMPAIGND_TEMPLATES:-$src/templates}"

rm -rf "$demo"
mkdir -p "$demo/inbox/new" "$demo/inbox/cur" "$demo/inbox/tmp"
cd "$demo"

(umask 077 && "$ctl" init "$campaign" -d campaign.db > passwords.txt)
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

# The demo's clock: 15 January 2027, 08:00 UTC, moved on by hand. The daemon
# is told (--max-gap 0) that the days skipped were not its own downtime.
now=1800000000
at() { # hours-from-start: run the daemon once at that moment
	now=$((1800000000 + $1 * 3600))
	"$daemon" -c campaignd.conf --once --now "$now" --max-gap 0 2>&1 |
		grep -v 'uidlist' | sed 's/^campaignd: \[[^]]*\] /  daemon: /'
}
show() { # mail files: print them as the player reads them
	for f in "$@"; do
		echo "------------------------------------------------------------ $f"
		python3 -c 'import email,sys
m=email.message_from_binary_file(open(sys.argv[1],"rb"))
import email.header
print("To: "+m["To"]+"\nSubject: "+str(email.header.make_header(email.header.decode_header(m["Subject"])))+"\n")
for p in m.walk():
    if p.get_content_type()=="text/plain": print(p.get_payload(decode=True).decode())' "$f" 2>/dev/null ||
			cat "$f"
	done
}
latest() { # subject words: the newest mail whose (decoded) subject holds them, or that
	# holds that mail merged in (under a rule and its subject), to the given address
	python3 -c 'import email,email.header,glob,sys
hit=""
part="-"*72+"\n"+sys.argv[1].split("\u00b7 ")[-1]
for f in sorted(glob.glob("outbox/*.eml")):
    m=email.message_from_binary_file(open(f,"rb"))
    s=str(email.header.make_header(email.header.decode_header(m["Subject"] or "")))
    t="".join(p.get_payload(decode=True).decode() for p in m.walk() if p.get_content_type()=="text/plain")
    if (sys.argv[1] in s or part in t) and sys.argv[2] in (m["To"] or ""): hit=f
print(hit)' "$1" "$2"
}

echo
echo "== Before the start: orders sent in advance (they will count)"
deliver "Pieter van Damme <pieter@example.org>" "Burgundy's orders for 1450" "Good day,

PLAYER burgundy $(password Burgundy)
INVADE Liège VIA Brabant
IF INVADED ANY BATTLE

-- 
Pieter
"
deliver "Marguerite Delaunay <organiser@example.org>" "France" "PLAYER france $(password France)
IF INVADED ANY BATTLE
NO MOVE
"
deliver "Someone <mallory@example.com>" "orders" "PLAYER france not-the-password
INVADE Flanders
"
at 0

echo
echo "== The organiser starts the campaign (fixed dice seed, so the demo is the same every time)"
"$ctl" start -d campaign.db --now "$now" --address campaign@example.org \
	--seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
at 0
show "$(latest '1450 · The sequence of play' organiser)"

echo
echo "== England invades Normandy across the Channel"
deliver "Thomas Ashdown <thomas.ashdown@example.net>" "Re: your turn" "PLAYER england $(password England)
INVADE Normandy VIA Kent
IN STORM CONTINUE
"
at 1
show "$(latest 'Battle at Normandy' thomas)"

echo
echo "== The battle is fought on the table; both sides report the same result"
result="BATTLE AT Normandy
WINNER france
DEMORALISED england Lieutenant-general
DESTROYED england 4 Longbowmen
FLED england 2 Billmen
DESTROYED france 2 Gendarmes d'ordonnance
"
deliver "Thomas Ashdown <thomas.ashdown@example.net>" "Normandy" "PLAYER england $(password England)
$result"
deliver "Marguerite Delaunay <organiser@example.org>" "Normandy" "PLAYER france $(password France)
$result"
at 30
show "$(latest 'The turn of England' thomas)"

echo
echo "== Burgundy's orders were in: it marched and besieged Liège at once; the Empire sends a contingent"
deliver "Konrad Weißkopf <konrad@example.net>" "Befehle" "PLAYER empire $(password 'Holy')
SEND CONTINGENT TO burgundy WITH 1 Princes of the Empire, 4 Ritter
"
at 31
show "$(latest '1450 · Recruitment' konrad)"

echo
echo "== The recruitment phase: England and France recruit; the others let the deadline pass"
deliver "Thomas Ashdown <thomas.ashdown@example.net>" "recruits" "PLAYER england $(password England)
RECRUIT 4 Longbowmen
"
deliver "Marguerite Delaunay <organiser@example.org>" "recruits" "PLAYER france $(password France)
RECRUIT 2 Gendarmes
"
at 32
echo "  (the organiser adds a word for the diary)"
"$ctl" comment -d campaign.db --now "$now" The Channel was cruel to the English this year.
at 80
at 104
show "$(latest "1450 · The year's diary" konrad)"

echo
echo "== campaignctl verify -d campaign.db: every roll of 1450 re-derived from the revealed seed"
"$ctl" verify -d campaign.db
"$ctl" publish -d campaign.db site >/dev/null 2>&1 && echo "== the web diary: $demo/site/index.html"

echo
echo "The demo campaign is in $demo: passwords.txt, campaignd.conf, the Maildir"
echo "inbox/ (processed mail in inbox/.processed) and every mail the daemon sent in"
echo "outbox/ ($(ls outbox | wc -l) mails: the turns, the battle, the reports, the diary)."
