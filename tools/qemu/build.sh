#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/qemu/build.sh - build QEMU with the project's tsnep model
# (tools/qemu/tsnep.c, device "tsnep-pci") and its fixes to QEMU's igb
# model (tools/qemu/patches/) into build/qemu/, the QEMU every guest job
# runs (tools/guest/run.sh).
#
# The source is that of the installed qemu-system-x86 (the same QEMU the
# other jobs run), Debian's source package from bookworm-backports of the
# archive this machine already uses (tools/qemu-deps.sh --archive): a
# private apt state under build/qemu/apt/ fetches it, the system's apt
# sources are not touched. Only the x86_64 system emulator is built,
# without default features or devices: q35, TCG, the ISA serial port,
# virtio-9p (the guest's root file system), igb, tsnep-pci and
# virtio-net-pci (build/qemu/src/configs/devices/x86_64-softmmu/xskzc.mak).
#
# tools/qemu/patches/*.patch change QEMU's own files (patch -p1 in the
# source tree, in name order). When they change, the files they touch,
# and those the last ones touched, are put back as the tarball has them
# and the patches applied again: only those files recompile.
#
# Debian's "+ds" tarball has no firmware blobs and no bundled wheels: the
# EDK2 images are not unpacked (the guest boots SeaBIOS from Debian's
# qemu-system-data, "-L /usr/share/qemu"), and meson comes from
# bookworm-backports (tools/deps.sh, from the Makefile).
#
# Incremental: the tarball, the unpacked tree and the configured build
# are kept; a changed tsnep.c or patch only recompiles what it touches.
# Also builds the TCG plugin tools/qemu/xskzc-insn.c ("make bench"'s
# instruction counts) into build/qemu/libxskzc-insn.so.
# Prints the binary's path last: build/qemu/src/build/qemu-system-x86_64.

set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
Q=$REPO/build/qemu
SRC=$Q/src
APT=$Q/apt

die() { echo "qemu/build: error: $*" >&2; exit 1; }

