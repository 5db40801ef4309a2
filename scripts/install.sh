#!/bin/sh
# Installs padd and padctl from a release archive (make dist: padd-<version>-<os>-<arch>.tar.gz,
# or the directory it unpacks to) into PREFIX/bin, their shell completions into the user's
# completion directories, and runs `padctl daemon install` (padd as your per-user service).
# Everything it writes is listed in PREFIX/share/padd/install-manifest, which --uninstall reads.
#
#   scripts/install.sh padd-v1.2.3-linux-amd64.tar.gz          # into ~/.local
#   scripts/install.sh --prefix /opt/padd DIR                   # another prefix, an unpacked archive
#   scripts/install.sh --no-service ARCHIVE                     # binaries only
#   scripts/install.sh --uninstall [--prefix P]                 # stops padd, removes all it put there
#
# Your data (PAD_HOME, else ~/.local/share/padd or the OS's place) is never touched.
set -eu

prefix="${HOME}/.local"
service=1
uninstall=0
src=""
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) prefix="$2"; shift 2 ;;
	--prefix=*) prefix="${1#--prefix=}"; shift ;;
	--no-service) service=0; shift ;;
	--uninstall) uninstall=1; shift ;;
	-h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "install.sh: unknown option $1" >&2; exit 2 ;;
	*) src="$1"; shift ;;
	esac
done
bin="$prefix/bin"
manifest="$prefix/share/padd/install-manifest"

if [ "$uninstall" = 1 ]; then
	if [ ! -f "$manifest" ]; then
		echo "install.sh: nothing installed under $prefix (no $manifest)" >&2
		exit 1
	fi
	if [ -x "$bin/padctl" ]; then
		"$bin/padctl" daemon uninstall >/dev/null || echo "install.sh: padctl daemon uninstall failed; removing the files anyway" >&2
		"$bin/padctl" daemon stop >/dev/null 2>&1 || true
	fi
	# Files first, then the directories it made, deepest first, if empty.
	grep -v '/$' "$manifest" | while IFS= read -r f; do rm -f "$f"; done
	dirs=$(mktemp)
	grep '/$' "$manifest" | sort -r > "$dirs" || true
	rm -f "$manifest"
	while IFS= read -r d; do rmdir "$d" 2>/dev/null || true; done < "$dirs"
	rm -f "$dirs"
	rmdir "$prefix/share/padd" 2>/dev/null || true
	echo "Removed padd and padctl from $prefix; your data stays."
	exit 0
fi

if [ -z "$src" ]; then
	echo "install.sh: give the release archive (.tar.gz) or the directory it unpacks to" >&2
	exit 2
fi
tmp=""
trap '[ -n "$tmp" ] && rm -rf "$tmp"' EXIT
if [ -f "$src" ]; then
	tmp=$(mktemp -d)
	tar -xzf "$src" -C "$tmp"
	src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
fi
for b in padd padctl; do
	if [ ! -x "$src/$b" ]; then
		echo "install.sh: no $b in $src" >&2
		exit 1
	fi
done

list=$(mktemp)
mkd() { # mkd DIR: mkdir -p, listing each directory it makes
	[ -d "$1" ] && return 0
	mkd "$(dirname "$1")"
	mkdir "$1" && echo "$1/" >> "$list"
}
mkd "$bin"
mkd "$(dirname "$manifest")"
put() { # put SRC DEST MODE
	mkd "$(dirname "$2")"
	# A new file and a rename, so a running padd keeps its old binary.
	cp "$1" "$2.new.$$" && chmod "$3" "$2.new.$$" && mv -f "$2.new.$$" "$2"
	echo "$2" >> "$list"
}
put "$src/padd" "$bin/padd" 755
put "$src/padctl" "$bin/padctl" 755
data="${XDG_DATA_HOME:-$HOME/.local/share}"
conf="${XDG_CONFIG_HOME:-$HOME/.config}"
[ -f "$src/completions/padctl.bash" ] && put "$src/completions/padctl.bash" "$data/bash-completion/completions/padctl" 644
[ -f "$src/completions/_padctl" ] && put "$src/completions/_padctl" "$data/zsh/site-functions/_padctl" 644
[ -f "$src/completions/padctl.fish" ] && put "$src/completions/padctl.fish" "$conf/fish/completions/padctl.fish" 644
# Keep what an earlier install listed and this one did not put again.
if [ -f "$manifest" ]; then
	cat "$manifest" >> "$list"
fi
sort -u "$list" > "$manifest"
rm -f "$list"
echo "Installed padd and padctl $("$bin/padctl" version 2>/dev/null | sed -n '1s/^padctl *//p') in $bin"

case ":$PATH:" in *":$bin:"*) ;; *) echo "note: $bin is not on your PATH; add it to use padctl by name" ;; esac
if [ "$service" = 1 ]; then
	# Restarts a padd already installed as a service, so no old padd keeps running.
	"$bin/padctl" daemon install
fi
