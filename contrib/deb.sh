#!/bin/sh
# Builds the Debian package from a copy of the distributed tree (make deb).
# Usage: deb.sh TREE VERSION OUTDIR
#   TREE     a scratch copy of the source (make distdir); contrib/debian is
#            copied to TREE/debian, which dpkg-buildpackage needs
#   VERSION  the version configure.ac gives; the changelog must agree
#   OUTDIR   where campaignd_VERSION_ARCH.deb is put
# DEB_BUILD_OPTIONS is passed on (nocheck skips the test suite in the build).
# Needs: dpkg-dev, debhelper and the build dependencies (contrib/install-deps.sh);
# lintian, when installed, checks the result and fails on any error.
set -eu
tree=$(cd "$1" && pwd) version=$2 out=$3

for tool in dpkg-buildpackage dh; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "deb.sh: $tool is missing: apt-get install dpkg-dev debhelper" >&2
		exit 1
	}
done
cd "$tree"
rm -rf debian
cp -r contrib/debian debian
chmod +x debian/rules
changelog=$(dpkg-parsechangelog -S Version)
if [ "$changelog" != "$version" ]; then
	echo "deb.sh: contrib/debian/changelog is at $changelog but configure.ac says $version;" \
		"add a changelog entry (dch -v $version)" >&2
	exit 1
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb="campaignd_${version}_${arch}.deb"
dpkg-buildpackage -us -uc -b >../dpkg-buildpackage.log 2>&1 || {
	tail -n 40 ../dpkg-buildpackage.log >&2
	echo "deb.sh: dpkg-buildpackage failed; the whole log is in $(cd .. && pwd)/dpkg-buildpackage.log" >&2
	exit 1
}
cd ..
mv "$deb" "$out/$deb"
# The built tree goes: nothing may use its templates by mistake afterwards.
rm -rf "$tree"
if command -v lintian >/dev/null 2>&1; then
	# Errors fail the build; warnings are shown.
	lintian --fail-on error --tag-display-limit 0 "$out/$deb" || {
		echo "deb.sh: lintian found errors in $deb" >&2
		exit 1
	}
else
	echo "deb.sh: lintian is not installed; the package was not checked" >&2
fi
echo "built $out/$deb"