ver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed: tools/qemu-deps.sh"
upstream=${ver#*:}
upstream=${upstream%-*}		# 10.0.2+ds
tarball=$Q/dl/qemu_$upstream.orig.tar.xz

fetch() {
	local uri sb opts
	read -r uri sb < <("$REPO/tools/qemu-deps.sh" --archive) ||
		die "no apt source for bookworm found"
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$Q/dl"
	opts=
	[ "$sb" = - ] || opts="[signed-by=$sb] "
	echo "deb-src $opts$uri bookworm-backports main" > "$APT/sources.list"
	local apt=(apt-get -q -o Dir::Etc::SourceList="$APT/sources.list"
		   -o Dir::Etc::SourceParts=/dev/null
		   -o Dir::State::Lists="$APT/lists"
		   -o Dir::Cache="$APT/cache"
		   -o APT::Sandbox::User=root)
	echo "qemu/build: fetching the source of qemu $ver" >&2
	"${apt[@]}" update >/dev/null
	# The orig tarball is all this build needs: the archive may serve it
	# without the .dsc and the Debian diff, and apt then fails the rest.
	(cd "$Q/dl" && "${apt[@]}" source --download-only "qemu=$ver" >/dev/null 2>&1) || true
	[ -f "$tarball" ] || die "could not fetch qemu_$upstream.orig.tar.xz"
}

unpack() {
	echo "qemu/build: unpacking qemu $upstream" >&2
	rm -rf "$SRC" "$Q/unpack"
	mkdir -p "$Q/unpack"
	tar -xJf "$tarball" -C "$Q/unpack"
	mv "$Q/unpack"/qemu-* "$SRC"
	rmdir "$Q/unpack"
	# no EDK2 images in the +ds tarball: do not unpack them
	sed -i 's/^\( *\)unpack_edk2_blobs = bzip2.found()$/\1unpack_edk2_blobs = false/' \
		"$SRC/meson.build"
	grep -q tsnep.c "$SRC/hw/net/meson.build" ||
		echo "system_ss.add(when: 'CONFIG_TSNEP_PCI', if_true: files('tsnep.c'))" \
			>> "$SRC/hw/net/meson.build"
	grep -q TSNEP_PCI "$SRC/hw/net/Kconfig" ||
		printf '\nconfig TSNEP_PCI\n    bool\n    depends on PCI && MSI_NONBROKEN\n' \
			>> "$SRC/hw/net/Kconfig"
	echo "$upstream" > "$SRC/.xskzc-version"
}

# The files the patches touch, one a line ("+++ b/PATH").
patched_files() {
	[ $# -eq 0 ] || sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$@"
}

# build/qemu/src/.xskzc-patches: the checksum of the patches applied,
# then the files they touched.
apply_patches() {
	local patches=("$REPO"/tools/qemu/patches/*.patch) sum files top p
	[ -e "${patches[0]}" ] || patches=()
	sum=$(cat /dev/null "${patches[@]}" | sha256sum | cut -d ' ' -f 1)
	[ "$(head -n 1 "$SRC/.xskzc-patches" 2>/dev/null)" = "$sum" ] && return
	mapfile -t files < <({ tail -n +2 "$SRC/.xskzc-patches" 2>/dev/null
			       patched_files "${patches[@]}"; } | sort -u)
	# until they all apply, no checksum: the next run starts over
	printf '%s\n' - "${files[@]}" > "$SRC/.xskzc-patches"
	if [ ${#files[@]} -gt 0 ]; then
		echo "qemu/build: tools/qemu/patches changed: ${#files[@]} files restored, ${#patches[@]} patches applied" >&2
		top=$(tar -tJf "$tarball" | head -n 1 || true)
		top=${top%%/*}
		# -m: the restored files are newer than their objects
		tar -xmJf "$tarball" -C "$SRC" --strip-components=1 \
			"${files[@]/#/$top/}" ||
			die "cannot restore ${files[*]} from $tarball"
	fi
	for p in "${patches[@]}"; do
		patch -s -p1 -N -d "$SRC" < "$p" ||
			die "$p does not apply to qemu $upstream"
	done
	{ echo "$sum"; patched_files "${patches[@]}"; } > "$SRC/.xskzc-patches"
}

[ -f "$tarball" ] || fetch
[ "$(cat "$SRC/.xskzc-version" 2>/dev/null)" = "$upstream" ] || unpack
apply_patches

cat > "$SRC/configs/devices/x86_64-softmmu/xskzc.mak.new" <<'EOF'
CONFIG_Q35=y
CONFIG_SERIAL_ISA=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_9P=y
CONFIG_IGB_PCI_EXPRESS=y
# hw/net/meson.build builds e1000x_common.c, which igb needs too, only
# with e1000 or e1000e
CONFIG_E1000_PCI=y
CONFIG_TSNEP_PCI=y
CONFIG_VIRTIO_NET=y
EOF
cmp -s "$SRC/configs/devices/x86_64-softmmu/xskzc.mak"{.new,} ||
	mv "$SRC/configs/devices/x86_64-softmmu/xskzc.mak"{.new,}
rm -f "$SRC/configs/devices/x86_64-softmmu/xskzc.mak.new"
cmp -s "$REPO/tools/qemu/tsnep.c" "$SRC/hw/net/tsnep.c" ||
	cp "$REPO/tools/qemu/tsnep.c" "$SRC/hw/net/tsnep.c"

# TCG plugins: "make bench" loads tools/qemu/xskzc-insn.c to count the
# guest's instructions per packet. A build configured otherwise is
# configured again (build/qemu/src/.xskzc-configure).
conf=(--python=/usr/bin/python3
      --target-list=x86_64-softmmu
      --without-default-features --without-default-devices
      --with-devices-x86_64=xskzc
      --enable-tcg --enable-attr --enable-virtfs --enable-plugins
      --disable-docs --disable-tools --disable-guest-agent
      --disable-install-blobs --disable-werror)
if [ ! -f "$SRC/build/build.ninja" ] ||
   [ "$(cat "$SRC/.xskzc-configure" 2>/dev/null)" != "${conf[*]}" ]; then
	echo "qemu/build: configuring (x86_64-softmmu, no default features or devices)" >&2
	rm -f "$SRC/.xskzc-configure"
	(cd "$SRC" && ./configure "${conf[@]}" > "$Q/configure.log" 2>&1) ||
		die "configure failed: build/qemu/configure.log"
	echo "${conf[*]}" > "$SRC/.xskzc-configure"
fi
ninja -C "$SRC/build" qemu-system-x86_64 > "$Q/ninja.log" 2>&1 ||
	{ tail -n 30 "$Q/ninja.log" >&2; die "build failed: build/qemu/ninja.log"; }

plugin=$Q/libxskzc-insn.so
if [ ! -f "$plugin" ] || [ "$REPO/tools/qemu/xskzc-insn.c" -nt "$plugin" ] ||
   [ "$SRC/include/qemu/qemu-plugin.h" -nt "$plugin" ]; then
	# shellcheck disable=SC2046
	gcc -O2 -Wall -Wextra -Wno-unused-parameter -Werror -shared -fPIC \
		-I"$SRC/include/qemu" $(pkg-config --cflags glib-2.0) \
		-o "$plugin" "$REPO/tools/qemu/xskzc-insn.c" ||
		die "cannot build $plugin"
fi
echo "$SRC/build/qemu-system-x86_64"
