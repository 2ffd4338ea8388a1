# SPDX-License-Identifier: GPL-2.0-only
#
# tools/private-apt.sh - sourced by tools/base.sh and tools/sparse.sh:
# an apt state of the project's own, to fetch packages of other Debian
# suites without installing anything or touching the system's sources.
#
# private_apt DIR TYPE SUITE...: sources.list in DIR with a line
# "TYPE URI SUITE main" (TYPE: deb or deb-src) per SUITE, URI the Debian
# archive this machine already uses (tools/qemu-deps.sh --archive, with
# its Signed-By), and lists and cache under DIR; sets PRIVATE_APT to the
# options that make apt-get and apt-cache use them. Returns 1 when the
# machine has no bookworm archive configured.
private_apt() {
	local dir=$1 type=$2 uri sb opts= s
	shift 2
	read -r uri sb < <("$REPO/tools/qemu-deps.sh" --archive) || return 1
	[ "$sb" = - ] || opts="[signed-by=$sb] "
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	for s in "$@"; do
		echo "$type $opts$uri $s main"
	done > "$dir/sources.list"
	PRIVATE_APT=(-o Dir::Etc::SourceList="$dir/sources.list"
		     -o Dir::Etc::SourceParts=/dev/null
		     -o Dir::Etc::Preferences=/dev/null
		     -o Dir::Etc::PreferencesParts=/dev/null
		     -o Dir::State::Lists="$dir/lists"
		     -o Dir::State::Status=/dev/null
		     -o Dir::Cache="$dir/cache"
		     -o APT::Sandbox::User=root)
}
