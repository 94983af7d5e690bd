#!/bin/sh
# make check-package: the Debian package built by make deb, unpacked into a
# scratch root (nothing is installed on this machine), must hold the
# programs, every template, the manual pages, the unit, the sysusers.d and
# tmpfiles.d files and the examples; the sysusers.d and tmpfiles.d files are
# applied to the scratch root; then the installed campaignctl and campaignd
# play the demo with the installed templates and example campaign.
# Usage: package.sh BUILDDIR SRCDIR VERSION
set -eu
build=$1 src=$2 version=$3
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb="$build/campaignd_${version}_${arch}.deb"
root="$build/package-root"
fail() { echo "check-package: FAIL: $*" >&2; exit 1; }

[ -f "$deb" ] || fail "$deb is missing (make deb)"
[ "$(dpkg-deb -f "$deb" Package Version Architecture | tr '\n' ' ')" = \
	"Package: campaignd Version: $version Architecture: $arch " ] ||
	fail "$deb: wrong control fields: $(dpkg-deb -f "$deb" Package Version Architecture)"
rm -rf "$root"
mkdir -p "$root"
dpkg-deb -x "$deb" "$root"

for f in usr/bin/campaignctl usr/sbin/campaignd \
	lib/systemd/system/campaignd@.service \
	usr/lib/sysusers.d/campaignd.conf usr/lib/tmpfiles.d/campaignd.conf \
	usr/share/man/man1/campaignctl.1 usr/share/man/man8/campaignd.8 \
	usr/share/man/man5/campaignd.conf.5 usr/share/man/man5/campaign.5 \
	usr/share/man/man7/campaign-orders.7 \
	usr/share/doc/campaignd/copyright usr/share/doc/campaignd/README \
	usr/share/doc/campaignd/campaignd.conf.example \
	usr/share/doc/campaignd/providers.md \
	usr/share/campaignd/examples/europe1450.campaign; do
	# dh_compress gzips the larger documents
	[ -s "$root/$f" ] || [ -s "$root/$f.gz" ] || fail "the package has no /$f"
done
n=0
for t in "$src"/templates/*.mustache; do
	cmp -s "$t" "$root/usr/share/campaignd/templates/${t##*/}" ||
		fail "template ${t##*/} is not installed as in the source"
	n=$((n + 1))
done
unit="$root/lib/systemd/system/campaignd@.service"
grep -qx 'ExecStart=/usr/sbin/campaignd -c /etc/campaignd/%i.conf' "$unit" ||
	fail "the unit does not start /usr/sbin/campaignd with /etc/campaignd/%i.conf"
"$root/usr/bin/campaignctl" --version | grep -qF "$version" || fail "campaignctl --version"
"$root/usr/sbin/campaignd" --version | grep -qF "$version" || fail "campaignd --version"

# What the postinst does, done to the scratch root: the user, then the folders.
if command -v systemd-sysusers >/dev/null 2>&1; then
	mkdir -p "$root/etc"
	systemd-sysusers --root="$root" campaignd.conf >/dev/null 2>&1 || fail "systemd-sysusers refused the sysusers.d file"
	grep -q '^campaignd:x:[0-9]*:[0-9]*:[^:]*:/var/lib/campaignd:/usr/sbin/nologin$' \
		"$root/etc/passwd" || fail "systemd-sysusers made no campaignd user"
	systemd-tmpfiles --root="$root" --create campaignd.conf || fail "systemd-tmpfiles refused the tmpfiles.d file"
	gid=$(awk -F: '$1 == "campaignd" { print $3 }' "$root/etc/group")
	[ "$(stat -c '%a %u %g' "$root/etc/campaignd")" = "750 0 $gid" ] ||
		fail "/etc/campaignd is $(stat -c '%a %u %g' "$root/etc/campaignd"), not 750 root campaignd"
	[ -d "$root/var/lib/campaignd" ] || fail "systemd-tmpfiles made no /var/lib/campaignd"
else
	echo "check-package: systemd-sysusers missing; user and folders not checked" >&2
fi

# The demo, with nothing from the source tree but the script.
demo="$build/package-root-demo"
CAMPAIGNCTL="$root/usr/bin/campaignctl" CAMPAIGND="$root/usr/sbin/campaignd" \
	CAMPAIGND_TEMPLATES="$root/usr/share/campaignd/templates" \
	DEMO_CAMPAIGN="$root/usr/share/campaignd/examples/europe1450.campaign" \
	sh "$src/contrib/demo.sh" "$build" "$src" "$demo" > "$build/package-demo.log" 2>&1 ||
	{ tail -n 30 "$build/package-demo.log"; fail "the demo failed with the installed programs"; }
grep -q 'all match' "$build/package-demo.log" || fail "the demo's dice did not verify"
# Subjects are RFC 2047 encoded past the tag and year ("[Tag] 1450 · ..."): decoded here.
python3 -c 'import email, email.header, glob, sys
for f in glob.glob(sys.argv[1] + "/outbox/*.eml"):
    m = email.message_from_binary_file(open(f, "rb"))
    s = str(email.header.make_header(email.header.decode_header(m["Subject"] or "")))
    if s.endswith(" 1450 \u00b7 The year\u2019s diary") or s.endswith(" 1450 \u00b7 The year'"'"'s diary"):
        sys.exit(0)
sys.exit(1)' "$demo" || fail "the demo mailed no diary"
rm -rf "$demo"
echo "check-package: $deb: $n templates, programs, unit, user and folders, demo: PASS"
